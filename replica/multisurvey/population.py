"""Per-object plan ("spec") of LSST diaObjects: kind, position, brightness, colour and light-curve parameters.

Kinds: SN (transients that rise and fade), VS (periodic variable stars), AGN (nuclei that wander), bogus
(subtraction artefacts, a few detections in one night) and moving (unlinked fast movers, one detection).
Fluxes are nJy in the r band; AB mag = 31.4 - 2.5 log10(flux).
"""

import numpy as np
import pandas as pd

from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD, lsst_positions

__all__ = ["KINDS", "flux_of_mag", "random_spec"]

KINDS = ("SN", "VS", "AGN", "bogus", "moving")
_KIND_WEIGHTS = (0.30, 0.28, 0.14, 0.20, 0.08)
_DEEP_FRACTION = 0.10
# Period (days) and fractional amplitude ranges of the variable-star types, drawn log-uniformly / uniformly.
_VARIABLES = {
    "RRL": ((0.3, 0.9), (0.3, 0.8), 0.25),
    "EB": ((0.3, 5.0), (0.1, 0.6), 0.35),
    "DSCT": ((0.03, 0.2), (0.05, 0.3), 0.10),
    "CEP": ((2.0, 40.0), (0.2, 0.6), 0.05),
    "LPV": ((80.0, 500.0), (0.5, 1.5), 0.25),
}


def flux_of_mag(mag: np.ndarray) -> np.ndarray:
    """Return the flux in nJy of an AB magnitude."""
    return 10 ** ((31.4 - np.asarray(mag, dtype=float)) / 2.5)


def _transient(rng: np.random.Generator, spec: pd.DataFrame, m: np.ndarray) -> None:
    n = m.sum()
    spec.loc[m, "flux"] = flux_of_mag(rng.uniform(19.0, 23.8, n))
    spec.loc[m, "t0"] = rng.uniform(LSST_START_MJD - 20.0, LSST_END_MJD, n)
    spec.loc[m, "tau_rise"] = rng.uniform(2.0, 9.0, n)
    spec.loc[m, "tau_fall"] = rng.uniform(15.0, 70.0, n)
    spec.loc[m, "color"] = rng.normal(0.0, 0.2, n)
    spec.loc[m, "host"] = np.where(rng.random(n) < 0.8, flux_of_mag(rng.uniform(19.5, 24.5, n)), 0.0)
    spec.loc[m, "extendedness"] = np.where(spec.loc[m, "host"] > 0, rng.uniform(0.3, 1.0, n), rng.uniform(0, 0.2, n))


def _variable(rng: np.random.Generator, spec: pd.DataFrame, m: np.ndarray) -> None:
    n = m.sum()
    names = list(_VARIABLES)
    weights = np.array([w for _, _, w in _VARIABLES.values()])
    kind = rng.choice(names, size=n, p=weights / weights.sum())
    period, amplitude = np.empty(n), np.empty(n)
    for name, ((p0, p1), (a0, a1), _) in _VARIABLES.items():
        k = kind == name
        period[k] = np.exp(rng.uniform(np.log(p0), np.log(p1), k.sum()))
        amplitude[k] = rng.uniform(a0, a1, k.sum())
    spec.loc[m, "subtype"] = kind
    spec.loc[m, "period"] = period
    spec.loc[m, "amplitude"] = amplitude
    spec.loc[m, "phase"] = rng.uniform(0.0, 1.0, n)
    spec.loc[m, "flux"] = flux_of_mag(rng.uniform(15.5, 21.5, n))
    spec.loc[m, "color"] = rng.normal(0.5, 0.3, n)
    spec.loc[m, "host"] = spec.loc[m, "flux"] * (1.0 + rng.normal(0.0, 0.02, n))
    spec.loc[m, "extendedness"] = rng.uniform(0.0, 0.1, n)


def _agn(rng: np.random.Generator, spec: pd.DataFrame, m: np.ndarray) -> None:
    n = m.sum()
    spec.loc[m, "flux"] = flux_of_mag(rng.uniform(18.0, 21.0, n))
    spec.loc[m, "amplitude"] = rng.uniform(0.08, 0.35, n)
    spec.loc[m, "period"] = rng.uniform(40.0, 400.0, n)  # longest of the three wandering terms
    spec.loc[m, "phase"] = rng.uniform(0.0, 1.0, n)
    spec.loc[m, "color"] = rng.normal(0.2, 0.15, n)
    spec.loc[m, "host"] = spec.loc[m, "flux"] * rng.uniform(1.0, 4.0, n)
    spec.loc[m, "extendedness"] = rng.uniform(0.3, 1.0, n)


def _one_night(rng: np.random.Generator, spec: pd.DataFrame, m: np.ndarray, faint: float) -> None:
    n = m.sum()
    spec.loc[m, "flux"] = flux_of_mag(rng.uniform(18.5, faint, n))
    spec.loc[m, "color"] = rng.normal(0.3, 0.3, n)
    spec.loc[m, "host"] = 0.0
    spec.loc[m, "extendedness"] = rng.uniform(0.0, 1.0, n)


def random_spec(rng: np.random.Generator, n: int, kinds: np.ndarray | None = None) -> pd.DataFrame:
    """Return the spec of `n` random diaObjects (no ids yet), of the given kinds (default: drawn)."""
    kind = rng.choice(np.array(KINDS), size=n, p=np.array(_KIND_WEIGHTS)) if kinds is None else np.asarray(kinds)
    ra, dec, deep = lsst_positions(rng, n, _DEEP_FRACTION)
    spec = pd.DataFrame({"kind": kind, "subtype": kind, "ra": ra, "dec": dec, "deep": deep})
    spec[["flux", "t0", "tau_rise", "tau_fall", "color", "host", "extendedness", "period", "amplitude"]] = np.nan
    spec["phase"] = 0.0
    _transient(rng, spec, kind == "SN")
    _variable(rng, spec, kind == "VS")
    _agn(rng, spec, kind == "AGN")
    _one_night(rng, spec, kind == "bogus", 22.5)
    _one_night(rng, spec, kind == "moving", 23.0)
    return spec
