"""Turns planted.py data into a spec and applies its per-table values to generated rows."""

import numpy as np
import pandas as pd

from db.synthetic import planted, vocab
from db.synthetic.objects import spec_for_kinds

__all__ = ["patch_detections", "patch_tables", "planted_spec"]

_NOT_SPEC = {"feat", "classtar_first"}


def _year(oid: str) -> int:
    return max(2000 + int(oid[3:5]), 2018)


def planted_spec(rng: np.random.Generator, old_feature_fraction: float) -> pd.DataFrame:
    """Spec of the planted objects: random defaults for their kind, then the planted overrides."""
    kinds = np.array([kind for _, kind, _ in planted.PLANTED], dtype=object)
    spec = spec_for_kinds(rng, kinds, old_feature_fraction)
    for i, (oid, _, over) in enumerate(planted.PLANTED):
        spec.at[i, "oid"] = oid
        if "firstmjd" not in over:
            spec.at[i, "firstmjd"] = vocab.YEAR_START_MJD[_year(oid)] + 5.3 + (i % 97) * 3.0
        for key, value in over.items():
            if key not in _NOT_SPEC:
                spec.at[i, key] = value
    lc = spec["lc_class"].to_numpy() != ""
    short = lc & (np.maximum(spec["ndet_g"], spec["ndet_r"]).to_numpy() < 6)
    spec.loc[short, "ndet_r"] = 6
    ndet = (spec["ndet_g"] + spec["ndet_r"]).to_numpy()
    spec.loc[(ndet > 1) & (spec["span"].to_numpy() <= 0), "span"] = 0.05
    spec.loc[ndet == 1, "span"] = 0.0
    spec["span"] = np.minimum(spec["span"], vocab.MJD_END - 5.0 - spec["firstmjd"])
    spec["feat_old"] = spec["feat_old"].astype(bool) & lc
    for col in ("has_xmatch", "has_gaia", "forced", "ref_change", "gaia_unique1"):
        spec[col] = spec[col].astype(bool)
    return spec


def patch_detections(det: pd.DataFrame) -> None:
    """Planted dubious flags (before magstat is computed from the detections)."""
    for oid, n_dubious in planted.DUBIOUS_G.items():
        mine = det["oid"].to_numpy() == oid
        det.loc[mine, ["isdiffpos", "dubious"]] = [1, False]
        g_rows = np.flatnonzero(mine & (det["fid"].to_numpy() == 1))[:n_dubious]
        det.loc[det.index[g_rows], "dubious"] = True


def _cycle(table: pd.DataFrame, column: str, values_by_oid: dict) -> None:
    for oid, values in values_by_oid.items():
        rows = np.flatnonzero(table["oid"].to_numpy() == oid)
        table.loc[table.index[rows], column] = [values[k % len(values)] for k in range(len(rows))]


def _features(feat: pd.DataFrame) -> None:
    current = feat["version"].to_numpy() == vocab.FEATURE_VERSIONS[0]
    for (oid, name, fid), value in planted.FEATURE_VALUES.items():
        rows = current & (feat["oid"].to_numpy() == oid) & (feat["name"].to_numpy() == name)
        rows &= feat["fid"].to_numpy() == fid
        feat.loc[rows, "value"] = value


def patch_tables(tables: dict[str, pd.DataFrame]) -> None:
    """Apply planted per-table values in place."""
    _features(tables["feature"])
    _cycle(tables["dataquality"], "chipsf", planted.CHIPSF)
    _cycle(tables["forced_photometry"], "procstatus", planted.PROCSTATUS)
    dq = tables["dataquality"]
    first = tables["ps1_ztf"].drop_duplicates("oid")
    for oid, value in planted.CLASSTAR_FIRST.items():
        candid = first.loc[first["oid"] == oid, "candid"].to_numpy()
        dq.loc[dq["candid"].isin(candid), "classtar"] = value
    xm, wise = tables["xmatch"], tables["allwise"]
    for oid, name in planted.CATALOG_NAMES.items():
        old = xm.loc[xm["oid"] == oid, "oid_catalog"].to_numpy()
        xm.loc[xm["oid"] == oid, "oid_catalog"] = name
        wise.loc[wise["oid_catalog"].isin(old), "oid_catalog"] = name
