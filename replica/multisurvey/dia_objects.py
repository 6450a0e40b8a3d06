"""LSST diaObjects (sid 1): from their measured visits, the rows of every table that describes them.

The base population and grounding both build diaObjects with ``dia_tables``; they differ in how the visits are
chosen, and grounding names some objects and adds the classes and features a query asks for.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from replica.multisurvey.classifications import probability_rows
from replica.multisurvey.crossmatch import allwise_rows, attach_sources
from replica.multisurvey.features import feature_rows
from replica.multisurvey.ids import lsst_ids
from replica.multisurvey.lsst_tables import detection_frames, forced_frames
from replica.multisurvey.sky import offset_positions
from replica.multisurvey.summaries import object_rows
from replica.multisurvey.tables import rows_of

__all__ = ["dia_tables"]

LSST_DIA_SID = 1


@dataclass(frozen=True, kw_only=True)
class DiaDrawn:
    """What diaObjects drew, and the makers of their probability and feature rows (the base build's or grounding's),
    from which ``tables.TABLES`` makes their tables."""

    spec: pd.DataFrame
    detections: pd.DataFrame  # the detected visits with every measured column (``detection`` keeps the table's)
    forced: pd.DataFrame  # the forced-photometry visits, likewise
    objects: pd.DataFrame
    detection: pd.DataFrame
    lsst_detection: pd.DataFrame
    forced_photometry: pd.DataFrame
    lsst_forced_photometry: pd.DataFrame
    wise: pd.DataFrame
    probabilities: Callable[..., pd.DataFrame]
    features: Callable[..., pd.DataFrame]


def _detection_extras(rng: np.random.Generator, kind: np.ndarray) -> dict[str, np.ndarray]:
    n = len(kind)
    bogus, moving = kind == "bogus", kind == "moving"
    return {
        "reliability": np.where(bogus, rng.uniform(0.05, 0.6, n), 0.6 + 0.4 * rng.beta(4.0, 1.2, n)),
        "isdipole": np.where(bogus, rng.random(n) < 0.35, rng.random(n) < 0.01),
        "traillength": np.where(moving, rng.uniform(1.0, 12.0, n), rng.uniform(0.05, 0.5, n)),
        "trailangle": rng.uniform(-90.0, 90.0, n),
        "ssobjectid": pd.array([pd.NA] * n, dtype="Int64"),
    }


def _identified(spec: pd.DataFrame, visits: pd.DataFrame, ids: np.ndarray) -> pd.DataFrame:
    """The visits with their object's oid, position and extendedness, and the measurement ids."""
    return visits.join(spec[["oid", "ra", "dec", "extendedness"]], on="_obj").assign(
        sid=LSST_DIA_SID, measurement_id=ids
    )


def _scattered(rng: np.random.Generator, detections: pd.DataFrame) -> pd.DataFrame:
    """Detections at measured positions: the object's position plus centroid noise shrinking with SNR."""
    scatter_deg = (0.25 / np.maximum(detections["snr"].to_numpy(), 1.0) + 0.02) / 3600.0
    distance_deg = np.abs(rng.normal(0.0, 1.0, len(detections))) * scatter_deg
    angle = rng.uniform(0.0, 2 * np.pi, len(detections))
    ra, dec = offset_positions(detections["ra"].to_numpy(), detections["dec"].to_numpy(), distance_deg, angle)
    return detections.assign(ra=ra, dec=dec)


def _measured(rng: np.random.Generator, spec: pd.DataFrame, visits: pd.DataFrame, first_counter: int, names):
    """Name the objects and their measurements: (spec with oid, detections, forced epochs, ids used)."""
    det_visits, forced_visits = visits[visits["is_det"]], visits[visits["is_forced"]]
    ids = lsst_ids(np.arange(first_counter, first_counter + len(det_visits) + len(forced_visits)))
    det_ids, forced_ids = ids[: len(det_visits)], ids[len(det_visits) :]
    obj = det_visits["_obj"].to_numpy()
    first_rows = np.flatnonzero(np.r_[True, obj[1:] != obj[:-1]])
    if names is not None:  # a named diaObject's first diaSource takes its name
        det_ids[first_rows] = [n if n is not None else oid for n, oid in zip(names, det_ids[first_rows], strict=True)]
    spec = spec.assign(oid=det_ids[first_rows])  # a diaObject is named after its first diaSource
    detections = _scattered(rng, _identified(spec, det_visits, det_ids))
    kind = spec["kind"].to_numpy()[detections["_obj"].to_numpy()]
    detections = detections.assign(diaobjectid=detections["oid"], **_detection_extras(rng, kind))
    return spec, detections, _identified(spec, forced_visits, forced_ids), len(ids)


def dia_tables(
    rng: np.random.Generator,
    spec: pd.DataFrame,
    visits: pd.DataFrame,
    first_counter: int,
    *,
    names: list | None = None,
    wanted: np.ndarray | None = None,
    probabilities: Callable[..., pd.DataFrame] = probability_rows,
    features: Callable[..., pd.DataFrame] = feature_rows,
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame, int]:
    """Every table's rows of diaObjects: (tables, spec with oid in the objects' order, LSST id counters used).

    ``visits`` are measured (``dia_sources.observe``; each object detected at least once); measurement ids are
    ``lsst_ids`` of consecutive counters from ``first_counter``. ``names`` gives objects the oid a query names (None:
    their first diaSource's id), ``wanted`` their cross-matches (``crossmatch.attach_sources``). ``probabilities`` (rng,
    object rows, spec) and ``features`` (rng, spec, detections, object rows, AllWISE rows) make those tables (grounding
    adds the rows a query asks for). The returned spec keeps, as its index, each object's place in the given one.
    """
    spec, detections, forced, used = _measured(rng, spec, visits, first_counter, names)
    detection, lsst_detection = detection_frames(rng, detections)
    detections["raerr"] = lsst_detection["raerr"].to_numpy()  # lsst_dia_object's position error is computed from it
    forced_photometry, lsst_forced_photometry = forced_frames(rng, forced)
    attach_sources(rng, spec, wanted)
    objects = object_rows(detection, forced.groupby("oid").size())
    spec = spec.iloc[pd.Index(spec["oid"]).get_indexer(objects["oid"])]
    wise = allwise_rows(rng, spec)  # drawn before the probabilities, the features, then Gaia
    drawn = DiaDrawn(
        spec=spec,
        detections=detections,
        forced=forced,
        objects=objects,
        detection=detection,
        lsst_detection=lsst_detection,
        forced_photometry=forced_photometry,
        lsst_forced_photometry=lsst_forced_photometry,
        wise=wise,
        probabilities=probabilities,
        features=features,
    )
    return rows_of("dia", rng, drawn), spec, used
