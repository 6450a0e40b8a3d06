"""Delete base objects that stand in the way of grounded rows: those holding their keys, and those filling a LIMIT.

Gold results stay well defined: a LIMIT without ORDER BY must see fewer qualifying rows than it allows. For every
such LIMIT in a grounded query, the limited SELECT is run without its limit, counting rows per object; while the
count reaches the limit, whole base (non-grounded) objects among them are deleted from every table (deleting whole
objects keeps every invariant of the generator).

Grounded rows take the place of the base rows that hold their keys, so that writing them breaks no key. The builder
keeps the base population clear of grounded keys (it never draws an oid a query names, and grounded names and
candids have ranges of their own), so in a fresh build only a chance AllWISE designation is replaced; grounding onto
any other database relies on this step.
"""

import logging

import pandas as pd
import psycopg
import sqlglot
from sqlglot import exp

from catalog import load_catalog
from replica.engine.grounding.constraints import catalog_column, primary_key
from replica.engine.grounding.density import guarded, rows_within
from replica.engine.grounding.profile import Profile

__all__ = ["clear_base_rows", "thin_unordered_limits"]

logger = logging.getLogger(__name__)

_TIMEOUT_MS = 20_000


def clear_base_rows(conn: psycopg.Connection, tables: dict[str, pd.DataFrame], profile: Profile) -> None:
    """Delete what the database holds under the keys of the grounded rows about to be written.

    A base object named like a grounded object is deleted whole; in a table keyed by one column other than oid
    (AllWISE sources), the base row with a grounded key is deleted. ``conn`` is the builder's, inside the build
    transaction.
    """
    schema = profile.schema
    oids = tables["object"]["oid"].tolist() if "object" in tables else []
    taken = [row[0] for row in conn.execute(f"SELECT oid FROM {schema}.object WHERE oid = ANY(%s)", (oids,))]
    if taken:
        logger.info("%d base objects replaced by grounded objects of the same oid", len(taken))
        _delete_objects(conn, sorted(taken), profile)
    for name, frame in tables.items():
        key = primary_key(name, profile.catalog)
        if len(key) == 1 and key != ("oid",) and not frame.empty:
            conn.execute(f"DELETE FROM {schema}.{name} WHERE {key[0]} = ANY(%s)", (frame[key[0]].tolist(),))


def thin_unordered_limits(conn: psycopg.Connection, queries: list[str], keep: set, profile: Profile) -> int:
    """Delete base objects until each unordered LIMIT of ``queries`` has headroom; return how many were deleted.

    ``keep`` holds the oids of grounded objects, never deleted. Deletions are collected over all queries and made
    once per table at the end, by the builder's ``conn`` (search_path on the catalog's schema) inside the build
    transaction.
    """
    victims: set = set()
    for sql in queries:
        for counting, limit in _counting_queries(sql, profile):
            rows = rows_within(conn, counting, _TIMEOUT_MS, sql)
            if rows is None:
                continue
            per_oid = {oid: int(n) for oid, n in rows if oid not in victims}
            total = sum(per_oid.values())
            before = len(victims)
            for oid, count in sorted(per_oid.items(), key=lambda item: (-item[1], item[0])):
                if total < limit:
                    break
                if oid not in keep:
                    victims.add(oid)
                    total -= count
            if total >= limit:
                logger.info("grounded rows alone reach LIMIT %d of: %.70s", limit, " ".join(sql.split()))
            logger.debug("LIMIT %d: %d objects thinned for %.60s", limit, len(victims) - before, " ".join(sql.split()))
    if victims:
        _delete_objects(conn, sorted(victims), profile)
    return len(victims)


def _counting_queries(sql: str, profile: Profile) -> list[tuple[str, int]]:
    """(rows-per-object query, limit) for each LIMIT whose SELECT has no ORDER BY (none if the guard refuses it)."""
    statement = guarded(sql)
    if statement is None:
        return []
    tree = sqlglot.parse_one(statement, read="postgres")  # the guard parsed it already: no parse error
    out = []
    for select in tree.find_all(exp.Select):
        limit = select.args.get("limit")
        if limit is None or select.args.get("order") is not None or select.args.get("group") is not None:
            continue
        try:
            n = int(limit.expression.name)
        except (AttributeError, ValueError):
            continue
        oid = _oid_expression(select, profile)
        if oid is None:
            continue
        unlimited = select.copy()
        unlimited.set("limit", None)
        unlimited.set("expressions", [exp.alias_(oid, "oid")])
        counting = f"SELECT oid, count(*) FROM ({unlimited.sql(dialect='postgres')}) AS s GROUP BY oid"
        out.append((counting, n))
    return out


def _oid_expression(select: exp.Select, profile: Profile) -> exp.Expression | None:
    for projection in select.expressions:
        if projection.alias_or_name in profile.identity and not isinstance(projection, exp.Star):
            return projection.unalias()
    if any(isinstance(p, exp.Star) or isinstance(p.this, exp.Star) for p in select.expressions):
        for source in [select.args.get("from_"), *(select.args.get("joins") or [])]:
            table = source.this if source is not None else None
            if isinstance(table, exp.Table):
                owner = next((c for c in profile.identity if catalog_column(table.name, c, profile.catalog)), None)
                if owner is not None:
                    return exp.column(owner, table=table.alias_or_name)
            if isinstance(table, exp.Subquery) and table.alias:
                return exp.column("oid", table=table.alias)
    return None


def _delete_objects(conn: psycopg.Connection, oids: list, profile: Profile) -> None:
    """Delete whole objects from every table of the profile's catalog, children first (the catalog's order reversed).

    The database holds every table of the catalog (the engine makes them from it). A row belongs to an object through
    any of the profile's identity columns. The oids go to a temporary table that each DELETE joins (a hash join, not
    an array scan per row).
    """
    catalog = load_catalog(profile.catalog)
    oid_type = catalog.table("object").column("oid").sql_type
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS _deleted_oids (oid {oid_type} PRIMARY KEY) ON COMMIT DROP")
    conn.execute("TRUNCATE _deleted_oids")
    with conn.cursor().copy("COPY _deleted_oids (oid) FROM STDIN") as copy:
        for oid in oids:
            copy.write_row((oid,))
    conn.execute("ANALYZE _deleted_oids")
    for table in (t for t in reversed(catalog.tables) if not t.partition_of):
        for column in (c for c in profile.identity if c in table.column_names):
            where = f"t.{column} = v.oid"
            conn.execute(f"DELETE FROM {profile.schema}.{table.name} AS t USING _deleted_oids AS v WHERE {where}")
