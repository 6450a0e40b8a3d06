"""The DaCHS resource descriptor rendered from the catalog."""

from catalog import load_catalog
from catalog.dachs_rd import render_rd, render_tables_ddl


def test_taxonomy_classes_is_published_as_an_array_of_strings():
    catalog = load_catalog()
    assert '<column name="classes" type="text[]"' in render_rd(catalog)
    assert "    classes text[]" in render_tables_ddl(catalog)
    assert 'type="varchar' not in render_rd(catalog)


def test_every_published_column_has_its_ucd_in_the_resource_descriptor():
    from catalog import CATALOG_NAMES, load_catalog
    from catalog.dachs_rd import render_rd

    for name in CATALOG_NAMES:
        catalog = load_catalog(name)
        rd = render_rd(catalog)
        published = [column for table in catalog.tap_tables for column in table.columns]
        assert rd.count(" ucd=") == len(published)
        assert '<column name="meanra" type="double precision" unit="deg" ucd="pos.eq.ra;meta.main"' in rd
