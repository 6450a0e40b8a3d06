"""feature rows (long format, 174 per object and version) for the lc-classified objects."""

import numpy as np
import pandas as pd

from replica.engine.draws import galactic
from replica.ztf import vocab

__all__ = ["feature_rows"]

_KEYS = vocab.FEATURE_KEYS
_COL = {key: i for i, key in enumerate(_KEYS)}
# objects first seen in the month after feature version 1.2.1-P replaced 1.1.13 also carry its transitional copy
_TRANSITION_MJD = (60218.0, 60249.0)
_PERIOD_RANGE = {"RRL": (0.3, 0.9), "DSCT": (0.03, 0.3), "CEP": (1.0, 50.0), "E": (0.3, 10.0), "LPV": (100.0, 1000.0)}


def _periods(rng: np.random.Generator, lc_class: np.ndarray) -> np.ndarray:
    period = np.exp(rng.uniform(np.log(0.1), np.log(1000.0), len(lc_class)))
    for cls, (a, b) in _PERIOD_RANGE.items():
        m = lc_class == cls
        period[m] = np.exp(rng.uniform(np.log(a), np.log(b), m.sum()))
    return period


def _band_values(v: np.ndarray, ms: pd.DataFrame, lc: np.ndarray, rng: np.random.Generator) -> None:
    """Fill the per-band columns of ``v``: its row k is the spec's object ``lc[k]``, whose magstat rows (one per band)
    have it in ``_obj``."""
    m = len(lc)
    for fid in (1, 2):
        b = ms[ms["fid"] == fid].set_index("_obj").reindex(lc)
        has = b["ndet"].notna().to_numpy()
        derived = {
            "Amplitude": (b["magmax"] - b["magmin"]) / 2,
            "Mean": b["magmean"],
            "min_mag": b["magmin"],
            "first_mag": b["magfirst"],
            "n_det": b["ndet"],
            "delta_mag_fid": b["magmax"] - b["magmin"],
            "delta_mjd_fid": b["lastmjd"] - b["firstmjd"],
            "Std": b["magsigma"],
            "LinearTrend": pd.Series(np.clip(rng.normal(0, 0.01, m), -0.5, 0.5)),
            "positive_fraction": pd.Series(rng.uniform(0.5, 1.0, m)),
        }
        for name, values in derived.items():
            v[:, _COL[(name, fid)]] = np.asarray(values, dtype=float)
        cols = [i for (_, f), i in _COL.items() if f == fid]
        v[np.ix_(~has, cols)] = np.nan


def _object_values(v, spec, obj, wise, rng) -> None:
    v[:, _COL[("gal_l", 0)]], v[:, _COL[("gal_b", 0)]] = galactic(obj["meanra"].to_numpy(), obj["meandec"].to_numpy())
    v[:, _COL[("sgscore1", 0)]] = spec["sgscore1"].to_numpy()
    v[:, _COL[("rb", 0)]] = rng.uniform(0.5, 1.0, len(spec))
    mag = {f"W{k}": wise[f"w{k}mpro"].to_numpy(dtype=float) for k in (1, 2, 3)}
    mag.update(g=v[:, _COL[("Mean", 1)]], r=v[:, _COL[("Mean", 2)]])
    for colour in ("W1-W2", "W2-W3", "g-W2", "g-W3", "r-W2", "r-W3"):
        blue, red = colour.split("-")
        v[:, _COL[(colour, 0)]] = mag[blue] - mag[red]
    v[:, _COL[("Multiband_period", 12)]] = _periods(rng, spec["lc_class"].to_numpy())
    for name in ("g-r_max", "g-r_max_corr", "g-r_mean", "g-r_mean_corr"):
        v[:, _COL[(name, 12)]] = obj[name.replace("-", "_")].to_numpy(dtype=float)


def _long(oids: np.ndarray, v: np.ndarray, version: str) -> pd.DataFrame:
    names = np.array([k[0] for k in _KEYS], dtype=object)
    fids = np.array([k[1] for k in _KEYS])
    return pd.DataFrame(
        {
            "oid": np.repeat(oids, len(_KEYS)),
            "name": np.tile(names, len(oids)),
            "value": v.ravel(),
            "fid": np.tile(fids, len(oids)),
            "version": version,
        }
    )


def feature_rows(rng: np.random.Generator, spec, obj, ms, wise) -> pd.DataFrame:
    """Feature rows of the chunk's lc-classified objects, from its spec, object rows (in spec order), magstat rows
    (with the internal `_obj` column) and AllWISE magnitudes aligned with the spec (NaN without a match)."""
    lc = np.flatnonzero(spec["lc_class"].to_numpy() != "")
    v = rng.normal(0.0, 1.0, (len(lc), len(_KEYS)))
    _band_values(v, ms, lc, rng)
    _object_values(v, spec.iloc[lc], obj.iloc[lc], wise.iloc[lc], rng)
    oids = spec["oid"].to_numpy()[lc]
    old = spec["feat_old"].to_numpy()[lc]
    v_old = v[old] * (1.0 + rng.normal(0.0, 0.05, (old.sum(), len(_KEYS))))
    first = spec["firstmjd"].to_numpy()[lc]
    moved = (first >= _TRANSITION_MJD[0]) & (first < _TRANSITION_MJD[1])
    return pd.concat(
        [
            _long(oids, v, vocab.FEATURE_VERSIONS[0]),
            _long(oids[old], v_old, vocab.FEATURE_VERSIONS[1]),
            _long(oids[moved], v[moved], vocab.FEATURE_VERSION_TRANSITIONAL),
        ],
        ignore_index=True,
    )
