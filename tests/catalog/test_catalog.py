"""Tests for catalog: the catalog must describe exactly the production DDL in schema.sql."""

from __future__ import annotations

from pathlib import Path

import psycopg
import sqlglot
from sqlglot import exp

from catalog import load_catalog, render_ddl, render_schema_text, render_table_catalog

SQLGLOT_TO_INFORMATION_SCHEMA = {
    exp.DataType.Type.VARCHAR: "character varying",
    exp.DataType.Type.DOUBLE: "double precision",
    exp.DataType.Type.FLOAT: "real",
    exp.DataType.Type.INT: "integer",
    exp.DataType.Type.BIGINT: "bigint",
    exp.DataType.Type.SMALLINT: "smallint",
    exp.DataType.Type.BOOLEAN: "boolean",
    exp.DataType.Type.DATE: "date",
    exp.DataType.Type.TEXT: "text",
    exp.DataType.Type.ARRAY: "ARRAY",
}


def _columns_from_schema_sql(docs_dir: Path) -> set[tuple[str, str, str]]:
    """Parse the docs' schema.sql with sqlglot into (table, column, information_schema data_type) triples."""
    statements = sqlglot.parse((docs_dir / "schema.sql").read_text(encoding="utf-8"), dialect="postgres")
    creates = [s for s in statements if isinstance(s, exp.Create) and s.kind == "TABLE"]
    columns: dict[str, list[tuple[str, str]]] = {}
    partitions: dict[str, str] = {}
    for create in creates:
        if isinstance(create.this, exp.Schema):
            columns[create.this.this.name] = [
                (cd.name, SQLGLOT_TO_INFORMATION_SCHEMA[cd.args["kind"].this])
                for cd in create.this.expressions
                if isinstance(cd, exp.ColumnDef)
            ]
        else:
            partitions[create.this.name] = create.find(exp.PartitionedOfProperty).this.name
    for child, parent in partitions.items():
        columns[child] = columns[parent]
    return {(table, name, data_type) for table, cols in columns.items() for name, data_type in cols}


def _columns_from_catalog() -> set[tuple[str, str, str]]:
    return {(t.name, c.name, c.data_type) for t in load_catalog().tables for c in t.columns}


def test_catalog_matches_schema_sql(alerce_docs_dir):
    expected = _columns_from_schema_sql(alerce_docs_dir)
    assert len(expected) == 304
    assert _columns_from_catalog() == expected


def test_catalog_counts_and_keys():
    catalog = load_catalog()
    assert len(catalog.tables) == 25
    assert sum(len(table.columns) for table in catalog.tables) == 304
    assert catalog.table("MagStat").primary_key == ["oid", "fid"]
    assert catalog.table("alerce.object").name == "object"
    assert catalog.table("objects") is None
    assert catalog.table("lc_classifier").partition_of == "probability"
    assert catalog.indexed_columns("lc_classifier") == ["oid", "probability", "ranking"]
    assert catalog.indexed_columns("object") == ["ndet", "g_r_max", "g_r_mean_corr", "meanra", "meandec", "firstmjd"]


def test_every_table_and_column_is_described():
    for table in load_catalog().tables:
        assert table.description.strip(), table.name
        assert "TODO" not in table.description, table.name
        for column in table.columns:
            assert column.description.strip(), f"{table.name}.{column.name}"
            assert "TODO" not in column.description, f"{table.name}.{column.name}"


def test_render_ddl_parses_to_25_tables():
    statements = sqlglot.parse(render_ddl(load_catalog()), dialect="postgres")
    creates = [s for s in statements if isinstance(s, exp.Create) and s.kind == "TABLE"]
    assert len(creates) == 25
    assert all(create.find(exp.Table).db == "alerce" for create in creates)


def test_closest_names():
    catalog = load_catalog()
    assert "magstat" in catalog.closest_names("magstats")
    assert "detection.magpsf_corr" in catalog.closest_names("magpsf_cor")
    assert "detection.magpsf_corr" in catalog.closest_names("detection.magpsfcorr")
    assert catalog.closest_names("zzzzzz") == []


def test_render_table_catalog_has_one_line_per_table():
    lines = render_table_catalog(load_catalog()).splitlines()
    assert [line.split(":")[0] for line in lines] == load_catalog().table_names


def test_render_schema_text_restricts_tables_and_columns():
    catalog = load_catalog()
    text = render_schema_text(catalog, ["Magstat", "no_such_table"], {"magstat": ["ndet"]})
    lines = text.splitlines()
    assert lines[0].startswith("table magstat (key (oid, fid); oid -> object): ")
    assert [line.split()[0] for line in lines[1:]] == ["oid", "fid", "ndet"]
    assert "  ndet integer [idx]: " in text
    assert "table object" not in text


def test_render_schema_text_partitions_are_one_line_beside_parent():
    catalog = load_catalog()
    text = render_schema_text(catalog, ["probability", "lc_classifier"])
    assert text.splitlines()[-1].startswith("table lc_classifier: ")
    alone = render_schema_text(catalog, ["stamp_classifier"])
    assert "  ranking smallint [idx]: " in alone
    full = render_schema_text(catalog)
    assert len(full.splitlines()) == 25 + 304 - 36


def test_information_schema_equals_schema_sql(admin_dsn_tiny, alerce_docs_dir):
    """The database `db up` builds from render_ddl holds exactly the production columns."""
    with psycopg.connect(admin_dsn_tiny) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'alerce'"
        ).fetchall()
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'alerce' AND table_type = 'BASE TABLE'"
        ).fetchone()[0]
    actual = set(rows)
    expected = _columns_from_schema_sql(alerce_docs_dir)
    assert actual - expected == set()
    assert expected - actual == set()
    assert len(rows) == 304
    assert tables == 25


def test_indexes_exist(admin_dsn_tiny):
    with psycopg.connect(admin_dsn_tiny) as conn:
        names = {row[0] for row in conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'alerce'")}
    expected = {index.name for table in load_catalog().tables for index in table.indexes}
    assert len(expected) == 28
    assert expected <= names


def test_every_classifier_has_exactly_one_probability_partition():
    catalog = load_catalog()
    partitions = [table for table in catalog.tables if table.partition_of == "probability"]
    for classifier in catalog.classifiers:
        holding = [table.name for table in partitions if classifier.name in table.partition_values]
        assert len(holding) == 1, classifier.name


def test_rules_list_the_paper_classifiers_classes_and_name_the_newer_ones():
    catalog = load_catalog()
    class_list, newer = catalog.sql_rules.split("Newer classifiers: ")
    assert "  stamp_classifier: SN, AGN, VS, asteroid, bogus." in class_list
    assert "BHRF" not in class_list and "satellite" not in class_list
    named = newer.splitlines()[0]
    assert named.startswith("lc_classifier_BHRF_forced_phot (also _top, _transient, _stochastic, _periodic), ")
    assert "stamp_classifier_2025_beta;" in named
    only_theirs = "SESN, SNIIn, TDE, Microlensing, EA, EB/EW, RSCVn, RRLab, RRLc, SNIIb, satellite"
    assert named.endswith(f"classes only they have: {only_theirs}.")
