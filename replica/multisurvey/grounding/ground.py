"""Ground the multi-survey replica on gold queries: entities that answer them (and near misses), written on top."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np
import psycopg
from psycopg import sql

from catalog import load_catalog
from replica.grounding.conflicts import clear_base_rows
from replica.grounding.density import answers_many, unanswered
from replica.grounding.entities import entities_for_queries
from replica.grounding.report import GroundingReport
from replica.grounding.thinning import thin_unordered_limits
from replica.multisurvey.grounding.generate import grounded_tables
from replica.multisurvey.grounding.profile import MULTISURVEY_PROFILE
from replica.multisurvey.lsst_tables import DETECTION_SQL
from replica.synthetic.copy import TableWriter

__all__ = ["check_answers", "ground_queries"]

log = logging.getLogger(__name__)


def ground_queries(
    conn: psycopg.Connection, queries: list[str], *, seed: int, schema: str, writer: TableWriter | None = None
) -> GroundingReport:
    """Add the entities grounded on ``queries`` to the data in ``schema``, then thin unordered LIMITs.

    Runs inside the caller's transaction, before the indexes are rebuilt. A query that cannot be grounded is
    skipped and reported; grounded rows respect every key of the catalog.

    Args:
        conn: psycopg 3 connection with rights to write the schema's tables.
        queries: Gold queries (PostgreSQL, unqualified table names).
        seed: Random seed of the build (the grounded rows draw from their own stream of it).
        schema: The schema holding the multi-survey tables.
        writer: The build's table writer (default: a new one on ``conn``).
    """
    profile = replace(MULTISURVEY_PROFILE, schema=schema)
    started = time.monotonic()
    conn.execute(sql.SQL("SET search_path TO {}, public").format(sql.Identifier(schema)))
    plan = entities_for_queries(queries, profile, lambda query: answers_many(conn, query))
    chosen = time.monotonic()
    tables = grounded_tables(plan.entities, np.random.default_rng([seed, 4]))
    clear_base_rows(conn, tables, profile)
    _write(writer or TableWriter(conn, schema, decimals=None), tables)
    written = time.monotonic()
    thinned = thin_unordered_limits(conn, queries, {e.oid for e in plan.entities if e.needs_object}, profile)
    stages = {"entities": chosen - started, "rows": written - chosen, "thinning": time.monotonic() - written}
    return GroundingReport(queries, plan.skipped, entities=len(plan.entities), thinned=thinned, stages_s=stages)


def _write(writer: TableWriter, tables: dict) -> None:
    """Write the grounded rows, parents first; a measurement column grounding set keeps its value."""
    for name in load_catalog(MULTISURVEY_PROFILE.catalog).table_names:
        frame = tables.get(name)
        if frame is None or frame.empty:
            continue
        if name == "lsst_detection":
            drawn = {c: f'coalesce("{c}", {e})' if c in frame.columns else e for c, e in DETECTION_SQL.items()}
            writer.write_generated(name, frame, drawn, 0.0)
        else:
            writer.write(name, frame)


def check_answers(conn: psycopg.Connection, report: GroundingReport) -> None:
    """Find the grounded queries still without rows (fast once indexed), then log the grounding's summary."""
    started = time.monotonic()
    report.unanswered = unanswered(conn, report.grounded)
    report.stages_s = {**report.stages_s, "checking": time.monotonic() - started}
    log.info(report.summary(), extra={"grounding_s": {k: round(v, 2) for k, v in report.stages_s.items()}})
