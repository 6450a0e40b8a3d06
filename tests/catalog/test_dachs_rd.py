"""The DaCHS resource descriptor rendered from the catalog."""

from catalog import load_catalog
from catalog.dachs_rd import JSON_ARRAY_NOTE, array_columns, copy_expression, render_rd, render_tables_ddl


def test_taxonomy_classes_is_published_as_json_text():
    catalog = load_catalog()
    rd = render_rd(catalog)
    column = '<column name="classes" type="text" ucd="src.class"'
    assert f'{column} description="ordered class names {JSON_ARRAY_NOTE}"' in rd
    assert "    classes text\n" in render_tables_ddl(catalog)
    assert "[]" not in rd and "[]" not in render_tables_ddl(catalog)  # DaCHS would publish arraysize "*x*"
    assert 'type="varchar' not in rd
    assert array_columns(catalog) == {"classes"}
    taxonomy = catalog.table("taxonomy")
    assert [copy_expression(column) for column in taxonomy.columns if column.name == "classes"] == [
        "to_json(classes)::text"
    ]


def test_every_published_column_has_its_ucd_in_the_resource_descriptor():
    from catalog import CATALOG_NAMES, load_catalog
    from catalog.dachs_rd import render_rd

    for name in CATALOG_NAMES:
        catalog = load_catalog(name)
        rd = render_rd(catalog)
        published = [column for table in catalog.tap_tables for column in table.columns]
        assert rd.count(" ucd=") == len(published)
        assert '<column name="meanra" type="double precision" unit="deg" ucd="pos.eq.ra;meta.main"' in rd
