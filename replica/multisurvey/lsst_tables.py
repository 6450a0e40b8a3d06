"""Rows of detection + lsst_detection and forced_photometry + lsst_forced_photometry from measured visits.

The caller gives one row per measurement with oid, sid, measurement_id, mjd, ra, dec, band and the fluxes; the
rest of lsst_detection's 98 columns (centroids, apertures, trail and dipole fits, moments, pixel flags) are drawn
by PostgreSQL while copying (`DETECTION_SQL`), which is much faster than writing them from Python.
"""

import numpy as np
import pandas as pd

from catalog import load_catalog
from replica.multisurvey import CATALOG
from replica.multisurvey.ids import visit_ids
from replica.multisurvey.sky import date_text

__all__ = ["DETECTION_SQL", "INGEST_START_MJD", "created_dates", "detection_frames", "forced_frames", "table_columns"]

INGEST_START_MJD = 61084.0  # 2026-02-13: rows are dated from ALeRCE's first ingestion, even for 2025 epochs
_DETECTORS = 189
_CATALOG = load_catalog(CATALOG)


def created_dates(mjd: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return the date each measurement was written: a little after it was taken, never before ingestion began."""
    return date_text(np.maximum(mjd, INGEST_START_MJD) + rng.uniform(0.01, 0.2, len(mjd)))


def table_columns(table: str, rows: pd.DataFrame) -> pd.DataFrame:
    """Return the columns of ``rows`` that ``table`` has in the catalog."""
    return rows[[column for column in _CATALOG.table(table).column_names if column in rows.columns]]


def _flag(p: str) -> str:
    return f"(random() < {p})"


DETECTION_SQL = {
    "x": "(random() * 4072)::real",
    "y": "(random() * 4000)::real",
    "xerr": "(0.3 / greatest(snr, 1) + 0.01)::real",
    "yerr": "(0.3 / greatest(snr, 1) + 0.01)::real",
    "centroid_flag": _flag("0.002"),
    "apflux": "(psfflux * (0.97 + 0.06 * random()))::real",
    "apfluxerr": "(psffluxerr * 1.15)::real",
    "apflux_flag": _flag("0.003"),
    "apflux_flag_aperturetruncated": _flag("0.001"),
    "psflnl": "(-200 - 400 * random())::real",
    "psfchi2": "(250 + 250 * random())::real",
    "psfndata": "(300 + floor(random() * 200))::int",
    "psfflux_flag": _flag("0.001"),
    "psfflux_flag_edge": _flag("0.004"),
    "psfflux_flag_nogoodpixels": _flag("0.001"),
    "trailflux": "(psfflux * (1 + 0.05 * random()))::real",
    "trailfluxerr": "(psffluxerr * 1.1)::real",
    "trailraerr": "(raerr * 1.5)::real",
    "traildecerr": "(decerr * 1.5)::real",
    "traillengtherr": "(0.05 + 0.1 * random())::real",
    "trailangleerr": "(10 * random())::real",
    "trailchi2": "(250 + 300 * random())::real",
    "trailndata": "(300 + floor(random() * 250))::int",
    "trail_flag_edge": _flag("0.003"),
    "dipolemeanflux": "(abs(psfflux) * (0.5 + random()))::real",
    "dipolemeanfluxerr": "(psffluxerr * 1.3)::real",
    "dipolefluxdiff": "(psfflux * (random() - 0.5))::real",
    "dipolefluxdifferr": "(psffluxerr * 1.5)::real",
    "dipolelength": "(CASE WHEN isdipole THEN 1 + 2 * random() ELSE 0.3 * random() END)::real",
    "dipoleangle": "(360 * random() - 180)::real",
    "dipolechi2": "(250 + 300 * random())::real",
    "dipolendata": "(300 + floor(random() * 250))::int",
    "forced_psfflux_flag": _flag("0.002"),
    "forced_psfflux_flag_edge": _flag("0.003"),
    "forced_psfflux_flag_nogoodpixels": _flag("0.001"),
    "ixx": "(abs(scienceflux) * (0.20 + 0.15 * random()))::real",
    "iyy": "(abs(scienceflux) * (0.20 + 0.15 * random()))::real",
    "ixy": "(abs(scienceflux) * 0.04 * (random() - 0.5))::real",
    "ixxpsf": "(abs(scienceflux) * (0.18 + 0.04 * random()))::real",
    "iyypsf": "(abs(scienceflux) * (0.18 + 0.04 * random()))::real",
    "ixypsf": "(abs(scienceflux) * 0.01 * (random() - 0.5))::real",
    "shape_flag": _flag("0.01"),
    "shape_flag_no_pixels": _flag("0.001"),
    "shape_flag_not_contained": _flag("0.002"),
    "shape_flag_parent_source": "false",
    "bboxsize": "(15 + floor(random() * 30))::int",
    "pixelflags": _flag("0.001"),
    "pixelflags_bad": _flag("0.01 + 0.1 * (1 - reliability)"),
    "pixelflags_cr": _flag("0.005 + 0.2 * (1 - reliability)"),
    "pixelflags_crcenter": _flag("0.002 + 0.1 * (1 - reliability)"),
    "pixelflags_edge": _flag("0.004"),
    "pixelflags_nodata": _flag("0.001"),
    "pixelflags_nodatacenter": _flag("0.0005"),
    "pixelflags_interpolated": _flag("0.02 + 0.2 * (1 - reliability)"),
    "pixelflags_interpolatedcenter": _flag("0.01 + 0.1 * (1 - reliability)"),
    "pixelflags_offimage": "false",
    "pixelflags_saturated": _flag("0.002 + 0.05 * (1 - reliability)"),
    "pixelflags_saturatedcenter": _flag("0.001 + 0.03 * (1 - reliability)"),
    "pixelflags_suspect": _flag("0.01"),
    "pixelflags_suspectcenter": _flag("0.003"),
    "pixelflags_streak": _flag("0.003"),
    "pixelflags_streakcenter": _flag("0.001"),
    "pixelflags_injected": "false",
    "pixelflags_injectedcenter": "false",
    "pixelflags_injected_template": "false",
    "pixelflags_injected_templatecenter": "false",
    "glint_trail": _flag("0.001"),
}


def detection_frames(rng: np.random.Generator, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (detection, lsst_detection) frames of measured detections.

    `rows` has one row per detection with the generic columns (but created_date), the fluxes, snr, reliability,
    extendedness, isdipole, diaobjectid, ssobjectid, traillength and trailangle: each table takes those it has.
    """
    n = len(rows)
    rows = rows.assign(created_date=created_dates(rows["mjd"].to_numpy(), rng))
    error_deg = (0.3 / np.maximum(rows["snr"].to_numpy(), 1.0) + 0.01) / 3600.0
    lsst = table_columns("lsst_detection", rows).assign(
        parentdiasourceid=0,
        visit=visit_ids(rows["mjd"].to_numpy()),
        detector=rng.integers(0, _DETECTORS, n),
        raerr=error_deg,
        decerr=error_deg * rng.uniform(0.9, 1.1, n),
        ra_dec_cov=error_deg**2 * rng.uniform(-0.2, 0.2, n),
        isnegative=rows["psfflux"].to_numpy() < 0,
        extendedness=np.clip(rows["extendedness"].to_numpy() + rng.normal(0.0, 0.05, n), 0.0, 1.0),
        dipolefitattempted=True,
        has_stamp=rows["mjd"].to_numpy() >= INGEST_START_MJD,
        timeprocessedmjdtai=rows["mjd"].to_numpy() + rng.uniform(0.001, 0.02, n),
        trailra=rows["ra"].to_numpy(),
        traildec=rows["dec"].to_numpy(),
    )
    return table_columns("detection", rows), lsst


def forced_frames(rng: np.random.Generator, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (forced_photometry, lsst_forced_photometry) frames of measured forced epochs (same input columns)."""
    rows = rows.assign(created_date=created_dates(rows["mjd"].to_numpy(), rng))
    lsst = table_columns("lsst_forced_photometry", rows).assign(
        visit=visit_ids(rows["mjd"].to_numpy()),
        detector=rng.integers(0, _DETECTORS, len(rows)),
        timeprocessedmjdtai=rows["mjd"].to_numpy() + rng.uniform(0.5, 3.0, len(rows)),
    )
    return table_columns("forced_photometry", rows), lsst
