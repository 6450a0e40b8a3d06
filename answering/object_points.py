"""An object's light curve as points of one shape (``POINT_COLUMNS``), from ZTF magnitudes or LSST fluxes: every
point has its flux (nJy, signed), and its magnitude where the flux is positive, else a limit."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from answering.lightcurve import BAND_NAMES
from answering.lsst_curves import AB_ZERO_POINT

__all__ = ["POINT_COLUMNS", "epochs_only", "lsst_points", "ztf_band", "ztf_points"]

POINT_COLUMNS = ("mjd", "band", "kind", "mag", "mag_err", "limit_mag", "flux", "flux_err")
_LN10_OVER_2_5 = math.log(10) / 2.5


def ztf_points(detections: pd.DataFrame, non_detections: pd.DataFrame, forced: pd.DataFrame) -> pd.DataFrame:
    """A ZTF light curve: detections, non-detection limits and forced photometry, by MJD."""
    seen = _from_magnitudes(detections, "magpsf", "sigmapsf", "detection")
    limits = pd.DataFrame(
        {
            "mjd": non_detections["mjd"].astype(float),
            "band": non_detections["fid"].map(ztf_band),
            "kind": "non-detection",
            "limit_mag": pd.to_numeric(non_detections["diffmaglim"], errors="coerce").astype(float),
        }
    )
    limits["flux"] = _flux_of(limits["limit_mag"])  # the brightest flux a non-detection allows
    return _points(seen, limits, _from_magnitudes(forced, "mag", "e_mag", "forced"))


def _from_magnitudes(frame: pd.DataFrame, mag: str, err: str, kind: str) -> pd.DataFrame:
    """ZTF difference magnitudes to points: the flux takes the sign of isdiffpos (ZTF magnitudes are AB)."""
    mags = pd.to_numeric(frame[mag], errors="coerce").astype(float)
    errors = pd.to_numeric(frame[err], errors="coerce").astype(float)
    sign = np.where(pd.to_numeric(frame["isdiffpos"], errors="coerce").fillna(1) < 0, -1.0, 1.0)
    flux = _flux_of(mags) * sign
    return pd.DataFrame(
        {
            "mjd": frame["mjd"].astype(float),
            "band": frame["fid"].map(ztf_band),
            "kind": kind,
            "mag": mags,
            "mag_err": errors,
            "flux": flux,
            "flux_err": _LN10_OVER_2_5 * flux.abs() * errors,
        }
    )


def lsst_points(detections: pd.DataFrame, forced: pd.DataFrame) -> pd.DataFrame:
    """An LSST light curve: detections and forced photometry, by MJD."""
    return _points(*(_from_fluxes(frame, kind) for frame, kind in ((detections, "detection"), (forced, "forced"))))


def _from_fluxes(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """LSST fluxes (nJy) to points: a non-positive flux has no magnitude but a 3-sigma limit."""
    flux = pd.to_numeric(frame["psfflux"], errors="coerce").astype(float)
    errors = pd.to_numeric(frame["psffluxerr"], errors="coerce").astype(float)
    positive = flux.where(flux > 0)
    limit = AB_ZERO_POINT - 2.5 * np.log10((3 * errors).where(errors > 0))
    return pd.DataFrame(
        {
            "mjd": frame["mjd"].astype(float),
            "band": frame["band_name"].fillna("?").astype(str),
            "kind": kind,
            "mag": AB_ZERO_POINT - 2.5 * np.log10(positive),
            "mag_err": errors / (_LN10_OVER_2_5 * positive),
            "limit_mag": limit.where(positive.isna()),
            "flux": flux,
            "flux_err": errors,
        }
    )


def epochs_only(frame: pd.DataFrame) -> pd.DataFrame:
    """Detections known by their epochs and bands alone (a ZTF object on the multi-survey catalog)."""
    return _points(
        pd.DataFrame({"mjd": frame["mjd"].astype(float), "band": frame["band_name"].fillna("?"), "kind": "detection"})
    )


def _points(*frames: pd.DataFrame) -> pd.DataFrame:
    kept = [frame for frame in frames if len(frame)]
    if not kept:
        return pd.DataFrame({column: pd.Series(dtype=float) for column in POINT_COLUMNS})
    joined = pd.concat(kept, ignore_index=True).reindex(columns=list(POINT_COLUMNS))
    return joined.sort_values("mjd", kind="stable").reset_index(drop=True)


def _flux_of(mags: pd.Series) -> pd.Series:
    return 10.0 ** ((AB_ZERO_POINT - mags) / 2.5)


def ztf_band(fid: object) -> str:
    try:
        return BAND_NAMES.get(int(fid), f"fid {fid}")
    except (TypeError, ValueError):
        return str(fid)
