"""build(): fill an empty alerce schema with deterministic synthetic data."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from replica.schema_ops import analyze, create_indexes, prepare, row_counts
from replica.synthetic import crossmatch
from replica.synthetic.bookkeeping import bookkeeping_frames
from replica.synthetic.chunk import generate_chunk
from replica.synthetic.copy import TableWriter
from replica.synthetic.objects import assign_oids, random_kinds, spec_for_kinds
from replica.synthetic.photometry import DATAQUALITY_SQL
from replica.synthetic.scales import get_scale

if TYPE_CHECKING:
    from replica.grounding.report import GroundingReport

__all__ = ["SCHEMA", "build", "ground_queries"]

log = logging.getLogger(__name__)

SCHEMA = "alerce"
"""The ZTF catalog's PostgreSQL schema (``catalog/ztf.yaml``), which the generator and grounding write."""

_LOAD_ORDER = (
    "object",
    "detection",
    "dataquality",
    "non_detection",
    "magstat",
    "probability",
    "ps1_ztf",
    "gaia_ztf",
    "ss_ztf",
    "reference",
    "allwise",
    "xmatch",
    "feature",
    "forced_photometry",
)


def _write_chunk(writer: TableWriter, tables: dict, seed: float) -> None:
    for name in _LOAD_ORDER:
        if name == "dataquality":
            writer.write_generated(name, tables[name], DATAQUALITY_SQL, seed)
        else:
            writer.write(name, tables[name])


def _grounded_chunk(writer: TableWriter, tables: dict) -> None:
    for name in _LOAD_ORDER:
        if name not in tables:
            continue
        if name == "dataquality":
            frame = tables[name]
            # a value grounding chose stays; the database draws the others
            noise = {c: f'coalesce("{c}", {sql})' if c in frame.columns else sql for c, sql in DATAQUALITY_SQL.items()}
            writer.write_generated(name, frame, noise, 0.0)
        else:
            writer.write(name, tables[name])


def _random_chunks(writer, seed: int, scale, reserved: set[str]) -> None:
    counters: dict[int, int] = {}
    gidx = 0
    oid_rng = np.random.default_rng([seed, 1])
    for k, start in enumerate(range(0, scale.n_objects, scale.chunk_objects)):
        rng = np.random.default_rng([seed, 2, k])
        n = min(scale.chunk_objects, scale.n_objects - start)
        spec = spec_for_kinds(rng, random_kinds(rng, n), scale.old_feature_fraction)
        assign_oids(spec, counters, oid_rng, reserved)
        tables = generate_chunk(rng, spec, gidx, scale.max_forced_rows)
        _write_chunk(writer, tables, float(rng.uniform(-1, 1)))
        gidx += len(tables["detection"])
        log.info("chunk %d: %d objects, %d detections", k, n, len(tables["detection"]))


def _unlinked_allwise(writer, seed: int, scale) -> None:
    rng = np.random.default_rng([seed, 3])
    total = int(scale.n_objects * scale.allwise_unlinked_per_object)
    for start in range(0, total, 100_000):
        n = min(100_000, total - start)
        ra = rng.uniform(0, 360, n)
        dec = np.degrees(np.arcsin(rng.uniform(np.sin(np.radians(-30.0)), 1.0, n)))
        wise = crossmatch.allwise_sources(rng, ra, dec, np.full(n, np.nan), np.full(n, np.nan))
        writer.write("allwise", wise.drop_duplicates("oid_catalog"))


def build(conn, *, scale: str = "default", seed: int = 0, ground: Sequence[str] = ()) -> dict[str, int]:
    """Fill schema `alerce` (which must exist) with synthetic data and commit.

    Args:
        conn: psycopg 3 connection with rights to write the alerce tables.
        scale: 'tiny', 'default' or 'large' (see scales.py).
        seed: random seed; the same (scale, seed, ground) always gives the same data.
        ground: gold queries whose answers (and near misses) are added on top of the random population (see
            ``ground_queries``; grounded queries still without rows are named in one warning line each).

    Returns:
        Rows per table.
    """
    from replica.grounding.entities import literal_oids
    from replica.synthetic.grounding import ZTF_PROFILE

    size = get_scale(scale)
    t0 = time.monotonic()
    queries = list(ground)
    indexes = prepare(conn, SCHEMA)
    writer = TableWriter(conn)
    for name, frame in bookkeeping_frames().items():
        writer.write(name, frame)
    read_started = time.monotonic()
    reserved = literal_oids(queries, ZTF_PROFILE)  # reads (and caches) every query's worlds, so it counts as grounding
    read_s = time.monotonic() - read_started
    _random_chunks(writer, seed, size, reserved)
    _unlinked_allwise(writer, seed, size)
    report = ground_queries(conn, queries, seed=seed, scale=scale, writer=writer) if queries else None
    create_indexes(conn, indexes)
    if report is not None:
        _check_answers(conn, report, read_s)
    conn.execute("SET session_replication_role = origin")  # foreign-key triggers stay off until here
    conn.commit()
    analyze(conn)
    log.info("built scale %s (seed %d) in %.1f s", scale, seed, time.monotonic() - t0)
    return row_counts(conn, SCHEMA)


def ground_queries(
    conn, queries: list[str], *, seed: int, scale: str, writer: TableWriter | None = None
) -> GroundingReport:
    """Add the entities grounded on ``queries`` to the data in schema ``alerce``, then thin unordered LIMITs.

    Runs inside the caller's transaction; the builder calls it before it rebuilds the indexes. A query that cannot
    be grounded is skipped and reported (see ``GroundingReport``); grounded rows respect every key of the schema.

    Args:
        conn: psycopg 3 connection with rights to write the alerce tables.
        queries: Gold queries.
        seed: Random seed of the build (the grounded rows draw from their own stream of it).
        scale: The build's scale ('tiny', 'default' or 'large').
        writer: The build's table writer (default: a new one on ``conn``).
    """
    from replica.grounding.conflicts import clear_base_rows
    from replica.grounding.density import answers_many
    from replica.grounding.entities import entities_for_queries
    from replica.grounding.report import GroundingReport
    from replica.grounding.thinning import thin_unordered_limits
    from replica.synthetic.grounding import ZTF_PROFILE, grounded_tables

    size = get_scale(scale)
    started = time.monotonic()
    conn.execute("SET search_path TO alerce, public")
    plan = entities_for_queries(queries, ZTF_PROFILE, lambda sql: answers_many(conn, sql))
    chosen = time.monotonic()
    tables = grounded_tables(
        plan.entities,
        np.random.default_rng([seed, 4]),
        old_feature_fraction=size.old_feature_fraction,
        max_forced_rows=size.max_forced_rows,
    )
    clear_base_rows(conn, tables, ZTF_PROFILE)
    _grounded_chunk(writer or TableWriter(conn), tables)
    written = time.monotonic()
    thinned = thin_unordered_limits(conn, queries, {e.oid for e in plan.entities if e.needs_object}, ZTF_PROFILE)
    stages = {"entities": chosen - started, "rows": written - chosen, "thinning": time.monotonic() - written}
    return GroundingReport(queries, plan.skipped, entities=len(plan.entities), thinned=thinned, stages_s=stages)


def _check_answers(conn, report: GroundingReport, read_s: float) -> None:
    """Find the grounded queries still without rows (fast once indexed), then log the grounding's summary.

    ``read_s`` is the time already spent reading the queries (their literal oids), reported with the stages.
    """
    from replica.grounding.density import unanswered

    started = time.monotonic()
    report.unanswered = unanswered(conn, report.grounded)
    report.stages_s = {"reading": read_s, **report.stages_s, "checking": time.monotonic() - started}
    log.debug("grounding: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in report.stages_s.items()))
    log.info(report.summary(), extra={"grounding_s": {k: round(v, 2) for k, v in report.stages_s.items()}})
