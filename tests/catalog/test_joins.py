"""Every documented join of each catalog compares columns of one type family (PostgreSQL refuses bigint = varchar).

A documented join is a foreign key or an entry of the catalog file's ``joins`` (the joins its descriptions and rules
tell the model to write). The replica's DDL is rendered from the same column types, so a join that agrees here runs
there. The multi-survey types must also be the published ones (TAP_SCHEMA, ``multisurvey/*_columns.csv``).
"""

import csv

import pytest
import sqlglot
from sqlglot import exp

from catalog import CATALOG_NAMES, load_catalog

FAMILIES = {
    "text": {"character varying", "varchar", "text", "character", "char"},
    "integer": {"smallint", "integer", "int", "bigint", "short", "long"},
    "float": {"real", "double precision", "double", "float"},
    "boolean": {"boolean"},
}
"""Types PostgreSQL compares with each other without a cast (TAP's VOTable names included)."""


def family(type_name: str) -> str:
    name = type_name.lower().strip()
    return next(key for key, members in FAMILIES.items() if name in members)


def side_type(catalog, node: exp.Expression) -> tuple[str, str]:
    """(column named, type family) of one side of an equality: a column, or a column cast to a type."""
    if isinstance(node, exp.Cast):
        column = node.this
        return f"{column.table}.{column.name}", family(node.to.sql(dialect="postgres"))
    assert isinstance(node, exp.Column), f"a documented join compares columns, not {node.sql()}"
    table = catalog.table(node.table)
    assert table is not None, f"catalog {catalog.name} has no table {node.table}"
    column = table.column(node.name)
    assert column is not None, f"{catalog.name}: {node.table} has no column {node.name}"
    return f"{table.name}.{column.name}", family(column.data_type)


def documented_joins(catalog) -> list[str]:
    joins = list(catalog.joins)
    for table in catalog.tables:
        if table.partition_of:
            continue
        for key in table.foreign_keys:
            pairs = zip(key.columns, key.ref_columns, strict=True)
            joins.append(" AND ".join(f"{table.name}.{a} = {key.ref_table}.{b}" for a, b in pairs))
    return joins


def equalities(condition: str) -> list[exp.EQ]:
    tree = sqlglot.parse_one(condition, read="postgres")
    found = list(tree.find_all(exp.EQ))
    assert found, f"no equality in {condition!r}"
    return found


@pytest.mark.parametrize("name", CATALOG_NAMES)
def test_every_documented_join_compares_one_type_family(name):
    catalog = load_catalog(name)
    mismatched = []
    for condition in documented_joins(catalog):
        for equality in equalities(condition):
            (left, left_type), (right, right_type) = (
                side_type(catalog, equality.left),
                side_type(catalog, equality.right),
            )
            if left_type != right_type:
                mismatched.append(f"{left} ({left_type}) = {right} ({right_type})")
    assert mismatched == []


def test_a_join_of_text_to_bigint_is_caught():
    catalog = load_catalog("multisurvey")
    (equality,) = equalities("xmatch.oid_catalog = gaiadr3_source.oid_catalog")
    assert side_type(catalog, equality.left)[1] != side_type(catalog, equality.right)[1]


def test_multisurvey_join_columns_have_the_published_types(alerce_docs_dir):
    with (alerce_docs_dir / "multisurvey" / "alerce_tap_columns.csv").open(encoding="utf-8") as file:
        published = {(row["table_name"], row["column_name"]): row["datatype"] for row in csv.DictReader(file)}
    catalog = load_catalog("multisurvey")
    checked, differing = 0, []
    for condition in documented_joins(catalog):
        for equality in equalities(condition):
            for node in (equality.left, equality.right):
                column = node.this if isinstance(node, exp.Cast) else node
                table = catalog.table(column.table)
                key = (table.name, column.name)
                if key not in published:
                    continue
                checked += 1
                ours = family(table.column(column.name).data_type)
                if ours != family(published[key]):
                    differing.append(f"{key}: {ours} here, {published[key]} published")
    assert checked > 20
    assert differing == []
