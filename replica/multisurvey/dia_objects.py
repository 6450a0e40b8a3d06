"""LSST diaObjects (sid 1) of one chunk: ids, detections and forced photometry with their LSST measurements, and the
tables derived from them."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from replica.multisurvey.classifications import probability_rows
from replica.multisurvey.crossmatch import allwise_rows, xmatch_rows
from replica.multisurvey.dia_sources import observe
from replica.multisurvey.features import feature_rows
from replica.multisurvey.gaia import gaia_rows
from replica.multisurvey.ids import lsst_ids
from replica.multisurvey.lsst_tables import detection_frames, forced_frames
from replica.multisurvey.population import random_spec
from replica.multisurvey.sky import offset_positions
from replica.multisurvey.summaries import dia_object_rows

__all__ = ["DiaChunk", "derived_tables", "dia_chunk", "measured_rows", "measurement_tables"]

LSST_DIA_SID = 1


@dataclass
class DiaChunk:
    """The diaObjects of one chunk: spec (with oid), measured detections and forced epochs (with `_obj`), rows."""

    spec: pd.DataFrame
    detections: pd.DataFrame
    forced: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    ids_used: int


def _detection_extras(rng: np.random.Generator, kind: np.ndarray) -> dict[str, np.ndarray]:
    n = len(kind)
    bogus, moving = kind == "bogus", kind == "moving"
    reliability = np.where(bogus, rng.uniform(0.05, 0.6, n), 0.6 + 0.4 * rng.beta(4.0, 1.2, n))
    return {
        "reliability": reliability,
        "isdipole": np.where(bogus, rng.random(n) < 0.35, rng.random(n) < 0.01),
        "traillength": np.where(moving, rng.uniform(1.0, 12.0, n), rng.uniform(0.05, 0.5, n)),
        "trailangle": rng.uniform(-90.0, 90.0, n),
        "ssobjectid": pd.array([pd.NA] * n, dtype="Int64"),
    }


def _identified(spec: pd.DataFrame, visits: pd.DataFrame, ids: np.ndarray) -> pd.DataFrame:
    """The visits with their object's oid, the measurement ids and the object's position."""
    obj = visits["_obj"].to_numpy()
    return visits.assign(
        oid=spec["oid"].to_numpy()[obj],
        sid=LSST_DIA_SID,
        measurement_id=ids,
        ra=spec["ra"].to_numpy()[obj],
        dec=spec["dec"].to_numpy()[obj],
        extendedness=spec["extendedness"].to_numpy()[obj],
    )


def _scattered(rng: np.random.Generator, detections: pd.DataFrame) -> pd.DataFrame:
    """Detections at measured positions: the object's position plus centroid noise shrinking with SNR."""
    scatter_deg = (0.25 / np.maximum(detections["snr"].to_numpy(), 1.0) + 0.02) / 3600.0
    distance_deg = np.abs(rng.normal(0.0, 1.0, len(detections))) * scatter_deg
    angle = rng.uniform(0.0, 2 * np.pi, len(detections))
    ra, dec = offset_positions(detections["ra"].to_numpy(), detections["dec"].to_numpy(), distance_deg, angle)
    return detections.assign(ra=ra, dec=dec)


def dia_chunk(rng: np.random.Generator, n: int, first_counter: int, max_forced: int) -> DiaChunk:
    """Draw `n` candidate diaObjects and keep those detected at least once.

    Args:
        rng: random generator of this chunk.
        n: candidate objects (some are never detected and are dropped).
        first_counter: first unused LSST id counter (ids are `lsst_ids` of consecutive counters).
        max_forced: cap on forced-photometry epochs per object.
    """
    spec, visits = observe(rng, random_spec(rng, n), max_forced)
    spec, detections, forced, ids_used = measured_rows(rng, spec, visits, first_counter)
    tables = measurement_tables(rng, detections, forced)
    return DiaChunk(spec, detections, forced, tables, ids_used)


def measured_rows(rng: np.random.Generator, spec: pd.DataFrame, visits: pd.DataFrame, first_counter: int):
    """Name the objects and their measurements: (spec with oid, detections, forced epochs, ids used).

    Args:
        rng: random generator.
        spec: the objects' spec (each detected at least once in `visits`).
        visits: measured visits with `_obj`, `is_det` and `is_forced` (see `dia_sources.observe`).
        first_counter: first unused LSST id counter.
    """
    det_visits, forced_visits = visits[visits["is_det"]], visits[visits["is_forced"]]
    ids = lsst_ids(np.arange(first_counter, first_counter + len(det_visits) + len(forced_visits)))
    det_ids, forced_ids = ids[: len(det_visits)], ids[len(det_visits) :]
    first_row = np.r_[True, det_visits["_obj"].to_numpy()[1:] != det_visits["_obj"].to_numpy()[:-1]]
    spec["oid"] = det_ids[first_row]  # a diaObject is named after its first diaSource
    detections = _scattered(rng, _identified(spec, det_visits, det_ids))
    kind = spec["kind"].to_numpy()[detections["_obj"].to_numpy()]
    detections = detections.assign(diaobjectid=detections["oid"], **_detection_extras(rng, kind))
    forced = _identified(spec, forced_visits, forced_ids)
    return spec, detections, forced, len(ids)


def measurement_tables(rng: np.random.Generator, detections: pd.DataFrame, forced: pd.DataFrame) -> dict:
    """Return the detection, lsst_detection, forced_photometry and lsst_forced_photometry rows of measurements.

    Adds each detection's `raerr` to `detections` (lsst_dia_object's position error is computed from it).
    """
    detection, lsst_detection = detection_frames(rng, detections)
    detections["raerr"] = lsst_detection["raerr"].to_numpy()
    forced_photometry, lsst_forced = forced_frames(rng, forced)
    return {
        "detection": detection,
        "lsst_detection": lsst_detection,
        "forced_photometry": forced_photometry,
        "lsst_forced_photometry": lsst_forced,
    }


def derived_tables(
    rng: np.random.Generator,
    spec: pd.DataFrame,
    objects: pd.DataFrame,
    detections: pd.DataFrame,
    forced: pd.DataFrame,
    *,
    probabilities: Callable[..., pd.DataFrame] = probability_rows,
    features: Callable[..., pd.DataFrame] = feature_rows,
) -> dict[str, pd.DataFrame]:
    """The rows of diaObjects derived from their object rows and measurements (``spec`` in the objects' order).

    ``probabilities`` (rng, objects, kinds) and ``features`` (rng, spec, detections, objects, AllWISE rows) make those
    tables (grounding adds the rows a query asks for); the draws are made in the order AllWISE, probabilities,
    features, Gaia.
    """
    wise = allwise_rows(rng, spec)
    return {
        "object": objects,
        "lsst_dia_object": dia_object_rows(detections, forced, objects),
        "probability": probabilities(rng, objects, spec["kind"].to_numpy()),
        "feature": features(rng, spec, detections, objects, wise),
        "xmatch": xmatch_rows(spec, objects, objects["created_date"].to_numpy()),
        "allwise": wise,
        "gaiadr3_source": gaia_rows(rng, spec),
    }
