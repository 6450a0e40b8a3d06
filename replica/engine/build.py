"""Fill a catalog's schema with its recipe's rows, grounded on gold queries: the one build loop of every replica."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np
import psycopg
from psycopg import sql

from catalog import load_catalog
from replica.engine.grounding.conflicts import clear_base_rows
from replica.engine.grounding.density import answers_many, unanswered
from replica.engine.grounding.entities import entities_for_queries, literal_oids
from replica.engine.grounding.report import GroundingReport
from replica.engine.grounding.thinning import thin_unordered_limits
from replica.engine.loader import Loader
from replica.engine.recipe import Recipe, fixed_frames, scale_named
from replica.engine.schema_ops import analyze, create_indexes, prepare, row_counts
from replica.engine.writer import TableWriter

__all__ = ["build", "ground_queries", "loader_for"]

log = logging.getLogger(__name__)


def loader_for(conn: psycopg.Connection, recipe: Recipe) -> Loader:
    """A loader writing the recipe's rows into its catalog's schema through ``conn``."""
    catalog = load_catalog(recipe.catalog)
    return Loader(TableWriter(conn, catalog.schema, recipe.decimals), catalog.table_names, recipe.drawn)


def build(
    conn: psycopg.Connection, recipe: Recipe, *, scale: str, seed: int, ground: Sequence[str] = ()
) -> dict[str, int]:
    """Fill the catalog's schema (its tables must exist) with the recipe's rows and commit.

    Args:
        conn: A connection with rights to write the schema's tables.
        recipe: The catalog's generator.
        scale: One of the recipe's scales.
        seed: Random seed; the same (scale, seed, ground) always gives the same rows.
        ground: Gold queries whose answers (and near misses) are added on top of the random population (see
            ``ground_queries``; grounded queries still without rows are named in one warning line each).

    Returns:
        Rows per table.
    """
    size = scale_named(recipe.scales, scale)
    schema = load_catalog(recipe.catalog).schema
    started = time.monotonic()
    queries = list(ground)
    indexes = prepare(conn, schema)
    loader = loader_for(conn, recipe)
    loader.write({**fixed_frames(recipe.catalog), **recipe.fixed_rows()})
    read_started = time.monotonic()
    reserved = literal_oids(queries, recipe.profile)  # reads (and caches) every query's worlds: it counts as grounding
    read_s = time.monotonic() - read_started
    recipe.populate(loader, seed, size, reserved)
    report = ground_queries(conn, recipe, queries, seed=seed, scale=scale, loader=loader) if queries else None
    create_indexes(conn, indexes)
    if report is not None:
        _check_answers(conn, report, read_s)
    conn.execute("SET session_replication_role = origin")  # foreign-key triggers stay off until here
    conn.commit()
    analyze(conn)
    log.info("built %s scale %s (seed %d) in %.1f s", recipe.catalog, scale, seed, time.monotonic() - started)
    return row_counts(conn, schema)


def ground_queries(
    conn: psycopg.Connection,
    recipe: Recipe,
    queries: list[str],
    *,
    seed: int,
    scale: str,
    loader: Loader | None = None,
) -> GroundingReport:
    """Add the entities grounded on ``queries`` to the data in the catalog's schema, then thin unordered LIMITs.

    Runs inside the caller's transaction, before the indexes are rebuilt. A query that cannot be grounded is
    skipped and reported (see ``GroundingReport``); grounded rows respect every key of the catalog.

    Args:
        conn: A connection with rights to write the schema's tables.
        recipe: The catalog's generator.
        queries: Gold queries (PostgreSQL, unqualified table names).
        seed: Random seed of the build (the grounded rows draw from their own stream of it).
        scale: The build's scale.
        loader: The build's loader (default: a new one on ``conn``).
    """
    profile = recipe.profile
    started = time.monotonic()
    conn.execute(sql.SQL("SET search_path TO {}, public").format(sql.Identifier(profile.schema)))
    plan = entities_for_queries(queries, profile, lambda query: answers_many(conn, query))
    chosen = time.monotonic()
    size = scale_named(recipe.scales, scale)
    tables = recipe.grounded_tables(plan.entities, np.random.default_rng([seed, 4]), size)
    clear_base_rows(conn, tables, profile)
    (loader or loader_for(conn, recipe)).write_grounded(tables)
    written = time.monotonic()
    thinned = thin_unordered_limits(conn, queries, {e.oid for e in plan.entities if e.needs_object}, profile)
    stages = {"entities": chosen - started, "rows": written - chosen, "thinning": time.monotonic() - written}
    return GroundingReport(queries, plan.skipped, entities=len(plan.entities), thinned=thinned, stages_s=stages)


def _check_answers(conn: psycopg.Connection, report: GroundingReport, read_s: float) -> None:
    """Find the grounded queries still without rows (fast once indexed), then log the grounding's summary.

    ``read_s`` is the time already spent reading the queries (their literal oids), reported with the stages.
    """
    started = time.monotonic()
    report.unanswered = unanswered(conn, report.grounded)
    report.stages_s = {"reading": read_s, **report.stages_s, "checking": time.monotonic() - started}
    log.debug("grounding: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in report.stages_s.items()))
    log.info(report.summary(), extra={"grounding_s": {k: round(v, 2) for k, v in report.stages_s.items()}})
