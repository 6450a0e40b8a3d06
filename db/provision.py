"""Create and fill one database per (catalog, scale): schema, q3c, synthetic data, the read-only role and a marker.

Each catalog's database holds its own schema (``alerce`` for ztf, ``alerce_tap`` for multisurvey), and the reader's
search_path in it names that schema, so the program's unqualified table names resolve to the catalog asked about.
The marker is the one-row table ``meta.build_info``: the catalog's schema holds only its tables, so the
bookkeeping lives in schema ``meta``. A database whose marker is missing (interrupted build) or whose checksum
differs (the DDL, the generator or the q3c fallback changed) is dropped and built again.

The reader role's settings, its grants and the revoked functions are applied again on every call, so a database
built by an older version gets the current protections without a rebuild.
"""

import datetime
import hashlib
import importlib.util
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from catalog import load_catalog, render_ddl
from db.cluster import READER_ROLE
from db.q3c import FALLBACK_SQL_PATH, install_q3c
from defaults.catalog import DEFAULT_CATALOG
from engines.guard import (
    DENIED_FUNCTION_FRAGMENTS,
    DENIED_FUNCTION_PREFIXES,
    DENIED_FUNCTIONS,
    DENIED_RELATION_PREFIXES,
    DENIED_RELATIONS,
)
from replica.engine.grounding.sources import grounding_digest
from replica.replicas import build_replica

logger = logging.getLogger(__name__)

DATABASE_NAMES = {
    ("ztf", "tiny"): "alerce_tiny",
    ("ztf", "default"): "alerce",
    ("ztf", "large"): "alerce_large",
    ("multisurvey", "tiny"): "alerce_multisurvey_tiny",
    ("multisurvey", "default"): "alerce_multisurvey",
}
"""The database of each (catalog, scale)."""
BUILD_LOCK_KEY = 0x0A1E_7C52  # pg_advisory_lock key serialising builds across processes

READER_CONNECTION_LIMIT = 32
READER_SETTINGS = {
    "default_transaction_read_only": "on",
    "statement_timeout": "5min",
    "idle_in_transaction_session_timeout": "5min",
    "temp_file_limit": "1GB",
    "work_mem": "16MB",
    # the executor reads whole results through a server-side cursor: planned for its first 10 % of rows (the
    # default), a join with a subquery whose rows are underestimated becomes a nested loop ten times slower
    "cursor_tuple_fraction": "1",
}
"""Settings of ``alerce_reader`` at login (the executor's per-query statement_timeout overrides the backstop)."""
REVOKED_FUNCTIONS = tuple(sorted(DENIED_FUNCTIONS - {"set_config"}))
"""The guard's denied functions (every signature in pg_catalog, dblink in any schema) lose EXECUTE for PUBLIC in each
database, with its prefixes and fragments; set_config stays, as the executor sets each query's timeout with it.
Nothing is granted back: even if a query got past the guard, the reader could not signal backends, hold advisory
locks, touch large objects, notify, read files, run SQL text (``query_to_xml*``, ``cursor_to_xml*``, ``ts_stat``),
sleep, seed ``random()`` for the next user of its pooled session, see other sessions (their query text, locks,
progress) or run XML functions (uncancellable libxml2 work). The ``xml`` type's input and output functions are
revoked too, but PostgreSQL does not check EXECUTE on them. The guard's denied views lose SELECT for PUBLIC."""
_REVOKED_SIGNATURES_SQL = """
SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE (n.nspname = 'pg_catalog' OR p.proname LIKE 'dblink%%')
  AND (p.proname = ANY(%s)
       OR EXISTS (SELECT 1 FROM unnest(%s::text[]) AS f(prefix) WHERE starts_with(p.proname, prefix))
       OR EXISTS (SELECT 1 FROM unnest(%s::text[]) AS f(fragment) WHERE strpos(p.proname, fragment) > 0))
ORDER BY 1
"""
_REVOKED_VIEWS_SQL = """
SELECT 'pg_catalog.' || quote_ident(c.relname) FROM pg_catalog.pg_class c
WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'v'
  AND (c.relname = ANY(%s)
       OR EXISTS (SELECT 1 FROM unnest(%s::text[]) AS f(prefix) WHERE starts_with(c.relname, prefix)))
ORDER BY 1
"""

_BUILD_INFO_COLUMNS_SQL = """
SELECT column_name FROM information_schema.columns WHERE table_schema = 'meta' AND table_name = 'build_info'
"""
META_DDL = """
CREATE SCHEMA meta;
CREATE TABLE meta.build_info (
    scale text NOT NULL, seed integer NOT NULL, built_at timestamptz NOT NULL, checksum text NOT NULL,
    q3c text NOT NULL, row_counts jsonb NOT NULL, grounding text NOT NULL, grounded_queries integer NOT NULL
);
COMMENT ON TABLE meta.build_info IS 'alerce-t2s: how this database was built (one row)';
"""


@dataclass(frozen=True, kw_only=True)
class BuildInfo:
    """How one database was built (the row of ``meta.build_info``)."""

    database: str
    catalog: str
    scale: str
    seed: int
    built_at: datetime.datetime
    checksum: str
    q3c: str
    row_counts: dict[str, int]
    grounding: str = ""
    grounded_queries: int = 0


def database_name(scale: str, catalog: str = DEFAULT_CATALOG) -> str:
    """Return the database of a catalog's scale (``alerce``, ``alerce_tiny``, ``alerce_multisurvey``, ...)."""
    return DATABASE_NAMES[(catalog, scale)]


def database_catalog(name: str) -> str:
    """Return the catalog whose data the database called `name` holds.

    Raises:
        ValueError: `name` is not one of `DATABASE_NAMES`.
    """
    for (catalog, _), database in DATABASE_NAMES.items():
        if database == name:
            return catalog
    raise ValueError(f"{name!r} is not an embedded database; they are {', '.join(DATABASE_NAMES.values())}.")


def build_checksum(ddl: str) -> str:
    """Fingerprint what a database is built from: the DDL, the q3c fallback, the generator and the catalogs."""
    digest = hashlib.sha256(ddl.encode())
    digest.update(FALLBACK_SQL_PATH.read_bytes())
    for package in ("replica", "catalog"):
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted([*Path(location).rglob("*.py"), *Path(location).rglob("*.yaml")]):
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def provision_database(
    admin_dsn: str, *, scale: str, seed: int | None, ground: Sequence[str] | None = None, catalog: str = DEFAULT_CATALOG
) -> BuildInfo:
    """Make sure the database of the catalog's scale exists and is built, building it if needed.

    Args:
        admin_dsn: Superuser DSN for the ``postgres`` maintenance database.
        scale: One of the catalog's replica scales.
        seed: Generator seed; None accepts any existing build and builds with seed 0.
        ground: Gold queries to ground the data on; None accepts any existing grounding (none for a new build).
        catalog: Whose database (``ztf`` or ``multisurvey``).

    Returns:
        The build info of the (possibly new) database.
    """
    ddl = render_ddl(load_catalog(catalog))
    checksum = build_checksum(ddl)
    name = database_name(scale, catalog)
    digest = grounding_digest(list(ground)) if ground else ""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (BUILD_LOCK_KEY,))
        _ensure_reader_role(conn)
        existing = read_build_info(admin_dsn, name)
        if (
            existing
            and existing.checksum == checksum
            and seed in (None, existing.seed)
            and (ground is None or existing.grounding == digest)
        ):
            logger.debug("database %s is built (scale %s, seed %d)", name, existing.scale, existing.seed)
            with psycopg.connect(_with_dbname(admin_dsn, name)) as built:
                _grant_reader(built, name, catalog)
            return existing
        if existing:
            logger.info("rebuilding database %s: its build is out of date, or has another seed or grounding", name)
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(name)))
        started = time.monotonic()
        target = _Target(dsn=_with_dbname(admin_dsn, name), catalog=catalog, ddl=ddl, checksum=checksum)
        info = _build(target, scale=scale, seed=seed or 0, ground=ground or ())
    rows = sum(info.row_counts.values())
    logger.info("built database %s in %.1f s (%d rows)", name, time.monotonic() - started, rows)
    return info


def read_build_info(admin_dsn: str, name: str) -> BuildInfo | None:
    """Return the build info of database ``name``, or None if it does not exist or was not fully built."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,)).fetchone()
    if not row or not row[0]:
        return None
    return database_build_info(_with_dbname(admin_dsn, name))


def database_build_info(dsn: str) -> BuildInfo | None:
    """Return the build info of the database `dsn` connects to, or None if it was not fully built.

    Any role that may read ``meta.build_info`` can ask, the reader too (it cannot list the databases).

    Raises:
        psycopg.OperationalError: The database cannot be reached (server stopped, database dropped).
    """
    with psycopg.connect(dsn, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('meta.build_info')").fetchone()[0] is None:
            return None
        columns = {r[0] for r in conn.execute(_BUILD_INFO_COLUMNS_SQL).fetchall()}
        if not {"grounding", "grounded_queries"} <= columns:
            return None
        row = conn.execute(
            "SELECT scale, seed, built_at, checksum, q3c, row_counts, grounding, grounded_queries FROM meta.build_info"
        ).fetchone()
    if row is None:
        return None
    return _build_info(psycopg.conninfo.conninfo_to_dict(dsn)["dbname"], row)


def _build_info(name: str, row: tuple) -> BuildInfo:
    """BuildInfo of database ``name`` from a meta.build_info row (in its column order)."""
    scale, seed, built_at, checksum, q3c, counts, grounding, grounded = row
    return BuildInfo(
        database=name,
        catalog=database_catalog(name),
        scale=scale,
        seed=seed,
        built_at=built_at,
        checksum=checksum,
        q3c=q3c,
        row_counts=counts,
        grounding=grounding,
        grounded_queries=grounded,
    )


@dataclass(frozen=True, kw_only=True)
class _Target:
    """The database a build fills: its admin DSN, catalog, the catalog's DDL and the build checksum."""

    dsn: str
    catalog: str
    ddl: str
    checksum: str


def _build(target: _Target, *, scale: str, seed: int, ground: Sequence[str]) -> BuildInfo:
    name = psycopg.conninfo.conninfo_to_dict(target.dsn)["dbname"]
    logger.info("building database %s (%s, scale %s, seed %d)", name, target.catalog, scale, seed)
    checksum = target.checksum
    with psycopg.connect(target.dsn) as conn:
        q3c = install_q3c(conn)
        conn.execute(target.ddl)
        if q3c == "extension":
            _create_q3c_indexes(conn, target.catalog)
        replica = build_replica(conn, catalog=target.catalog, scale=scale, seed=seed, ground=ground)
        counts = {table: int(count) for table, count in replica.items()}
        conn.execute(META_DDL)
        built_at = datetime.datetime.now(datetime.UTC)
        digest = grounding_digest(list(ground)) if ground else ""
        row = (scale, seed, built_at, checksum, q3c, counts, digest, len(set(ground)))
        conn.execute(
            "INSERT INTO meta.build_info VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (*row[:5], json.dumps(counts), *row[6:]),
        )
        _grant_reader(conn, name, target.catalog)
        conn.commit()
    return _build_info(name, row)


def _create_q3c_indexes(conn: psycopg.Connection, catalog_name: str) -> None:
    catalog = load_catalog(catalog_name)
    for table, (ra, dec) in catalog.positions.items():
        if conn.execute("SELECT to_regclass(%s)", (f"{catalog.schema}.{table}",)).fetchone()[0] is not None:
            conn.execute(
                sql.SQL("CREATE INDEX ON {} (public.q3c_ang2ipix({}, {}))").format(
                    sql.Identifier(catalog.schema, table), sql.Identifier(ra), sql.Identifier(dec)
                )
            )


def _ensure_reader_role(conn: psycopg.Connection) -> None:
    """Create the reader role if missing, (re)apply its limits and keep it out of the maintenance databases."""
    role = sql.Identifier(READER_ROLE)
    if conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", (READER_ROLE,)).fetchone()[0] == 0:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
    conn.execute(
        sql.SQL(
            "ALTER ROLE {} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT {}"
        ).format(role, sql.Literal(READER_CONNECTION_LIMIT))
    )
    for setting, value in READER_SETTINGS.items():
        conn.execute(sql.SQL("ALTER ROLE {} SET {} = {}").format(role, sql.Identifier(setting), sql.Literal(value)))
    for database in ("postgres", "template1"):
        conn.execute(sql.SQL("REVOKE CONNECT ON DATABASE {} FROM PUBLIC").format(sql.Identifier(database)))


def _grant_reader(conn: psycopg.Connection, name: str, catalog: str) -> None:
    """Grant the reader what it needs in database `name` and revoke dangerous functions.

    The reader may connect and read the catalog's tables, found by their bare names through the search_path.
    """
    database, role = sql.Identifier(name), sql.Identifier(READER_ROLE)
    schema = sql.Identifier(load_catalog(catalog).schema)
    for statement in (
        "REVOKE ALL ON DATABASE {database} FROM PUBLIC",
        "GRANT CONNECT ON DATABASE {database} TO {role}",
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
        "GRANT USAGE ON SCHEMA {schema}, public, meta TO {role}",
        "GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}",
        "GRANT SELECT ON meta.build_info TO {role}",
        "ALTER DATABASE {database} SET search_path TO {schema}, public",
    ):
        conn.execute(sql.SQL(statement).format(database=database, role=role, schema=schema))
    patterns = (list(REVOKED_FUNCTIONS), list(DENIED_FUNCTION_PREFIXES), list(DENIED_FUNCTION_FRAGMENTS))
    signatures = [row[0] for row in conn.execute(_REVOKED_SIGNATURES_SQL, patterns)]
    functions = sql.SQL(", ").join(sql.SQL(signature) for signature in signatures)
    conn.execute(sql.SQL("REVOKE EXECUTE ON FUNCTION {} FROM PUBLIC").format(functions))
    view_patterns = (sorted(DENIED_RELATIONS), list(DENIED_RELATION_PREFIXES))
    views = [row[0] for row in conn.execute(_REVOKED_VIEWS_SQL, view_patterns)]
    relations = sql.SQL(", ").join(sql.SQL(view) for view in views)
    conn.execute(sql.SQL("REVOKE SELECT ON {} FROM PUBLIC").format(relations))


def _with_dbname(dsn: str, name: str) -> str:
    return psycopg.conninfo.make_conninfo(dsn, dbname=name)
