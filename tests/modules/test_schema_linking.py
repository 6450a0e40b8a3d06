"""Schema linking checks names against the catalog, reports unknown ones and falls back to the full schema."""

import dspy

from catalog import load_catalog
from lms.fake import fake_lm, render_answer
from modules.schema_linking import SchemaLinking


def link(tables, columns=None):
    def answer(call):
        if call.stage == "tables":
            return render_answer({"tables": tables})
        return render_answer({"columns": columns or {}})

    lm = fake_lm(answer)
    with dspy.context(lm=lm):
        return SchemaLinking()(question="q", knowledge=""), lm.engine_obj


def test_names_are_matched_case_insensitively_and_unknown_ones_dropped():
    linked, _ = link(["Object", "alerce.PROBABILITY", "objects_table", "object"])
    assert linked.tables == ["object", "probability"]
    assert linked.dropped_names == ["objects_table"]
    assert linked.failures == []


def test_unknown_columns_are_dropped_and_keys_kept():
    linked, _ = link(["object", "magstat"], {"object": ["ndet", "n_det"], "MagStat": ["magstat.dmdt_first"], "x": []})
    assert linked.columns == {"object": ["ndet"], "magstat": ["dmdt_first"]}
    assert linked.dropped_names == ["object.n_det", "x"]
    header, *columns = linked.schema_text.split("\n  ")[:3]
    assert header.startswith("table object") and [c.split()[0] for c in columns] == ["oid", "ndet"]


def test_no_valid_table_falls_back_to_the_full_schema_without_column_call():
    linked, engine = link(["stars", "galaxies"])
    assert linked.tables == load_catalog().table_names
    assert linked.dropped_names == ["stars", "galaxies"]
    assert [(f.stage, f.kind) for f in linked.failures] == [("schema_linking", "empty")]
    assert engine.stages() == ["tables"]


def test_information_schema_tables_are_kept_and_described():
    linked, _ = link(["information_schema.tables"])
    assert linked.tables == ["information_schema.tables"]
    assert linked.schema_text.startswith("table information_schema.tables: PostgreSQL view")
