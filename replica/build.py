"""build(): fill an empty alerce schema with deterministic synthetic data."""

import logging
import time
from collections.abc import Sequence

import numpy as np

from replica.schema_ops import analyze, create_indexes, prepare, row_counts
from replica.synthetic import crossmatch
from replica.synthetic.bookkeeping import bookkeeping_frames
from replica.synthetic.chunk import generate_chunk
from replica.synthetic.copy import TableWriter
from replica.synthetic.objects import assign_oids, random_kinds, spec_for_kinds
from replica.synthetic.photometry import DATAQUALITY_SQL
from replica.synthetic.scales import get_scale

__all__ = ["SCHEMA", "build"]

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


def _grounded_chunk(writer, rng, scale, entities) -> set[str]:
    """Write the grounded entities' rows; return their oids."""
    from replica.grounding.rows import grounded_tables

    tables = grounded_tables(
        entities, rng, old_feature_fraction=scale.old_feature_fraction, max_forced_rows=scale.max_forced_rows
    )
    for name in _LOAD_ORDER:
        if name not in tables:
            continue
        if name == "dataquality":
            writer.write_generated(name, tables[name], DATAQUALITY_SQL, 0.0)
        else:
            writer.write(name, tables[name])
    return {e.oid for e in entities if e.needs_object}


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
        ground: gold queries whose answers (and near misses) are added on top of the random population.

    Returns:
        Rows per table.
    """
    from replica.grounding.entities import literal_oids

    size = get_scale(scale)
    t0 = time.monotonic()
    queries = list(ground)
    indexes = prepare(conn, SCHEMA)
    writer = TableWriter(conn)
    for name, frame in bookkeeping_frames().items():
        writer.write(name, frame)
    read_started = time.monotonic()
    reserved = literal_oids(queries)  # reads (and caches) every query's worlds, so it counts as grounding
    read_s = time.monotonic() - read_started
    _random_chunks(writer, seed, size, reserved)
    _unlinked_allwise(writer, seed, size)
    if queries:
        _ground(conn, writer, queries, np.random.default_rng([seed, 4]), size, indexes, read_s)
    else:
        create_indexes(conn, indexes)
    conn.execute("SET session_replication_role = origin")  # foreign-key triggers stay off until here
    conn.commit()
    analyze(conn)
    log.info("built scale %s (seed %d) in %.1f s", scale, seed, time.monotonic() - t0)
    return row_counts(conn, SCHEMA)


def _ground(
    conn, writer: TableWriter, queries: list[str], rng, scale, indexes: list[tuple[str, str]], read_s: float
) -> None:
    """Add the grounded entities and thin unordered LIMITs, both before the indexes (like the base rows).

    ``read_s`` is the time already spent reading the queries (their literal oids), reported with the stages.
    """
    from replica.grounding.density import answers_many
    from replica.grounding.entities import entities_for_queries
    from replica.grounding.thinning import thin_unordered_limits

    started = time.monotonic()
    conn.execute("SET search_path TO alerce, public")
    entities = entities_for_queries(queries, lambda sql: answers_many(conn, sql))
    chosen = time.monotonic()
    grounded = _grounded_chunk(writer, rng, scale, entities)
    written = time.monotonic()
    deleted = thin_unordered_limits(conn, queries, grounded)
    thinned = time.monotonic()
    create_indexes(conn, indexes)
    stages = {"reading": read_s, "entities": chosen - started, "rows": written - chosen, "thinning": thinned - written}
    log.debug("grounding: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in stages.items()))
    log.info(
        "grounded %d queries: %d entities, %d base objects thinned, %.1f s",
        len(queries),
        len(entities),
        deleted,
        read_s + thinned - started,
        extra={"grounding_s": {name: round(seconds, 2) for name, seconds in stages.items()}},
    )
