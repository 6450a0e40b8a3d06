"""feature rows (long format) of diaObjects with at least two detections, named by feature_name_lut.

Band 0 holds the multiband features (colours, Timespan, positions, periods, WISE colours); the others are
computed per band with five or more detections, and need more points for periodograms and fits. Values that
cannot be computed are not stored, as on the service. Magnitudes are AB, from fluxes in nJy.
"""

import re

import numpy as np
import pandas as pd

from replica.multisurvey.lookups import FEATURE_NAMES, LSST_BANDS

__all__ = ["MULTIBAND_BAND", "feature_rows", "is_multiband"]

FEATURE_VERSION = 1
MULTIBAND_BAND = 0
_MIN_BAND_POINTS = 5
_COLOUR = re.compile(r"^([ugrizy])-([ugrizy])_(mean|max)(_corr)?$")
_WISE_COLOUR = re.compile(r"^([ugrizyW]\d?)-(W\d)$")
_MULTIBAND = {"Timespan", "Coordinate_x", "Coordinate_y", "Coordinate_z", "TDE_decay", "TDE_decay_chi", "TDE_mag0"}
_MULTIBAND |= {"Multiband_period", "PPE", "color_variation"} | {n for n in FEATURE_NAMES if n.startswith("Power_")}
_MIN_POINTS = {"Harmonics_": 10, "MHPS_": 10, "GP_DRW_": 10, "IAR_": 10, "SF_ML_": 10, "Psi_": 10, "SPM_": 5}
_MIN_POINTS |= {"fleet_": 5, "Period_band": 10, "delta_period": 10}
# (low, high) of the per-band features drawn at random; the others are drawn from (0, 1).
_RANGES = {"SPM_t0": (-20.0, 60.0), "SPM_tau_rise": (1.0, 20.0), "SPM_tau_fall": (5.0, 120.0)}
_RANGES |= {"Period_band": (0.05, 500.0)}
_RANGES |= {"GP_DRW_tau": (1.0, 400.0), "SPM_A": (0.1, 10.0), "Autocor_length": (1.0, 30.0), "Con": (0.0, 0.2)}


def is_multiband(name: str) -> bool:
    """Whether a feature is computed over all bands at once (its rows have band 0)."""
    return name in _MULTIBAND or bool(_COLOUR.match(name) or _WISE_COLOUR.match(name))


def _mag(flux: np.ndarray) -> np.ndarray:
    return np.where(flux > 0, 31.4 - 2.5 * np.log10(np.where(flux > 0, flux, 1.0)), np.nan)


def _band_stats(det: pd.DataFrame) -> pd.DataFrame:
    d = det.assign(mag=_mag(det["scienceflux"].to_numpy()), positive=det["psfflux"] > 0)
    return d.groupby(["oid", "band"], as_index=False).agg(
        n=("mag", "size"),
        mean=("mag", "mean"),
        std=("mag", "std"),
        brightest=("mag", "min"),
        faintest=("mag", "max"),
        positive_fraction=("positive", "mean"),
        psf_mean=("psfflux", "mean"),
        psf_max=("psfflux", "max"),
        sci_mean=("scienceflux", "mean"),
        sci_max=("scienceflux", "max"),
    )


def _long(oids, band, name: str, values) -> pd.DataFrame:
    return pd.DataFrame({"oid": oids, "band": band, "name": name, "feature_value": np.asarray(values, dtype=float)})


def _colours(stats: pd.DataFrame) -> list[pd.DataFrame]:
    out = []
    for name in FEATURE_NAMES:
        if not (match := _COLOUR.match(name)):
            continue
        first, second, stat, corr = match.groups()
        wide = stats.pivot(index="oid", columns="band", values=("sci_" if corr else "psf_") + stat)
        if LSST_BANDS[first] in wide and LSST_BANDS[second] in wide:
            colour = _mag(wide[LSST_BANDS[first]].to_numpy()) - _mag(wide[LSST_BANDS[second]].to_numpy())
            out.append(_long(wide.index.to_numpy(), MULTIBAND_BAND, name, colour))
    return out


def _multiband(rng: np.random.Generator, spec: pd.DataFrame, objects: pd.DataFrame) -> list[pd.DataFrame]:
    n, oids = len(spec), spec["oid"].to_numpy()
    ra, dec = np.radians(spec["ra"].to_numpy()), np.radians(spec["dec"].to_numpy())
    periodic, sn = spec["kind"].to_numpy() == "VS", spec["kind"].to_numpy() == "SN"
    period = np.where(periodic, spec["period"].to_numpy(), np.exp(rng.uniform(np.log(0.05), np.log(500.0), n)))
    alias = periodic & (rng.random(n) < 0.1)
    values = {
        "Timespan": objects["deltamjd"].to_numpy(),
        "Coordinate_x": np.cos(dec) * np.cos(ra),
        "Coordinate_y": np.cos(dec) * np.sin(ra),
        "Coordinate_z": np.sin(dec),
        "Multiband_period": np.where(alias, period * 2.0, period) * rng.normal(1.0, 0.001, n),
        "PPE": np.where(periodic, rng.uniform(0.0, 0.1, n), rng.uniform(0.1, 0.9, n)),
        "color_variation": rng.uniform(0.0, 0.6, n),
        "TDE_decay": np.where(sn, rng.normal(-1.67, 0.5, n), np.nan),
        "TDE_decay_chi": np.where(sn, rng.lognormal(0.5, 0.7, n), np.nan),
        "TDE_mag0": np.where(sn, rng.uniform(18.0, 24.0, n), np.nan),
    }
    values |= {name: rng.uniform(0.0, 1.0, n) for name in sorted(_MULTIBAND) if name.startswith("Power_")}
    return [_long(oids, MULTIBAND_BAND, name, v) for name, v in values.items()]


def _wise_colours(spec, wise: pd.DataFrame, stats: pd.DataFrame) -> list[pd.DataFrame]:
    matched = spec[["oid", "wise_name"]].merge(wise, left_on="wise_name", right_on="oid_catalog")
    oids = matched["oid"].to_numpy()
    mags = {f"W{k}": matched[f"w{k}mpro"].to_numpy() for k in (1, 2, 3, 4)}
    science = stats.pivot(index="oid", columns="band", values="sci_mean").reindex(oids)
    mags |= {b: _mag(science[code].to_numpy()) for b, code in LSST_BANDS.items() if code in science}
    pairs = [(name, _WISE_COLOUR.match(name)) for name in FEATURE_NAMES]
    return [_long(oids, MULTIBAND_BAND, name, mags[m[1]] - mags[m[2]]) for name, m in pairs if m and m[1] in mags]


def _per_band(rng: np.random.Generator, stats: pd.DataFrame) -> list[pd.DataFrame]:
    stats = stats[stats["n"] >= _MIN_BAND_POINTS]
    n, oids, band = len(stats), stats["oid"].to_numpy(), stats["band"].to_numpy()
    derived = {
        "Mean": stats["mean"],
        "Std": stats["std"],
        "Amplitude": (stats["faintest"] - stats["brightest"]) / 2,
        "positive_fraction": stats["positive_fraction"],
        "PercentAmplitude": stats["faintest"] - stats["mean"],
    }
    out = [_long(oids, band, name, v) for name, v in derived.items()]
    for name in FEATURE_NAMES:
        if is_multiband(name) or name in derived:
            continue
        need = next((k for prefix, k in _MIN_POINTS.items() if name.startswith(prefix)), 3)
        low, high = _RANGES.get(name, (0.0, 1.0))
        keep = (stats["n"].to_numpy() >= need) & (rng.random(n) < (0.1 if name.startswith("ulens") else 0.97))
        out.append(_long(oids[keep], band[keep], name, rng.uniform(low, high, keep.sum())))
    return out


def feature_rows(rng, spec, det, objects, wise) -> pd.DataFrame:
    """Return the feature rows of the diaObjects with two detections or more.

    `spec` (oid, kind, period, ra, dec, wise_name) is in the order of `objects`, the object rows (a feature row is
    dated like its object's last update); `wise` holds the AllWISE rows of their counterparts.
    """
    enough = objects["n_det"].to_numpy() >= 2
    spec, objects = spec[enough].reset_index(drop=True), objects[enough].reset_index(drop=True)
    stats = _band_stats(det[det["oid"].isin(objects["oid"])])
    parts = _colours(stats) + _multiband(rng, spec, objects) + _per_band(rng, stats) + _wise_colours(spec, wise, stats)
    rows = pd.concat(parts, ignore_index=True)
    rows = rows[np.isfinite(rows["feature_value"].to_numpy())]  # drops the NaN (not computable) values too
    ids = {name: k for k, name in enumerate(FEATURE_NAMES)}
    return rows.assign(
        sid=1,
        feature_id=rows["name"].map(ids).to_numpy(),
        version=FEATURE_VERSION,
        updated_date=rows["oid"].map(objects.set_index("oid")["updated_date"]).to_numpy(),
    ).drop(columns="name")
