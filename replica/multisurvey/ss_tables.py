"""Solar-system objects: their detections and MPC orbits, from which ``tables.TABLES`` makes their rows."""

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from replica.multisurvey.ids import lsst_ids, pack_designation, ss_object_id
from replica.multisurvey.lsst_tables import created_dates, detection_frames, table_columns
from replica.multisurvey.orbits import ELEMENT_EPOCH_MJD, GAUSS_K
from replica.multisurvey.sky import date_text, offset_positions
from replica.multisurvey.ss_objects import SS_SID, random_designations
from replica.multisurvey.summaries import object_rows
from replica.multisurvey.tables import rows_of

__all__ = ["ss_tables"]

_EXPOSURE_H = 30.0 / 3600.0
_PLACEHOLDER_DATE = "1970-01-01 00:00:00"
_UNFILLED_SHARE = 0.12  # orbits whose a, period, mean anomaly and mean motion read 0 while q and e are set


@dataclass(frozen=True, kw_only=True)
class SsDrawn:
    """What solar-system objects drew, from which ``tables.TABLES`` makes their tables."""

    objects: pd.DataFrame
    detection: pd.DataFrame
    lsst_detection: pd.DataFrame
    lsst_ss_detection: pd.DataFrame
    lsst_mpc_orbits: pd.DataFrame


def _observed(rng: np.random.Generator, det: pd.DataFrame) -> pd.DataFrame:
    """Observed positions: the ephemeris plus an O-C offset, split along and across the direction of motion."""
    n = len(det)
    offset_arcsec = np.abs(rng.normal(0.0, 0.12, n)) + 0.01
    angle = rng.uniform(0.0, 2 * np.pi, n)
    ra, dec = offset_positions(det["ra"].to_numpy(), det["dec"].to_numpy(), offset_arcsec / 3600.0, angle)
    motion = np.arctan2(det["ephratera"].to_numpy(), det["ephratedec"].to_numpy())
    return det.assign(
        ephra=det["ra"],
        ephdec=det["dec"],
        ra=ra,
        dec=dec,
        ephoffset=offset_arcsec,
        ephoffsetra=((ra - det["ra"].to_numpy() + 180.0) % 360.0 - 180.0),
        ephoffsetdec=dec - det["dec"].to_numpy(),
        ephoffsetalongtrack=offset_arcsec * np.cos(angle - motion),
        ephoffsetcrosstrack=offset_arcsec * np.sin(angle - motion),
        trailangle=np.degrees(motion),
        traillength=det["ephrate"].to_numpy() * _EXPOSURE_H,
    )


def _detection_tables(rng: np.random.Generator, orbits: pd.DataFrame, det: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """Return detection, lsst_detection and lsst_ss_detection rows of the solar-system detections."""
    det = _observed(rng, det)
    obj = det["_obj"].to_numpy()
    ssobjectid = orbits["ssobjectid"].to_numpy()[obj]
    n = len(det)
    det = det.assign(
        oid=ssobjectid,
        sid=SS_SID,
        diaobjectid=0,
        ssobjectid=ssobjectid,
        isdipole=False,
        reliability=0.7 + 0.3 * rng.beta(5.0, 1.2, n),
        extendedness=np.clip(det["traillength"] / 3.0, 0.0, 1.0),
        helio_vtot=np.hypot(np.hypot(det["helio_vx"], det["helio_vy"]), det["helio_vz"]),
        topo_vtot=np.hypot(np.hypot(det["topo_vx"], det["topo_vy"]), det["topo_vz"]),
    )
    detection, lsst_detection = detection_frames(rng, det)
    ss = table_columns("lsst_ss_detection", det).assign(
        designation=orbits["packed"].to_numpy()[obj],
        diadistancerank=np.where(rng.random(n) < 0.03, 2, 1),
        created_date=created_dates(det["mjd"].to_numpy(), rng),
    )
    return detection, lsst_detection, ss


def _json(row: pd.Series) -> str:
    elements = {key: round(float(row[key]), 8) for key in ("a", "q", "e", "i", "node", "argperi", "mean_anomaly")}
    return json.dumps({"designation": row["designation"], "epoch_mjd": ELEMENT_EPOCH_MJD, "elements": elements})


def _add_uncertainties(rows: pd.DataFrame, looseness: np.ndarray) -> None:
    """Element uncertainties that grow with the orbit's uncertainty parameter (0 = best)."""
    for name, scale in (("a", 1e-7), ("q", 1e-7), ("e", 1e-7), ("i", 1e-5), ("node", 1e-5), ("argperi", 1e-4)):
        rows[f"{name}_unc"] = np.abs(rows[name].to_numpy()) * scale * looseness + 1e-9
    rows["mean_anomaly_unc"] = rows["argperi_unc"]
    for name in ("period", "mean_motion"):
        rows[f"{name}_unc"] = rows[name] * 1.5e-7 * looseness
    rows["peri_time_unc"] = rows["period_unc"]


def _mpc_orbit_rows(rng: np.random.Generator, orbits: pd.DataFrame, first_mjd: np.ndarray, unfilled) -> pd.DataFrame:
    """Return the latest MPC orbit of each object, with the service's placeholder columns (zeros where unfilled)."""
    n = len(orbits)
    a, e = orbits["a"].to_numpy(), orbits["e"].to_numpy()
    motion = np.degrees(GAUSS_K / a**1.5)
    nopp = rng.integers(1, 25, n)
    arc = (nopp - 1) * 365.25 + rng.uniform(3.0, 200.0, n)
    u_param = np.clip(9 - nopp // 2 + rng.integers(-1, 2, n), 0, 9)
    rows = table_columns("lsst_mpc_orbits", orbits).assign(
        packed_primary_provisional_designation=orbits["packed"],
        unpacked_primary_provisional_designation=orbits["designation"],
        q=a * (1.0 - e),
        period=360.0 / motion,
        mean_motion=motion,
        peri_time=orbits["mean_anomaly"].to_numpy() / motion,
        epoch_mjd=ELEMENT_EPOCH_MJD,
        orbit_type_int=-1,
        created_at=_PLACEHOLDER_DATE,
        updated_at=_PLACEHOLDER_DATE,
        fitting_datetime=_PLACEHOLDER_DATE,
        earth_moid=0.0,
        u_param=u_param,
        nopp=nopp,
        arc_length_total=arc,
        arc_length_sel=arc * rng.uniform(0.9, 1, n),
        nobs_total=rng.integers(10, 3000, n),
        not_normalized_rms=rng.uniform(0.2, 0.6, n),
        normalized_rms=rng.uniform(0.5, 1.2, n),
        created_date=date_text(first_mjd + 0.2),
        updated_date=date_text(first_mjd + 0.2),
    )
    rows["nobs_total_sel"] = np.floor(rows["nobs_total"] * rng.uniform(0.9, 1.0, n)).astype(np.int64)
    _add_uncertainties(rows, 10 ** (u_param / 2))
    rows["mpc_orb_jsonb"] = rows.apply(_json, axis=1)
    drawn = rng.random(n) < _UNFILLED_SHARE  # drawn even when ``unfilled`` is given: later draws keep their place
    rows.loc[drawn if unfilled is None else np.array(unfilled), ["a", "period", "mean_anomaly", "mean_motion"]] = 0.0
    return rows


def ss_tables(
    rng: np.random.Generator,
    orbits: pd.DataFrame,
    det: pd.DataFrame,
    first_counter: int,
    taken: set[str],
    designations: list[str | None] | None = None,
    ids: list[int | None] | None = None,
    unfilled: list[bool] | None = None,
) -> dict[str, pd.DataFrame]:
    """Every table's rows of solar-system objects: their orbits (a row each) and detections (``_obj`` indexes them).

    Each orbit is named: the designation given (none: a new one, not in ``taken``, which is updated) and the
    ssObjectId it encodes, unless ``ids`` gives another; detections take the LSST ids of consecutive counters from
    ``first_counter`` on. ``unfilled`` says which orbits read 0 in a, period, mean anomaly and mean motion (None:
    a share drawn at random).
    """
    designations = designations or [None] * len(orbits)
    drawn = iter(random_designations(rng, sum(name is None for name in designations), taken))
    orbits["designation"] = [name if name is not None else next(drawn) for name in designations]
    orbits["packed"] = [pack_designation(name) for name in orbits["designation"]]
    own = ids or [None] * len(orbits)
    orbits["ssobjectid"] = [i if i is not None else ss_object_id(p) for i, p in zip(own, orbits["packed"], strict=True)]
    det["measurement_id"] = lsst_ids(np.arange(first_counter, first_counter + len(det)))
    detection, lsst_detection, ss_detection = _detection_tables(rng, orbits, det)
    first_mjd = det.groupby("_obj")["mjd"].min().to_numpy()
    drawn = SsDrawn(
        objects=object_rows(detection, pd.Series(dtype=np.int64)),
        detection=detection,
        lsst_detection=lsst_detection,
        lsst_ss_detection=ss_detection,
        lsst_mpc_orbits=_mpc_orbit_rows(rng, orbits, first_mjd, unfilled),
    )
    return rows_of("ss", rng, drawn)
