"""magstat and object rows, computed from the detections so that both agree with them exactly."""

import numpy as np
import pandas as pd

from replica.ztf import vocab

__all__ = ["magstat_rows", "object_rows"]


def _band_stats(det: pd.DataFrame) -> pd.DataFrame:
    d = det[["_obj", "fid", "mjd", "magpsf", "magpsf_corr", "dubious", "corrected"]].copy()
    d["corr"] = d["magpsf_corr"].where(d["corrected"] & (d["magpsf_corr"] < 100))
    d["sat"] = (d["corr"] < 13.2).astype(float).where(d["corrected"])
    how = {f"mag{stat}": stat for stat in ("mean", "median", "max", "min", "first", "last")} | {"magsigma": "std"}
    stats = d.groupby(["_obj", "fid"], sort=True).agg(
        ndet=("magpsf", "size"),
        ndubious=("dubious", "sum"),
        **{name: ("magpsf", stat) for name, stat in how.items()},
        **{f"{name}_corr": ("corr", stat) for name, stat in how.items()},
        firstmjd=("mjd", "min"),
        lastmjd=("mjd", "max"),
        saturation_rate=("sat", "mean"),
    )
    return stats.reset_index()


def magstat_rows(rng: np.random.Generator, spec: pd.DataFrame, det: pd.DataFrame, first_det: pd.DataFrame):
    """One magstat row per (object, band with detections)."""
    ms = _band_stats(det)
    obj = ms["_obj"].to_numpy()
    fid = ms["fid"].to_numpy()
    dmdt = np.where(fid == 1, spec["dmdt1"].to_numpy()[obj], spec["dmdt2"].to_numpy()[obj])
    dt = rng.uniform(1.0, 10.0, len(ms))
    ms["oid"] = spec["oid"].to_numpy()[obj]
    ms["stellar"] = first_det["stellar"].to_numpy()[obj]
    ms["corrected"] = first_det["corrected"].to_numpy()[obj]
    ms["dmdt_first"] = dmdt
    ms["dm_first"] = dmdt * dt
    ms["sigmadm_first"] = np.where(np.isnan(dmdt), np.nan, rng.uniform(0.05, 0.3, len(ms)))
    ms["dt_first"] = np.where(np.isnan(dmdt), np.nan, dt)
    ms["magsigma"] = ms["magsigma"].fillna(0.0)
    ms["step_id_corr"] = vocab.STEP_ID_CORR
    return ms


def first_detections(det: pd.DataFrame, spec: pd.DataFrame) -> pd.DataFrame:
    """First detection of each object (rows follow spec order) with the object-level stellar flag."""
    first = det.groupby("_obj", sort=True).head(1).set_index("_obj").reindex(np.arange(len(spec)))
    ps1_ok = spec["distpsnr1"].to_numpy() < 1.4
    first["stellar"] = first["corrected"].to_numpy() & ps1_ok & (spec["sgscore1"].to_numpy() > 0.4)
    return first


def _colours(ms: pd.DataFrame, n: int) -> dict[str, np.ndarray]:
    out = {}
    for col, stat in (("g_r_max", "magmin"), ("g_r_mean", "magmean")):
        for suffix in ("", "_corr"):
            wide = ms.pivot(index="_obj", columns="fid", values=stat + suffix).reindex(np.arange(n), columns=[1, 2])
            out[col + suffix] = (wide[1] - wide[2]).to_numpy(dtype=float)
    return out


def object_rows(rng: np.random.Generator, spec: pd.DataFrame, det: pd.DataFrame, first_det, ms) -> pd.DataFrame:
    """object rows: counts, epochs, mean position and colours from the detections."""
    agg = det.groupby("_obj", sort=True).agg(
        ndet=("mjd", "size"),
        firstmjd=("mjd", "min"),
        lastmjd=("mjd", "max"),
        meanra=("ra", "mean"),
        meandec=("dec", "mean"),
        sigmara=("ra", "std"),
        sigmadec=("dec", "std"),
    )
    n = len(spec)
    ndet, first, last = (agg[column].to_numpy() for column in ("ndet", "firstmjd", "lastmjd"))
    ndethist = ndet + rng.poisson(0.2 * ndet + 0.5)
    return pd.DataFrame(
        {
            "oid": spec["oid"].to_numpy(),
            "ndethist": ndethist,
            "ncovhist": ndethist + rng.poisson(20, n) + 1,
            "mjdstarthist": np.minimum(np.maximum(first - rng.uniform(0, 30, n), vocab.MJD_SURVEY_START), first),
            "mjdendhist": np.minimum(last + rng.uniform(0, 10, n), vocab.MJD_END),
            "corrected": first_det["corrected"].to_numpy(),
            "stellar": first_det["stellar"].to_numpy(),
            "ndet": ndet,
            **_colours(ms, n),
            "meanra": agg["meanra"].to_numpy(),
            "meandec": agg["meandec"].to_numpy(),
            "sigmara": agg["sigmara"].fillna(0.0).to_numpy(),
            "sigmadec": agg["sigmadec"].fillna(0.0).to_numpy(),
            "deltajd": last - first,
            "firstmjd": first,
            "lastmjd": last,
            "step_id_corr": vocab.STEP_ID_CORR,
            "diffpos": first_det["isdiffpos"].to_numpy() > 0,
            "reference_change": spec["ref_change"].to_numpy(),
        }
    )
