"""The multi-survey catalog file: loadable by the catalog loader and consistent in itself."""

from pathlib import Path

import pytest
import yaml

from catalog import load_catalog, render_ddl
from catalog.dachs_rd import render_rd

CATALOG_YAML = Path(__file__).resolve().parents[2] / "catalog" / "multisurvey.yaml"
TAP_TABLES = {
    "object", "detection", "forced_photometry", "xmatch", "allwise", "gaiadr3_source", "feature", "probability",
    "lsst_detection", "lsst_ss_detection", "lsst_forced_photometry", "lsst_dia_object", "lsst_mpc_orbits",
    "sid_lut", "band", "catalog_id_lut", "feature_name_lut", "feature_version_lut", "classifier", "taxonomy",
}  # fmt: skip


@pytest.fixture(scope="module")
def raw() -> dict:
    return yaml.safe_load(CATALOG_YAML.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def catalog():
    return load_catalog("multisurvey")


def test_names_the_catalog_and_its_schemas(raw: dict) -> None:
    assert (raw["name"], raw["schema"], raw["tap_schema"]) == ("multisurvey", "alerce_tap", "alerce_tap")


def test_holds_exactly_the_tables_tap_publishes(catalog) -> None:
    assert set(catalog.table_names) == TAP_TABLES


def test_column_names_are_lower_case_and_unique(catalog) -> None:
    for table in catalog.tables:
        assert all(name == name.lower() for name in table.column_names), table.name
        assert len(set(table.column_names)) == len(table.column_names), table.name


def test_keys_and_indexes_name_existing_columns(catalog) -> None:
    for table in catalog.tables:
        for name in table.primary_key:
            assert not table.column(name).nullable, (table.name, name)
        for index in table.indexes:
            assert set(index.columns) <= set(table.column_names), (table.name, index.name)
        for fk in table.foreign_keys:
            referenced = catalog.table(fk.ref_table)
            assert set(fk.columns) <= set(table.column_names), (table.name, fk.name)
            assert list(fk.ref_columns) == referenced.primary_key, (table.name, fk.name)
            assert catalog.table_names.index(fk.ref_table) < catalog.table_names.index(table.name)


def test_categorical_columns_and_positions_exist(raw: dict, catalog) -> None:
    for table, column in raw["categorical"]:
        assert catalog.table(table).column(column) is not None, (table, column)
    for table, ra, dec in raw["positions"]:
        assert {ra, dec} <= set(catalog.table(table).column_names), table


def test_fluxes_carry_njy(catalog) -> None:
    for table in ("lsst_detection", "lsst_forced_photometry"):
        for column in ("psfflux", "psffluxerr", "scienceflux", "sciencefluxerr"):
            assert catalog.table(table).column(column).unit == "nJy", (table, column)
    assert catalog.table("lsst_dia_object").column("r_psffluxmean").unit == "nJy"


def test_sql_rules_state_the_newcomer_facts(raw: dict) -> None:
    rules = raw["sql_rules"]
    for fact in ("(oid, sid)", "(oid, sid, measurement_id)", "31.4 - 2.5", "202", "ztf schema", "ranking = 1"):
        assert fact in rules, fact


def test_renders_ddl_for_its_schema(catalog) -> None:
    ddl = render_ddl(catalog)
    assert ddl.startswith("CREATE SCHEMA IF NOT EXISTS alerce_tap;")
    assert ddl.count("CREATE TABLE alerce_tap.") == 20


def test_codes_name_columns_of_both_tables(catalog) -> None:
    assert catalog.codes
    for code in catalog.codes:
        table, lookup = catalog.table(code.table), catalog.table(code.lookup)
        assert table.column(code.column) is not None, code
        assert {code.id, code.name} <= set(lookup.column_names), code
        for column in code.scope:
            assert table.column(column) is not None and lookup.column(column) is not None, code
        assert (code.table, code.column) in catalog.categorical, code


def test_identifiers_are_columns_of_the_catalog(catalog) -> None:
    columns = {name for table in catalog.tables for name in table.column_names}
    assert set(catalog.identifiers) - {"count", "classifier_name"} <= columns
    assert catalog.identifiers.index("oid") < catalog.identifiers.index("ssobjectid")


def test_resource_descriptor_describes_the_catalog_it_publishes(catalog) -> None:
    ztf_rd, rubin_rd = render_rd(load_catalog("ztf")), render_rd(catalog)
    assert '<resource schema="alerce_tap">' in rubin_rd and "Rubin/LSST" in rubin_rd and "ZTF alerts (" not in rubin_rd
    assert '<meta name="title">ALeRCE ZTF alerts (local synthetic copy)</meta>' in ztf_rd
    assert rubin_rd.count("<table id=") == 20 and 'unit="nJy"' in rubin_rd
