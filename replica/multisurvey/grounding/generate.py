"""Rows of grounded multi-survey entities: each survey's objects, cross-match sources without an object, patches.

Objects are made by survey (LSST diaObjects with their ZTF twins, solar-system objects, ZTF-only objects) from the
generator's pieces; sources a query asks for without an object (an AllWISE or Gaia row alone) come from the
generator's source models. The engine's patching then writes what the spec does not model, and the rows of all
entities keep every key of the catalog, lookups included (``constraints.conform``).
"""

import numpy as np
import pandas as pd

from replica.engine.draws import allwise_sources
from replica.engine.grounding.constraints import conform
from replica.engine.grounding.entity import Entity
from replica.engine.grounding.patching import apply_patches, fitted
from replica.engine.recipe import fixed_frames
from replica.multisurvey import CATALOG
from replica.multisurvey.crossmatch import ALLWISE_CATID, GAIA_CATID
from replica.multisurvey.gaia import gaia_rows
from replica.multisurvey.grounding.dia import ZtfNames, dia_objects, merged, ztf_only_objects
from replica.multisurvey.grounding.ss import ss_objects
from replica.multisurvey.population import flux_of_mag
from replica.multisurvey.roles import SOLAR_SYSTEM_TABLES, SOURCE_TABLES
from replica.multisurvey.sky import lsst_positions

__all__ = ["GROUNDED_COUNTER", "grounded_tables"]

GROUNDED_COUNTER = 10**12
"""LSST id counter of the first grounded measurement: base counters stay far below it, so ids never collide."""


def grounded_tables(entities: list[Entity], rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """Rows of every table for the entities (unnamed ones are named), within the catalog's keys."""
    objects = [e for e in entities if e.needs_object]
    survey = {sid: [e for e in objects if e.spec.get("sid", 1) == sid] for sid in (0, 1, 2)}
    orphans = [e for e in entities if not e.needs_object]
    names, counter, parts = ZtfNames(), GROUNDED_COUNTER, []
    if survey[1]:
        part, counter = dia_objects(rng, survey[1], counter, names)
        parts.append(part)
    if survey[2]:
        parts.append(ss_objects(rng, survey[2], counter))
    if survey[0]:
        parts.append(ztf_only_objects(rng, survey[0], names))
    if orphans:
        parts.append(_orphan_sources(rng, orphans))
    tables = merged(*parts)
    _patched(tables, objects)
    conform(tables, CATALOG, fixed=fixed_frames(CATALOG))
    return tables


def _orphan_sources(rng: np.random.Generator, entities: list[Entity]) -> dict[str, pd.DataFrame]:
    """AllWISE and Gaia rows a query asks for alone, at the position asked for (else a random one)."""
    rows: dict[str, list[pd.DataFrame]] = {table: [] for table in SOURCE_TABLES}
    for entity in entities:
        ra, dec, _ = lsst_positions(rng, 1, 0.0)
        ra, dec = np.array([entity.spec.get("ra", ra[0])]), np.array([entity.spec.get("dec", dec[0])])
        drawn = np.array([np.nan])  # AllWISE magnitudes drawn at random
        for table, values in entity.spec.get("orphans", []):
            frame = allwise_sources(rng, ra, dec, drawn, drawn) if table == "allwise" else _gaia(rng, ra, dec)
            fit = fitted(table, values, CATALOG)
            rows[table].append(frame.assign(**{column: value for column, value in fit.items() if column in frame}))
    return {table: pd.concat(frames, ignore_index=True) for table, frames in rows.items() if frames}


def _gaia(rng: np.random.Generator, ra: np.ndarray, dec: np.ndarray) -> pd.DataFrame:
    spec = pd.DataFrame(
        {
            "kind": "VS",
            "flux": flux_of_mag(rng.uniform(14.0, 19.0, len(ra))),
            "color": rng.normal(0.5, 0.3, len(ra)),
            "gaia_id": pd.array(rng.integers(4 * 10**18, 6 * 10**18, len(ra)), dtype="Int64"),
            "gaia_ra": ra,
            "gaia_dec": dec,
        }
    )
    return gaia_rows(rng, spec)


def _patched(tables: dict[str, pd.DataFrame], objects: list[Entity]) -> None:
    """Apply the entities' patches; rows without an oid borrow their object's (orbits by id, sources by xmatch)."""
    owners = {table: tables[table]["ssobjectid"].to_numpy() for table in SOLAR_SYSTEM_TABLES if table in tables}
    xmatch = tables.get("xmatch", pd.DataFrame(columns=["oid", "catid", "oid_catalog"]))
    for table, catid, key in (("allwise", ALLWISE_CATID, str), ("gaiadr3_source", GAIA_CATID, int)):
        if table in tables:
            mine = xmatch[xmatch["catid"] == catid]
            owner = dict(zip(mine["oid_catalog"].map(key), mine["oid"], strict=True))
            # a list, not Series.map: an orphan source's None would turn every owner into a float, and the 18-digit
            # LSST ids would no longer name their objects
            owners[table] = np.array([owner.get(key(name)) for name in tables[table]["oid_catalog"]], dtype=object)
    for table, owner in owners.items():
        tables[table] = tables[table].assign(oid=owner)
    apply_patches(tables, objects, CATALOG)
    for table in owners:
        tables[table] = tables[table].drop(columns="oid")
