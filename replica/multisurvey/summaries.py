"""object and lsst_dia_object rows, computed from the detections and forced photometry so that they agree exactly."""

import numpy as np
import pandas as pd

from replica.multisurvey.lookups import LSST_BANDS, TID_OF_SID
from replica.multisurvey.lsst_tables import INGEST_START_MJD
from replica.multisurvey.sky import date_text

__all__ = ["dia_object_rows", "object_rows"]


def object_rows(detections: pd.DataFrame, n_forced: pd.Series, n_non_det: pd.Series | None = None) -> pd.DataFrame:
    """Return one object row per (oid, sid) of `detections` (columns oid, sid, mjd, ra, dec), of the survey's tid.

    `n_forced` and `n_non_det` count rows per oid (a missing oid has none; no `n_non_det`: 0, as for LSST).
    """
    key = detections["oid"]
    grouped = detections.groupby(key, sort=True)
    cos_dec = np.cos(np.radians(grouped["dec"].mean()))
    # RA from each object's first RA, wrapped to +-180 deg: means and spreads safe across RA = 0
    ra_offset = (detections["ra"] - grouped["ra"].transform("first") + 180.0) % 360.0 - 180.0
    obj = pd.DataFrame(
        {
            "sid": grouped["sid"].first(),
            "meanra": (grouped["ra"].first() + ra_offset.groupby(key).mean()) % 360.0,
            "meandec": grouped["dec"].mean(),
            "sigmara": ra_offset.groupby(key).std(ddof=0) * cos_dec,
            "sigmadec": grouped["dec"].std(ddof=0),
            "firstmjd": grouped["mjd"].min(),
            "lastmjd": grouped["mjd"].max(),
            "n_det": grouped.size(),
        }
    )
    obj["deltamjd"] = obj["lastmjd"] - obj["firstmjd"]
    obj["n_forced"] = n_forced.reindex(obj.index).fillna(0).astype(np.int64)
    obj["n_non_det"] = 0 if n_non_det is None else n_non_det.reindex(obj.index).fillna(0).astype(np.int64)
    obj["tid"] = obj["sid"].map(TID_OF_SID)
    obj["created_date"] = date_text(np.maximum(obj["firstmjd"].to_numpy(), INGEST_START_MJD) + 0.1)
    obj["updated_date"] = date_text(np.maximum(obj["lastmjd"].to_numpy(), INGEST_START_MJD) + 0.1)
    return obj.rename_axis("oid").reset_index()


def _weighted(frame: pd.DataFrame, value: str, error: str) -> pd.DataFrame:
    weight = 1.0 / frame[error] ** 2
    sums = pd.DataFrame({"wf": weight * frame[value], "w": weight}).groupby([frame["oid"], frame["band_name"]]).sum()
    return pd.DataFrame({"mean": sums["wf"] / sums["w"], "meanerr": 1.0 / np.sqrt(sums["w"])})


def _max_slope(det: pd.DataFrame) -> pd.Series:
    ordered = det.sort_values(["oid", "band_name", "mjd"])
    grouped = ordered.groupby(["oid", "band_name"])
    dt = grouped["mjd"].diff()
    return (grouped["psfflux"].diff() / dt).where(dt > 0).groupby([ordered["oid"], ordered["band_name"]]).max()


def _band_statistics(det: pd.DataFrame, forced: pd.DataFrame) -> pd.DataFrame:
    psf = _weighted(det, "psfflux", "psffluxerr").add_prefix("psfflux")
    science = _weighted(det, "scienceflux", "sciencefluxerr").add_prefix("scienceflux")
    fp = _weighted(forced, "psfflux", "psffluxerr").add_prefix("fpflux")
    grouped = det.groupby(["oid", "band_name"])
    plain = pd.DataFrame(
        {
            "psffluxsigma": grouped["psfflux"].std(),
            "psffluxndata": grouped.size(),
            "psffluxmin": grouped["psfflux"].min(),
            "psffluxmax": grouped["psfflux"].max(),
            "psffluxerrmean": grouped["psffluxerr"].mean(),
            "psffluxmaxslope": _max_slope(det),
        }
    )
    wide = pd.concat([psf, science, plain, fp], axis=1).unstack("band_name")
    wide.columns = [f"{band}_{stat}" for stat, band in wide.columns]
    for band in LSST_BANDS:
        column = f"{band}_psffluxndata"
        wide[column] = wide[column].fillna(0).astype(np.int64) if column in wide else 0
    return wide


def dia_object_rows(det: pd.DataFrame, forced: pd.DataFrame, objects: pd.DataFrame) -> pd.DataFrame:
    """Return the latest lsst_dia_object row of each diaObject, from all its detections and forced epochs.

    Detections need oid, mjd, band_name, psfflux, psffluxerr, scienceflux, sciencefluxerr and raerr; forced epochs
    oid, band_name, psfflux and psffluxerr.
    """
    wide = _band_statistics(det, forced).reindex(objects["oid"].to_numpy())
    error = (1.0 / np.sqrt((1.0 / det["raerr"] ** 2).groupby(det["oid"]).sum())).reindex(wide.index)
    base = objects.set_index("oid")
    wide = wide.assign(
        ra=base["meanra"],
        dec=base["meandec"],
        raerr=error,
        decerr=error,
        ra_dec_cov=0.0,
        firstdiasourcemjdtai=base["firstmjd"],
        lastdiasourcemjdtai=base["lastmjd"],
        validitystartmjdtai=base["lastmjd"] + 0.01,
        ndiasources=base["n_det"],
        created_date=base["updated_date"],
    )
    return wide.rename_axis("oid").reset_index()
