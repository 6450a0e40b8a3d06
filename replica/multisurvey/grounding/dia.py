"""Grounded LSST diaObjects (sid 1), their ZTF twins, and grounded ZTF-only objects, from the generator's pieces.

Each object's visits are chosen (``visits``); the rest is the base build's code: measurement rows, object and
lsst_dia_object aggregates, both stamp classifiers, features, cross-matches, ZTF counterparts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from replica.engine.grounding.entity import Entity
from replica.multisurvey.cadence import LSST_CADENCE
from replica.multisurvey.crossmatch import attach_sources, source_rows
from replica.multisurvey.dia_objects import derived_tables, measured_rows, measurement_tables
from replica.multisurvey.features import feature_rows
from replica.multisurvey.grounding.classes import grounded_probabilities
from replica.multisurvey.grounding.visits import grounded_visits, plan_defaults
from replica.multisurvey.grounding.ztf_objects import ZtfNames, ztf_objects
from replica.multisurvey.population import random_spec
from replica.multisurvey.summaries import LSST_TID, object_rows
from replica.multisurvey.ztf import counterpart_spec, ztf_only_spec

__all__ = ["dia_objects", "merged", "ztf_only_objects"]


def _wanted_sources(entities: list[Entity]) -> np.ndarray:
    """(AllWISE, Gaia) per entity: 1 when a query asks for the counterpart, NaN to draw."""
    wanted = np.full((len(entities), 2), np.nan)
    for k, entity in enumerate(entities):
        sources = entity.spec.get("sources", {})
        wanted[k] = [1.0 if sources.get("wise") else np.nan, 1.0 if sources.get("gaia") else np.nan]
    return wanted


def _spec(rng: np.random.Generator, plans: list[dict], spec: pd.DataFrame) -> pd.DataFrame:
    """The generator's spec of the objects, with the positions asked for and transients peaking while detected."""
    for k, plan in enumerate(plans):
        for column in ("ra", "dec"):
            if column in plan:
                spec.at[k, column] = plan[column]
    sn = spec["kind"].to_numpy() == "SN"
    peaks = np.array([p["firstmjd"] + min(p["span"] * 0.25, 8.0) for p in plans])
    spec.loc[sn, "t0"] = peaks[sn]
    spec["deep"] = False
    return spec


def _rename(frames: list[pd.DataFrame], old: int, new: int, first_measurement: bool) -> None:
    """Give an object the oid a query names: in every frame, and (for a diaObject) its first detection's id."""
    for frame in frames:
        mine = frame["oid"].to_numpy() == old
        if first_measurement and "measurement_id" in frame and "diaobjectid" in frame:
            frame.loc[mine & (frame["measurement_id"].to_numpy() == old), "measurement_id"] = new
            frame.loc[mine, "diaobjectid"] = new
        frame.loc[mine, "oid"] = new


def dia_objects(
    rng: np.random.Generator, entities: list[Entity], counter: int, names: ZtfNames
) -> tuple[dict[str, pd.DataFrame], int]:
    """Rows of grounded diaObjects (entities named as they are written), and the next free LSST id counter."""
    plans = [plan_defaults(rng, entity.spec, LSST_CADENCE) for entity in entities]
    spec = _spec(rng, plans, random_spec(rng, len(plans), np.array([p["kind"] for p in plans])))
    visits = grounded_visits(rng, spec, plans)
    spec, detections, forced, used = measured_rows(rng, spec, visits, counter)
    for k, entity in enumerate(entities):
        if entity.oid is not None:
            _rename([detections, forced], int(spec.at[k, "oid"]), int(entity.oid), True)
            spec.at[k, "oid"] = int(entity.oid)
        entity.oid = int(spec.at[k, "oid"])
    tables = measurement_tables(rng, detections, forced)
    attach_sources(rng, spec, _wanted_sources(entities))
    objects = object_rows(tables["detection"], forced.groupby("oid").size(), LSST_TID)
    order = pd.Index(spec["oid"]).get_indexer(objects["oid"])
    spec, entities = spec.iloc[order].reset_index(drop=True), [entities[k] for k in order]
    wishes = [e.spec.get("classes", {}) for e in entities]
    tables |= derived_tables(
        rng,
        spec,
        objects,
        detections,
        forced,
        probabilities=lambda rng, objects, kinds: grounded_probabilities(rng, objects, kinds, wishes),
        features=lambda *rows: _features(*rows, entities=entities),
    )
    twins = np.array(["twin" in e.spec for e in entities])
    if twins.any():
        first, span = objects["firstmjd"].to_numpy(), objects["deltamjd"].to_numpy()
        wanted = [e.spec["twin"] | {"firstmjd": first[k], "span": span[k]} for k, e in enumerate(entities) if twins[k]]
        twin_tables, _ = _ztf(rng, counterpart_spec(rng, spec, twins), wanted, names)
        tables = merged(tables, twin_tables)
    return tables, counter + used


def ztf_only_objects(rng: np.random.Generator, entities: list[Entity], names: ZtfNames) -> dict[str, pd.DataFrame]:
    """Rows of grounded objects that only ZTF sees (entities named as they are written)."""
    spec = ztf_only_spec(rng, len(entities))
    for k, entity in enumerate(entities):
        for column in ("ra", "dec"):
            if column in entity.spec:
                spec.at[k, column] = entity.spec[column]
    attach_sources(rng, spec, _wanted_sources(entities))
    tables, oids = _ztf(rng, spec, [{**e.spec, "oid": e.oid} for e in entities], names)
    for entity, oid in zip(entities, oids, strict=True):
        entity.oid = int(oid)
    return tables | source_rows(rng, spec)


def _ztf(rng, spec: pd.DataFrame, wanted: list[dict], names: ZtfNames) -> tuple[dict[str, pd.DataFrame], np.ndarray]:
    """Tables of grounded ZTF objects with their cross-matches, and their oids in spec order."""
    tables, spec = ztf_objects(rng, spec, wanted, names)
    return tables, spec["oid"].to_numpy()


def merged(first: dict[str, pd.DataFrame], second: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The rows of both, table by table."""
    frames = {name: [t[name] for t in (first, second) if name in t and not t[name].empty] for name in first | second}
    return {
        name: pd.concat(parts, ignore_index=True) if parts else first.get(name, second.get(name))
        for name, parts in frames.items()
    }


def _features(rng, spec, detections, objects, wise, *, entities: list[Entity]) -> pd.DataFrame:
    """The generator's feature rows, plus a row for each feature a query asks of an object that lacks it."""
    rows = feature_rows(rng, spec, detections, objects, wise)
    have = set(zip(rows["oid"], rows["feature_id"], rows["band"], strict=True))
    n_det = dict(zip(objects["oid"], objects["n_det"], strict=True))
    extra = [
        {"oid": e.oid, "sid": 1, "feature_id": fid, "band": band, "version": 1, "feature_value": float(rng.uniform())}
        for e in entities
        for fid, band in e.spec.get("features", [])
        if (e.oid, fid, band) not in have and n_det[e.oid] >= 2  # features need two detections
    ]
    if not extra:
        return rows
    extra = pd.DataFrame(extra)
    extra["updated_date"] = extra["oid"].map(objects.set_index("oid")["updated_date"]).to_numpy()
    return pd.concat([rows, extra], ignore_index=True)
