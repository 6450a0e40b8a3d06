"""Fill a catalog's schema with its recipe's rows, grounded on gold queries: the one build loop of every replica."""

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import psycopg
from psycopg import sql

from catalog import Catalog, load_catalog
from replica.engine.grounding.density import answers_many, unanswered
from replica.engine.grounding.entities import Skipped, entities_for_queries, literal_oids
from replica.engine.grounding.thinning import clear_base_rows, thin_unordered_limits
from replica.engine.loader import Loader
from replica.engine.recipe import Recipe, fixed_frames

__all__ = ["GroundingReport", "build", "ground_queries"]

log = logging.getLogger(__name__)

_SECONDARY_INDEXES = """
SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = %s
WHERE c.relkind IN ('i', 'I')
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)
  AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = c.oid)
ORDER BY 1
"""


@dataclass
class GroundingReport:
    """The queries grounded on, those skipped (with why), those still without rows, and the time per stage.

    Example:
        >>> report = GroundingReport(["q1", "q2", "q3"], [Skipped("q2", "it cannot be read")], entities=9)
        >>> report.grounded
        ['q1', 'q3']
        >>> report.unanswered = ["q3"]
        >>> report.summary()
        'grounded 2 of 3 queries (1 skipped, 1 without rows): 9 entities, 0 base objects thinned, 0.0 s'
    """

    queries: list[str]
    skipped: list[Skipped]
    entities: int = 0
    thinned: int = 0
    unanswered: list[str] = field(default_factory=list)
    stages_s: dict[str, float] = field(default_factory=dict)

    @property
    def grounded(self) -> list[str]:
        """The queries that were not skipped, in order."""
        skipped = {s.query for s in self.skipped}
        return [query for query in self.queries if query not in skipped]

    def summary(self) -> str:
        """One line: how many queries were grounded, skipped and left without rows, and what it took."""
        return (
            f"grounded {len(self.grounded)} of {len(self.queries)} queries ({len(self.skipped)} skipped, "
            f"{len(self.unanswered)} without rows): {self.entities} entities, {self.thinned} base objects thinned, "
            f"{sum(self.stages_s.values()):.1f} s"
        )


def build(
    conn: psycopg.Connection, recipe: Recipe, *, scale: str, seed: int, ground: Sequence[str] = ()
) -> dict[str, int]:
    """Fill the catalog's tables (they must exist) with the recipe's rows, commit and vacuum; return rows per table.

    The same (scale, seed, ground) always gives the same rows. The answers (and near misses) of the gold queries
    ``ground`` are added on top of the random population (see ``ground_queries``); grounded queries still without
    rows are named in one warning line each.
    """
    size = recipe.scale(scale)
    catalog = load_catalog(recipe.catalog)
    started = time.monotonic()
    queries = list(ground)
    indexes = _prepare(conn, catalog)
    loader = Loader(conn, recipe.catalog, recipe.decimals, recipe.drawn)
    loader.write({**fixed_frames(recipe.catalog), **recipe.fixed_rows()})
    read_started = time.monotonic()
    reserved = literal_oids(queries, recipe.profile)  # reads (and caches) every query's worlds: it counts as grounding
    read_s = time.monotonic() - read_started
    recipe.populate(loader, seed, size, reserved)
    report = ground_queries(conn, recipe, queries, seed=seed, scale=scale) if queries else None
    for definition in indexes:
        conn.execute(definition)
    if report is not None:
        _check_answers(conn, report, read_s)
    conn.execute("SET session_replication_role = origin")  # foreign-key triggers stay off until here
    conn.commit()
    _vacuum(conn)
    log.info("built %s scale %s (seed %d) in %.1f s", recipe.catalog, scale, seed, time.monotonic() - started)
    return _row_counts(conn, catalog)


def ground_queries(
    conn: psycopg.Connection, recipe: Recipe, queries: list[str], *, seed: int, scale: str
) -> GroundingReport:
    """Add the entities grounded on ``queries`` to the data in the catalog's schema, then thin unordered LIMITs.

    Runs inside the caller's transaction, before the indexes are rebuilt. A query that cannot be grounded is
    skipped and reported (see ``GroundingReport``); grounded rows respect every key of the catalog. The gold
    queries are PostgreSQL with unqualified table names; the grounded rows draw from their own stream of ``seed``.
    """
    profile = recipe.profile
    started = time.monotonic()
    conn.execute(sql.SQL("SET search_path TO {}, public").format(sql.Identifier(profile.schema)))
    plan = entities_for_queries(queries, profile, lambda query: answers_many(conn, query))
    chosen = time.monotonic()
    tables = recipe.grounded_tables(plan.entities, np.random.default_rng([seed, 4]), recipe.scale(scale))
    clear_base_rows(conn, tables, profile)
    Loader(conn, recipe.catalog, recipe.decimals, recipe.drawn).write_grounded(tables)
    written = time.monotonic()
    thinned = thin_unordered_limits(conn, queries, {e.oid for e in plan.entities if e.needs_object}, profile)
    stages = {"entities": chosen - started, "rows": written - chosen, "thinning": time.monotonic() - written}
    return GroundingReport(queries, plan.skipped, entities=len(plan.entities), thinned=thinned, stages_s=stages)


def _check_answers(conn: psycopg.Connection, report: GroundingReport, read_s: float) -> None:
    """Find the grounded queries still without rows (fast once indexed); log the summary and each stage's time.

    ``read_s`` is the time already spent reading the queries (their literal oids), reported as the first stage.
    """
    started = time.monotonic()
    report.unanswered = unanswered(conn, report.grounded)
    report.stages_s = {"reading": read_s, **report.stages_s, "checking": time.monotonic() - started}
    log.debug("grounding: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in report.stages_s.items()))
    log.info(report.summary(), extra={"grounding_s": {k: round(v, 2) for k, v in report.stages_s.items()}})


def _prepare(conn: psycopg.Connection, catalog: Catalog) -> list[str]:
    """Empty the catalog's tables, switch foreign-key triggers off if allowed and drop its secondary indexes.

    Returns:
        The definitions of the dropped indexes, to run again after the load.
    """
    schema = catalog.schema
    names = sql.SQL(", ").join(sql.Identifier(schema, table) for table in catalog.table_names)
    conn.execute(sql.SQL("TRUNCATE {} CASCADE").format(names))
    indexes = conn.execute(_SECONDARY_INDEXES, (schema,)).fetchall()
    for name, _ in indexes:
        conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(schema, name)))
    try:
        with conn.transaction():
            conn.execute("SET session_replication_role = replica")
    except psycopg.Error:
        log.info("cannot disable foreign-key triggers (not a superuser); loading with checks")
    return [definition for _, definition in indexes]


def _vacuum(conn: psycopg.Connection) -> None:
    """VACUUM (ANALYZE) the database (outside a transaction): planner statistics and a visibility map for reads."""
    was_autocommit = conn.autocommit
    conn.autocommit = True
    try:
        conn.execute("VACUUM (ANALYZE)")
    finally:
        conn.autocommit = was_autocommit


def _row_counts(conn: psycopg.Connection, catalog: Catalog) -> dict[str, int]:
    """The number of rows of each table of the catalog, by name (a partitioned table counts its partitions' rows)."""
    query = sql.SQL("SELECT count(*) FROM {}")
    tables = sorted(table.name for table in catalog.tables if not table.partition_of)
    return {table: conn.execute(query.format(sql.Identifier(catalog.schema, table))).fetchone()[0] for table in tables}
