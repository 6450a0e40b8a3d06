"""Result columns keep catalog metadata through SELECT *, alias.* and plain references; computed ones have none."""

from answering.columns import ColumnInfo, result_columns
from catalog import load_catalog

OBJECT = load_catalog().table("object")


def test_select_star_keeps_every_column_of_the_table():
    infos = result_columns("SELECT * FROM object", OBJECT.column_names)
    assert [i.name for i in infos] == OBJECT.column_names
    assert [i.unit for i in infos] == [c.unit for c in OBJECT.columns]
    assert {i.name: i.ucd for i in infos}["meanra"] == "pos.eq.ra;meta.main"
    assert all(i.ucd and i.description and i.datatype for i in infos)


def test_alias_star_and_plain_columns_mix_in_order():
    magstat = load_catalog().table("magstat")
    labels = [*OBJECT.column_names, "magmean", "n"]
    infos = result_columns(
        "SELECT o.*, m.magmean, count(*) AS n FROM object o JOIN magstat m ON m.oid = o.oid GROUP BY 1", labels
    )
    assert infos[len(OBJECT.columns)] == ColumnInfo.of("magmean", magstat.column("magmean"))
    assert infos[0].ucd == "meta.id;meta.main"
    assert infos[-1] == ColumnInfo("n")


def test_star_over_a_join_using_lists_the_shared_column_once_and_keeps_repeated_labels_apart():
    detection = load_catalog().table("detection")
    others = [c for c in (*OBJECT.columns, *detection.columns) if c.name != "oid"]
    labels = ["oid", *[c.name for c in others]]
    infos = result_columns("SELECT * FROM object JOIN detection USING (oid)", labels)
    assert [i.description for i in infos[1:]] == [c.description for c in others]
    assert infos[labels.index("meanra")].ucd == "pos.eq.ra;meta.main"


def test_aliased_column_keeps_its_source_and_computed_column_says_none():
    infos = result_columns(
        "SELECT meanra AS ra, meanra + 1 AS shifted, avg(ndet) AS ndet FROM object", ["ra", "shifted", "ndet"]
    )
    assert infos[0].unit == "deg" and infos[0].ucd == "pos.eq.ra;meta.main"
    assert infos[1] == ColumnInfo("shifted")
    assert infos[2] == ColumnInfo("ndet"), "a computed column named like a catalog column is still computed"


def test_unparsable_sql_gives_names_only():
    assert result_columns("SELEC nonsense ((", ["a"]) == [ColumnInfo("a")]


def test_json_shape_names_every_field():
    assert ColumnInfo("n").to_json() == {"name": "n", "datatype": None, "unit": None, "ucd": None, "description": None}
