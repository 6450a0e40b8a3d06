"""Rules scoped to tables: generation and decomposition send a catalog rule only when the linked schema needs it."""

import dataclasses

import dspy
import pytest

from catalog import linked_names, load_catalog, render_schema_text
from lms.fake import fake_lm, render_answer
from modules.decomposition import Decomposition
from modules.generation.stage import Generation
from modules.predictors.predictor import make_predictor, rules_fitted_to
from signatures import GenerateSQL

CATALOG = load_catalog("ztf")
RULE_STARTS = {
    "classes": "- Use classifier_name",
    "ranking": '- "Classified as"',
    "supernovae": "- Supernovae (SNe)",
    "feature": "- feature is long format",
    "positions": "- Positions and radii",
}


def _schema(columns: dict[str, list[str]]) -> str:
    return render_schema_text(CATALOG, list(columns), columns)


def _sent_rules(schema_text: str, module: dspy.Module, **inputs: object) -> set[str]:
    """The scoped rules the module's LM call carried in its instructions."""
    calls = []

    def answer(call):
        calls.append(call)
        return render_answer({"sql": "SELECT 1", "plan": ["one step"]})

    with dspy.context(lm=fake_lm(answer)):
        module(question="q", knowledge="", schema_text=schema_text, **inputs)
    (call,) = calls
    return {name for name, start in RULE_STARTS.items() if start in call.system}


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({"object": ["oid", "ndet"]}, set()),
        ({"object": ["oid", "meanra", "meandec"]}, {"positions"}),
        ({"probability": ["oid", "class_name", "ranking"]}, {"classes", "ranking", "supernovae"}),
        ({"object": ["oid"], "feature": ["oid", "name", "value"]}, {"feature"}),
        ({"ss_ztf": ["oid", "ssdistnr"]}, {"positions"}),
        # A partition holds its parent's rows: querying one needs the same classifier rules as probability.
        ({"lc_classifier": ["oid", "class_name", "ranking"]}, {"classes", "ranking", "supernovae"}),
    ],
    ids=["counts", "cone", "classes", "feature", "distance in arcsec", "classifier partition"],
)
@pytest.mark.parametrize("stage", ["generation", "decomposition"])
def test_a_stage_sends_the_scoped_rules_its_linked_schema_needs(stage, columns, expected):
    module = Generation() if stage == "generation" else Decomposition()
    assert _sent_rules(_schema(columns), module) == expected


def test_the_rules_every_question_needs_are_always_sent():
    schema = _schema({"object": ["oid", "ndet"]})
    calls = []

    def answer(call):
        calls.append(call)
        return render_answer({"sql": "SELECT 1"})

    with dspy.context(lm=fake_lm(answer)):
        Generation()(question="q", knowledge="", schema_text=schema)
    assert "- Use only tables and columns of the schema." in calls[0].system
    assert "- fid 1 = g band" in calls[0].system


def test_every_scope_names_one_rule_and_tables_or_columns_the_catalog_has():
    assert len(CATALOG.scoped_rules) == len(RULE_STARTS)
    for rule in CATALOG.scoped_rules:
        assert rule.text in CATALOG.sql_rules and (rule.tables or rule.columns)
        assert all(CATALOG.table(name) is not None for name in rule.tables)
        for name in rule.columns:
            table, column = name.split(".")
            assert column in CATALOG.table(table).column_names


def test_instructions_an_optimiser_rewrote_are_sent_as_they_are():
    predictor = make_predictor(GenerateSQL, False, rules=CATALOG.sql_rules)
    predictor.signature = predictor.signature.with_instructions("Write the SQL.")
    assert rules_fitted_to(predictor, CATALOG, _schema({"object": ["oid"]})) == {}


def test_a_catalog_without_scopes_sends_every_rule():
    multisurvey = dataclasses.replace(load_catalog("multisurvey"), scoped_rules=())
    predictor = make_predictor(GenerateSQL, False, rules=multisurvey.sql_rules)
    schema = render_schema_text(multisurvey, ["object"], {"object": ["oid", "sid"]})
    assert rules_fitted_to(predictor, multisurvey, schema) == {}


MULTISURVEY_RULE_STARTS = {
    "classifiers": "- Classifiers (LSST stamp classifiers",
    "ranking": '- "Classified as"',
    "detections": "- Detections: detection has",
    "bands": "- Band codes",
    "fluxes": "- Fluxes are nJy",
    "dia_object": "- lsst_dia_object is the latest",
    "solar_system": "- Solar system (sid 2)",
    "feature": "- feature is long format",
    "xmatch": "- xmatch.oid_catalog is text",
    "positions": "- Positions and radii",
}


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({"object": ["oid", "sid", "n_det"]}, set()),
        ({"object": ["oid", "sid", "meanra", "meandec"]}, {"positions"}),
        (
            {"object": ["oid", "sid"], "probability": ["oid", "class_id"], "taxonomy": ["class_name"]},
            {"classifiers", "ranking"},
        ),
        (
            {"detection": ["oid", "sid", "band"], "lsst_detection": ["oid", "psfflux"]},
            {"detections", "bands", "fluxes"},
        ),
        ({"object": ["oid", "sid"], "lsst_mpc_orbits": ["ssobjectid", "designation"]}, {"solar_system"}),
        (
            {"xmatch": ["oid", "oid_catalog"], "gaiadr3_source": ["oid_catalog", "phot_g_mean_flux"]},
            {"xmatch", "fluxes"},
        ),
    ],
    ids=["object", "cone", "classes", "photometry", "solar system", "crossmatch"],
)
def test_multisurvey_generation_sends_the_rules_its_linked_tables_need(columns, expected):
    multisurvey = load_catalog("multisurvey")
    predictor = make_predictor(GenerateSQL, False, rules=multisurvey.sql_rules)
    schema = render_schema_text(multisurvey, list(columns), columns)
    sent = rules_fitted_to(predictor, multisurvey, schema)["signature"].instructions
    assert {name for name, start in MULTISURVEY_RULE_STARTS.items() if start in sent} == expected
    assert "- An object is the pair (oid, sid)" in sent and "- Use only tables and columns of the schema." in sent


def test_linked_names_reads_back_what_the_schema_text_shows():
    columns = {"object": ["oid", "meanra"], "probability": ["oid", "class_name"], "lc_classifier": ["oid"]}
    tables, linked = linked_names(render_schema_text(CATALOG, list(columns), columns))
    assert tables == set(columns)
    assert {"object.oid", "object.meanra", "probability.class_name"} <= linked
