"""build(): fill an empty alerce schema with deterministic synthetic data."""

import logging
import time

import numpy as np
import psycopg

from db.synthetic import crossmatch, patches, planted
from db.synthetic.bookkeeping import bookkeeping_frames
from db.synthetic.chunk import generate_chunk
from db.synthetic.copy import TableWriter
from db.synthetic.objects import assign_oids, random_kinds, spec_for_kinds
from db.synthetic.photometry import DATAQUALITY_SQL
from db.synthetic.scales import get_scale

__all__ = ["build"]

log = logging.getLogger(__name__)

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


def _secondary_indexes(conn) -> list[tuple[str, str]]:
    """(name, definition) of alerce indexes that back no constraint and belong to no parent index."""
    return conn.execute(
        "SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'alerce' "
        "WHERE c.relkind IN ('i', 'I') "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid) "
        "AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = c.oid) ORDER BY 1"
    ).fetchall()


def _prepare(conn) -> list[tuple[str, str]]:
    tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'alerce'").fetchall()]
    if tables:
        conn.execute("TRUNCATE " + ", ".join(f"alerce.{t}" for t in tables) + " CASCADE")
    indexes = [(n, d) for n, d in _secondary_indexes(conn)]
    for name, _ in indexes:
        conn.execute(f"DROP INDEX IF EXISTS alerce.{name}")
    try:
        with conn.transaction():
            conn.execute("SET session_replication_role = replica")
    except psycopg.Error:
        log.info("cannot disable FK triggers (not a superuser); loading with checks")
    return indexes


def _write_chunk(writer: TableWriter, tables: dict, seed: float) -> None:
    for name in _LOAD_ORDER:
        if name == "dataquality":
            writer.write_generated(name, tables[name], DATAQUALITY_SQL, seed)
        else:
            writer.write(name, tables[name])


def _planted_chunk(writer, rng, scale) -> int:
    spec = patches.planted_spec(rng, scale.old_feature_fraction)
    tables = generate_chunk(rng, spec, 0, scale.max_forced_rows, patches.patch_detections)
    patches.patch_tables(tables)
    _write_chunk(writer, tables, 0.0)
    return len(tables["detection"])


def _random_chunks(writer, seed: int, scale, gidx: int) -> None:
    counters: dict[int, int] = {}
    reserved = {oid for oid, _, _ in planted.PLANTED}
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
    ra, dec = zip(*planted.ALLWISE_NEAR, strict=True)
    nan = np.full(len(ra), np.nan)
    writer.write("allwise", crossmatch.allwise_sources(rng, np.array(ra), np.array(dec), nan, nan))
    total = int(scale.n_objects * scale.allwise_unlinked_per_object)
    for start in range(0, total, 100_000):
        n = min(100_000, total - start)
        ra = rng.uniform(0, 360, n)
        dec = np.degrees(np.arcsin(rng.uniform(np.sin(np.radians(-30.0)), 1.0, n)))
        wise = crossmatch.allwise_sources(rng, ra, dec, np.full(n, np.nan), np.full(n, np.nan))
        writer.write("allwise", wise.drop_duplicates("oid_catalog"))


def build(conn, *, scale: str = "default", seed: int = 0) -> dict[str, int]:
    """Fill schema `alerce` (which must exist) with synthetic data and commit.

    Args:
        conn: psycopg 3 connection with rights to write the alerce tables.
        scale: 'tiny', 'default' or 'large' (see scales.py).
        seed: random seed; the same (scale, seed) always gives the same data.

    Returns:
        Rows written per table.
    """
    size = get_scale(scale)
    t0 = time.monotonic()
    indexes = _prepare(conn)
    writer = TableWriter(conn)
    for name, frame in bookkeeping_frames().items():
        writer.write(name, frame)
    gidx = _planted_chunk(writer, np.random.default_rng([seed, 0]), size)
    _random_chunks(writer, seed, size, gidx)
    _unlinked_allwise(writer, seed, size)
    conn.execute("SET session_replication_role = origin")
    for _, definition in indexes:
        conn.execute(definition)
    conn.commit()
    was_autocommit = conn.autocommit
    conn.autocommit = True
    try:
        conn.execute("ANALYZE")
    finally:
        conn.autocommit = was_autocommit
    writer.counts.setdefault("outlier", 0)
    log.info("built scale %s (seed %d) in %.1f s", scale, seed, time.monotonic() - t0)
    return dict(writer.counts)
