"""The DaCHS resource descriptor rendered from the catalog."""

from catalog import load_catalog
from catalog.dachs_rd import render_rd, render_tables_ddl


def test_taxonomy_classes_is_published_as_an_array_of_strings():
    catalog = load_catalog()
    assert '<column name="classes" type="text[]"' in render_rd(catalog)
    assert "    classes text[]" in render_tables_ddl(catalog)
    assert 'type="varchar' not in render_rd(catalog)
