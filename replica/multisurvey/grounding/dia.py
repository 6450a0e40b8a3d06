"""Grounded LSST diaObjects (sid 1), their ZTF twins and grounded ZTF-only objects (sid 0), from the generator's pieces.

Each object's visits are chosen (``visits``); the rest is the base build's code: measurement rows, object and
lsst_dia_object aggregates, both stamp classifiers, features, cross-matches, ZTF rows. A grounded ZTF object's name
holds 'zz' after the year ('ZTF26zzaabcd'), where the base's never do, so no grounded oid takes a base object's; the
oid is the name's integer by the published encoding.

Example:
    >>> ZtfNames().name(61100.0)
    'ZTF26zzaaaaa'
"""

import numpy as np
import pandas as pd

from catalog.ztf_names import ztf_oid_of
from replica.engine.draws import GROUNDED_GIDX, grounded_ztf_name
from replica.engine.grounding.entity import Entity
from replica.multisurvey.cadence import LSST_CADENCE, ZTF_CADENCE
from replica.multisurvey.crossmatch import attach_sources
from replica.multisurvey.dia_objects import dia_tables
from replica.multisurvey.features import feature_rows
from replica.multisurvey.grounding.classes import grounded_probabilities
from replica.multisurvey.grounding.visits import grounded_visits, plan_defaults
from replica.multisurvey.population import random_spec
from replica.multisurvey.sky import date_text
from replica.multisurvey.tables import rows_of
from replica.multisurvey.ztf import counterpart_spec, ztf_only_spec, ztf_rows

__all__ = ["ZtfNames", "dia_objects", "merged", "ztf_only_objects"]


class ZtfNames:
    """Hands out the names of grounded ZTF objects, in order, and the measurement index of their next visit."""

    def __init__(self) -> None:
        self.count = 0
        self.gidx = GROUNDED_GIDX

    def name(self, firstmjd: float) -> str:
        """The next name, in the year of ``firstmjd``."""
        self.count += 1
        return grounded_ztf_name(int(str(date_text(np.array([firstmjd]))[0])[:4]), self.count - 1)


def _wanted_sources(entities: list[Entity]) -> np.ndarray:
    """(AllWISE, Gaia) per entity: 1 when a query asks for the counterpart, NaN to draw."""
    return np.array([[1.0 if e.spec.get("sources", {}).get(s) else np.nan for s in ("wise", "gaia")] for e in entities])


def _peaking(spec: pd.DataFrame, plans: list[dict]) -> None:
    """Transients peak while detected: a quarter of their span (at most 8 days) after the first detection."""
    peaks = np.array([p["firstmjd"] + min(p["span"] * 0.25, 8.0) for p in plans])
    spec["t0"] = np.where(spec["kind"].to_numpy() == "SN", peaks, spec["t0"])


def dia_objects(
    rng: np.random.Generator, entities: list[Entity], counter: int, names: ZtfNames
) -> tuple[dict[str, pd.DataFrame], int]:
    """Rows of grounded diaObjects (entities named as they are written), and the next free LSST id counter."""
    plans = [plan_defaults(rng, entity.spec, LSST_CADENCE) for entity in entities]
    spec = random_spec(rng, len(plans), np.array([p["kind"] for p in plans]))
    spec.update(pd.DataFrame(plans, columns=["ra", "dec"]))  # the positions a query asks for
    _peaking(spec, plans)
    spec["deep"] = False
    visits = grounded_visits(rng, spec, plans)
    tables, spec, used = dia_tables(
        rng,
        spec,
        visits,
        counter,
        names=[e.oid for e in entities],
        wanted=_wanted_sources(entities),
        probabilities=lambda rng, objects, ordered: grounded_probabilities(
            rng, objects, ordered, [entities[k].spec.get("classes", {}) for k in ordered.index]
        ),
        features=lambda *rows: _features(*rows, entities=entities),
    )
    ordered = [entities[k] for k in spec.index]  # the entities in the objects' order
    for entity, oid in zip(ordered, spec["oid"], strict=True):
        entity.oid = int(oid)
    twins = np.array(["twin" in e.spec for e in ordered])
    if twins.any():
        objects = tables["object"]
        first, span = objects["firstmjd"].to_numpy(), objects["deltamjd"].to_numpy()
        wanted = [e.spec["twin"] | {"firstmjd": first[k], "span": span[k]} for k, e in enumerate(ordered) if twins[k]]
        tables = merged(tables, _ztf_objects(rng, counterpart_spec(rng, spec, twins), wanted, names)[0])
    return tables, counter + used


def ztf_only_objects(rng: np.random.Generator, entities: list[Entity], names: ZtfNames) -> dict[str, pd.DataFrame]:
    """Rows of grounded objects that only ZTF sees (entities named as they are written)."""
    spec = ztf_only_spec(rng, len(entities))
    spec.update(pd.DataFrame([e.spec for e in entities], columns=["ra", "dec"]))  # the positions a query asks for
    attach_sources(rng, spec, _wanted_sources(entities))
    tables, oids = _ztf_objects(rng, spec, [{**e.spec, "oid": e.oid} for e in entities], names)
    for entity, oid in zip(entities, oids, strict=True):
        entity.oid = int(oid)
    return tables | rows_of("sources", rng, spec)


def _ztf_objects(rng: np.random.Generator, spec: pd.DataFrame, wanted: list[dict], names: ZtfNames):
    """(tables, oids) of grounded ZTF objects with their cross-matches; ``wanted``: what the query asks of each."""
    plans = [
        plan_defaults(rng, {**plan, "kind": kind}, ZTF_CADENCE) for plan, kind in zip(wanted, spec["kind"], strict=True)
    ]
    spec = spec.reset_index(drop=True)
    _peaking(spec, plans)
    visits = grounded_visits(rng, spec, plans, ZTF_CADENCE)
    spec["oid"] = [int(p["oid"]) if p.get("oid") else ztf_oid_of(names.name(p["firstmjd"])) for p in plans]
    return ztf_rows(rng, spec, visits, names), spec["oid"].to_numpy()


def merged(*parts: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The rows of all the parts, table by table."""
    names = dict.fromkeys(name for part in parts for name in part)
    frames = {name: [p[name] for p in parts if name in p and not p[name].empty] for name in names}
    return {
        name: pd.concat(found, ignore_index=True) if found else next(p[name] for p in parts if name in p)
        for name, found in frames.items()
    }


def _features(rng, spec, detections, objects, wise, *, entities: list[Entity]) -> pd.DataFrame:
    """The generator's feature rows, plus a row for each feature a query asks of an object that lacks it.

    ``entities`` are in the order the objects were drawn: ``spec.index`` places each object among them.
    """
    rows = feature_rows(rng, spec, detections, objects, wise)
    have = set(zip(rows["oid"], rows["feature_id"], rows["band"], strict=True))
    n_det = dict(zip(objects["oid"], objects["n_det"], strict=True))
    extra = [
        {"oid": oid, "sid": 1, "feature_id": fid, "band": band, "version": 1, "feature_value": float(rng.uniform())}
        for oid, k in zip(spec["oid"], spec.index, strict=True)
        for fid, band in entities[k].spec.get("features", [])
        if (oid, fid, band) not in have and n_det[oid] >= 2  # features need two detections
    ]
    if not extra:
        return rows
    extra = pd.DataFrame(extra)
    extra["updated_date"] = extra["oid"].map(objects.set_index("oid")["updated_date"]).to_numpy()
    return pd.concat([rows, extra], ignore_index=True)
