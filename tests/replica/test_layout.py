"""The replica package's layout (issue 33): one engine, one recipe per catalog, names read from the catalog.

The counting rules are those of ``benchmarks.replica_layout`` (checked here on a small package first). Before the
engine/recipe split the package had 8,253 lines, 25 table-name lists, 3 schema-name constants, 10 catalog-name
parameter defaults and 8 imports of one catalog's recipe by the other's.
"""

import importlib
from pathlib import Path

import pytest

from benchmarks.replica_layout import layout
from catalog import CATALOG_NAMES, load_catalog
from replica.replicas import recipe, replica_scales

MAX_LINES = 7_300
"""Ceiling on the package's lines: issue 33's target."""
MAX_TABLE_NAME_LISTS = 2
"""Ceiling on literal table-name lists: each recipe's table map (``replica.<catalog>.tables.TABLES``)."""


def test_the_counting_rules_on_a_small_package(tmp_path: Path) -> None:
    (tmp_path / "ztf").mkdir()
    (tmp_path / "ztf" / "a.py").write_text(
        '"""alerce"""\n'
        "from replica.multisurvey.x import y\n"
        'ORDER = ("object", "detection")\n'
        'NOT_TABLES = ("object", "not_a_table")\n'
        'def f(catalog: str = "ztf", schema=("alerce")): return {"object": 1, "allwise": 2}\n'
        'MAP = {**dict.fromkeys(ORDER), "object": 1, "allwise": 2}\n',
        encoding="utf-8",
    )
    (tmp_path / "b.py").write_text("from replica.multisurvey.x import y\n", encoding="utf-8")
    counts = layout(tmp_path)
    assert counts == {
        "lines": 7,
        "files": 2,
        "table_name_lists": 3,
        "schema_constants": 1,
        "catalog_defaults": 1,
        "cross_recipe_imports": 1,
    }


def test_the_package_keeps_its_layout() -> None:
    counts = layout()
    assert counts["schema_constants"] == 0
    assert counts["catalog_defaults"] == 0
    assert counts["cross_recipe_imports"] == 0
    assert counts["table_name_lists"] <= MAX_TABLE_NAME_LISTS
    assert counts["lines"] <= MAX_LINES


RECIPE_FILES = (
    "__init__.py",
    "recipe.py",
    "scales.py",
    "tables.py",
    "binders.py",
    "grounding/profile.py",
    "grounding/bind.py",
    "grounding/domains.py",
)
"""The files every recipe has: its catalog's name, the recipe, scales, its table map and binders, and the grounding
profile and value domains."""


@pytest.mark.parametrize("catalog_name", CATALOG_NAMES)
def test_every_catalog_has_a_recipe_of_its_name(catalog_name: str) -> None:
    assert recipe(catalog_name).catalog == catalog_name
    assert replica_scales(catalog_name)[0] == "tiny"
    package = Path(__file__).resolve().parents[2] / "replica" / catalog_name
    assert [name for name in RECIPE_FILES if not (package / name).is_file()] == []


@pytest.mark.parametrize("catalog_name", CATALOG_NAMES)
def test_the_table_map_fills_every_table_that_is_not_fixed_partitioned_or_left_empty(catalog_name: str) -> None:
    tables = importlib.import_module(f"replica.{catalog_name}.tables").TABLES
    catalog, made = load_catalog(catalog_name), recipe(catalog_name)
    fixed = set(catalog.rows) | set(made.fixed_rows())
    empty = {t.name for t in catalog.tables if {f"{t.name}.{c}" for c in t.column_names} <= made.null_columns}
    assert set(tables) <= set(catalog.table_names)
    assert [t.name for t in catalog.tables if t.name not in {*tables, *fixed, *empty} and not t.partition_of] == []


def test_every_table_of_the_multisurvey_map_is_made_by_some_population() -> None:
    """ZTF's map has one maker per table, a required field; the multi-survey map's makers are each optional."""
    from replica.multisurvey.tables import TABLES

    makers = {name: [v for k, v in vars(table).items() if k != "bind"] for name, table in TABLES.items()}
    assert [name for name, made in makers.items() if not any(callable(m) for m in made)] == []
