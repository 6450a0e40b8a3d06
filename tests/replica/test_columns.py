"""Every column of every catalog is either generated (some row of the tiny replica holds a value) or declared NULL.

A recipe declares the columns it leaves NULL on purpose (``Recipe.null_columns``); a declared column that some
row fills is a stale declaration and fails too. The replicas are those ``db up`` builds (tiny scale, seed 0).
"""

import datetime

import psycopg
import pytest
from psycopg import sql

from catalog import CATALOG_NAMES, load_catalog
from db.server import ServerInfo
from replica.replicas import recipe


def _filled_columns(dsn: str, catalog_name: str) -> tuple[set[str], set[str]]:
    """(every table.column of the catalog, those holding a value in some row) in the built database."""
    catalog = load_catalog(catalog_name)
    columns, filled = set(), set()
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table in catalog.tables:
            names = table.column_names
            counts = sql.SQL(", ").join(sql.SQL("count({})").format(sql.Identifier(name)) for name in names)
            query = sql.SQL("SELECT {} FROM {}").format(counts, sql.Identifier(catalog.schema, table.name))
            row = conn.execute(query).fetchone()
            columns |= {f"{table.name}.{name}" for name in names}
            filled |= {f"{table.name}.{name}" for name, count in zip(names, row, strict=True) if count}
    return columns, filled


@pytest.fixture(scope="module")
def built(tiny_server: ServerInfo, multisurvey_server: ServerInfo) -> dict[str, str]:
    """Admin DSN of each catalog's tiny replica."""
    return {"ztf": tiny_server.admin_dsn, "multisurvey": multisurvey_server.admin_dsn}


@pytest.mark.parametrize("catalog_name", CATALOG_NAMES)
def test_every_column_is_generated_or_declared_null(built: dict[str, str], catalog_name: str) -> None:
    columns, filled = _filled_columns(built[catalog_name], catalog_name)
    declared = recipe(catalog_name).null_columns
    assert declared <= columns, f"declared NULL but not in the catalog: {sorted(declared - columns)}"
    missing = sorted(columns - filled - declared)
    assert missing == [], f"neither generated nor declared NULL: {missing}"
    assert sorted(declared & filled) == [], "declared NULL but generated"


@pytest.mark.parametrize("catalog_name", CATALOG_NAMES)
def test_every_domain_of_the_catalog_is_a_range_with_a_step(catalog_name: str) -> None:
    catalog = load_catalog(catalog_name)
    domains = {f"{t.name}.{c.name}": c.domain for t in catalog.tables for c in t.columns if c.domain is not None}
    assert domains
    bad = {key: d for key, d in domains.items() if not (d[0] < d[1] and d[2] > 0 and d[3] >= 0)}
    assert bad == {}
    if catalog.data_end is not None:  # grounded epochs stay before the data's end
        end_mjd = (catalog.data_end - datetime.date(1858, 11, 17)).days
        epochs = {f"{t.name}.{c.name}" for t in catalog.tables for c in t.columns if c.ucd == "time.epoch"}
        late = {key: d for key, d in domains.items() if key in epochs and d[1] >= end_mjd}
        assert late == {}
