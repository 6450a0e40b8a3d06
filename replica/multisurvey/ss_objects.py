"""Solar-system objects (sid 2): orbits near opposition, followed for one to five nights by LSST.

Each object's detections move along its orbit; lsst_ss_detection holds their geometry (the ephemeris at the time
of each detection) and lsst_mpc_orbits the orbit, with the placeholders the service shows (ALeRCE_LSST_SSO).
"""

import numpy as np
import pandas as pd

from replica.multisurvey.cadence import snap_to_visits, visits_at
from replica.multisurvey.lightcurves import DETECTION_SNR, band_flux, measure
from replica.multisurvey.orbits import apparent_v, ephemeris, random_elements
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD

__all__ = ["G_SLOPE", "SS_SID", "observed_epochs", "random_designations", "ss_observations"]

SS_SID = 2
_HALF_MONTHS = "ABCDEFGHJKLMNOPQRSTUVWXY"
_ORDER_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_V_MINUS_R = 0.2
G_SLOPE = 0.15


def random_designations(rng: np.random.Generator, n: int, taken: set[str]) -> list[str]:
    """Return `n` new unpacked provisional designations ('2019 QF42'), none in `taken` (which is updated)."""
    out: list[str] = []
    while len(out) < n:
        year = int(rng.integers(1995, 2026))
        cycle = int(rng.integers(0, 250))
        name = f"{year} {rng.choice(list(_HALF_MONTHS))}{rng.choice(list(_ORDER_LETTERS))}{cycle or ''}"
        if name not in taken:
            taken.add(name)
            out.append(name)
    return out


def _visible_orbits(rng: np.random.Generator, n: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Orbits of `n` objects far from the Sun and in LSST's sky on their first night, with that night."""
    elements = random_elements(rng, 6 * n)
    start = np.floor(rng.uniform(LSST_START_MJD, LSST_END_MJD - 5.0, len(elements))) + 0.05
    eph = ephemeris(elements, start)
    ok = (eph["elongation"] > 90.0) & (eph["dec"] < 20.0) & (eph["dec"] > -80.0)
    keep = np.flatnonzero(ok)[:n]
    elements = elements.iloc[keep].reset_index(drop=True)
    at_h0 = apparent_v(0.0, G_SLOPE, eph["heliorange"][keep], eph["toporange"][keep], eph["phaseangle"][keep])
    elements["h"] = rng.uniform(19.0, 23.0, len(keep)) - at_h0
    elements["g"] = G_SLOPE
    return elements, start[keep]


def _epochs(rng: np.random.Generator, start: np.ndarray) -> pd.DataFrame:
    nights = rng.integers(1, 6, len(start))
    obj = np.repeat(np.arange(len(start)), nights)
    night = start[obj] + np.concatenate([np.arange(k) for k in nights])
    per_night = rng.integers(4, 31, len(night))
    obj, night = np.repeat(obj, per_night), np.repeat(night, per_night)
    step = np.concatenate([np.arange(k) for k in per_night])
    return visits_at(rng, obj, snap_to_visits(night + rng.uniform(0.0, 0.05, len(night)) + step * 0.012))


def observed_epochs(rng: np.random.Generator, elements: pd.DataFrame, epochs: pd.DataFrame) -> pd.DataFrame:
    """Return the epochs (`_obj` indexes `elements`) with their ephemeris, V magnitude and measured fluxes."""
    orbit = elements.iloc[epochs["_obj"].to_numpy()].reset_index(drop=True)
    eph = ephemeris(orbit, epochs["mjd"].to_numpy())
    v = apparent_v(orbit["h"].to_numpy(), orbit["g"].to_numpy(), eph["heliorange"], eph["toporange"], eph["phaseangle"])
    flux = band_flux(10 ** ((31.4 - v + _V_MINUS_R) / 2.5), np.full(len(v), 0.45), epochs["band_name"].to_numpy())
    measured = measure(rng, flux, np.zeros(len(v)), epochs["noise"].to_numpy())
    det = epochs.assign(**measured, ephvmag=v, **{k: eph[k] for k in eph if np.ndim(eph[k]) == 1})
    vectors = {"helio_": "helio_xyz", "helio_v": "helio_vxyz", "topo_": "topo_xyz", "topo_v": "topo_vxyz"}
    return det.assign(**{p + axis: eph[key][:, k] for p, key in vectors.items() for k, axis in enumerate("xyz")})


def ss_observations(rng: np.random.Generator, n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (orbits, detections with their ephemeris) of `n` candidates; only those detected twice or more."""
    elements, start = _visible_orbits(rng, n)
    det = observed_epochs(rng, elements, _epochs(rng, start))
    det = det[det["snr"].to_numpy() >= DETECTION_SNR]
    counts = det.groupby("_obj").size()
    seen = counts.index[counts.to_numpy() >= 2].to_numpy()
    det = det[det["_obj"].isin(seen)].reset_index(drop=True)
    elements = elements.iloc[seen].reset_index(drop=True)
    det["_obj"] = np.searchsorted(seen, det["_obj"].to_numpy())
    return elements, det
