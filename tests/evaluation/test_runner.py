"""Tests of evaluation.runner on the tiny database: golds score 1, broken predictions 0 with the right kinds."""

import dataclasses

import pytest

from evaluation.checkpoint import Checkpoint
from evaluation.item_record import ItemRecord
from evaluation.predictions import Prediction
from evaluation.runner import MISSING_MESSAGE, score_item, score_predictions
from metric.select_list import parse_select_list
from tests.evaluation.counting_executor import CountingExecutor

HEAVY_SQL = "SELECT count(*) FROM alerce.detection a CROSS JOIN alerce.detection b CROSS JOIN alerce.detection c"
IDENTITY = {"database_fingerprint": "test", "timeout_s": 10}


@pytest.fixture(scope="module")
def gold_records(dev_examples, module_executor, gold_cache) -> list[ItemRecord]:
    predictions = [Prediction(example.req_id, 0, example.gold_sql) for example in dev_examples]
    return score_predictions(predictions, dev_examples, module_executor, gold_cache, timeout_s=10, workers=2)


def test_golds_as_predictions_score_one_where_the_gold_has_rows(gold_records):
    with_rows = [record for record in gold_records if record.gold_rows]
    assert len(with_rows) >= 30, "the tiny synthetic database should give most dev golds some rows"
    assert all(record.error_kind is None for record in gold_records)
    assert [r.req_id for r in with_rows if not (r.col_pm and r.value_match)] == []
    # The paper's row PM cannot score a gold without identifier column (REFERENCE_SYSTEM.md a.2): an artefact.
    artefacts = [r for r in with_rows if r.row_comparison in {"alias_crash", "no_identifiers"}]
    assert len(artefacts) <= 2
    assert [r.req_id for r in with_rows if not r.row_pm and r not in artefacts] == []


def test_golds_as_predictions_lose_formatted_column_pm_only_through_their_aliases(gold_records):
    # Formatted column PM undoes the prediction's aliases but not the gold's (REFERENCE_SYSTEM.md a.3).
    failed = [r for r in gold_records if r.gold_rows and not r.col_pm_formatted]
    assert [r.req_id for r in failed if all(name == source for name, source in parse_select_list(r.sql))] == []
    assert len(failed) <= len(gold_records) // 4


def test_score_predictions_keeps_the_given_order(gold_records, dev_examples):
    assert [record.req_id for record in gold_records] == [example.req_id for example in dev_examples]


def _first(examples, records, predicate):
    by_id = {record.req_id: record for record in records}
    return next(ex for ex in examples if by_id[ex.req_id].gold_rows and predicate(ex.gold_sql))


def _score(example, sql, executor, gold_cache, timeout_s=10.0) -> ItemRecord:
    return score_item(Prediction(example.req_id, 0, sql), example, executor, gold_cache, timeout_s=timeout_s)


def test_wrong_classifier_runs_but_scores_zero(dev_examples, gold_records, module_executor, gold_cache):
    example = _first(dev_examples, gold_records, lambda sql: "'lc_classifier'" in sql)
    record = _score(
        example, example.gold_sql.replace("'lc_classifier'", "'stamp_classifier'"), module_executor, gold_cache
    )
    assert (record.error_kind, record.row_pm, record.value_match) == (None, False, False)


def test_missing_condition_runs_but_scores_zero(dev_examples, gold_records, module_executor, gold_cache):
    example = _first(dev_examples, gold_records, lambda sql: "ranking = 1" in sql or "ranking=1" in sql)
    wrong = example.gold_sql.replace("ranking = 1", "ranking > 0").replace("ranking=1", "ranking > 0")
    record = _score(example, wrong, module_executor, gold_cache)
    assert (record.error_kind, record.row_pm, record.value_match) == (None, False, False)
    assert record.pred_rows > record.gold_rows


def test_hallucinated_column_is_missing_structure(dev_examples, gold_records, module_executor, gold_cache):
    example = dev_examples[0]
    record = _score(
        example, f"SELECT g.*, g.hallucinated_col FROM ({example.gold_sql}) AS g", module_executor, gold_cache
    )
    assert (record.error_kind, record.row_pm, record.col_pm, record.col_pm_formatted) == (
        "missing_structure",
        False,
        False,
        False,
    )
    assert "hallucinated_col" in record.error_message and record.pred_rows is None


def test_heavy_query_with_tiny_timeout_is_a_timeout(dev_examples, module_executor, gold_cache):
    record = _score(dev_examples[0], HEAVY_SQL, module_executor, gold_cache, timeout_s=0.05)
    assert (record.error_kind, record.row_pm, record.col_pm) == ("timeout", False, False)
    assert record.gold_error_kind is None


def test_missing_prediction_is_a_general_error(dev_examples, module_executor, gold_cache):
    record = score_item(
        Prediction(dev_examples[0].req_id, 3, None), dev_examples[0], module_executor, gold_cache, timeout_s=10
    )
    assert (record.error_kind, record.error_message, record.is_missing, record.run) == (
        "general",
        MISSING_MESSAGE,
        True,
        3,
    )


def test_resume_skips_checkpointed_items_and_matches_a_clean_run(dev_examples, module_executor, gold_cache, tmp_path):
    examples = dev_examples[:8]
    predictions = [
        Prediction(ex.req_id, run, f"SELECT * FROM ({ex.gold_sql}) AS run{run}") for run in (0, 1) for ex in examples
    ]
    clean = score_predictions(predictions, examples, module_executor, gold_cache, timeout_s=10, workers=2)
    full = Checkpoint(tmp_path / "clean.jsonl", IDENTITY)
    for record in clean[:6]:
        full.append(record.to_dict())
    partial = tmp_path / "resumed" / "checkpoint.jsonl"
    partial.parent.mkdir()
    lines = full.path.read_text().splitlines(keepends=True)
    partial.write_text("".join(lines[:6]) + lines[6][:20])  # header, 5 items, and a torn line
    counting = CountingExecutor(module_executor)
    resumed = score_predictions(
        predictions, examples, counting, gold_cache, timeout_s=10, workers=2, checkpoint=Checkpoint(partial, IDENTITY)
    )
    assert sorted(counting.calls) == sorted(p.sql for p in predictions[5:])
    strip = [dataclasses.replace(record, elapsed_s=0.0) for record in resumed]
    assert strip == [dataclasses.replace(record, elapsed_s=0.0) for record in clean]
    assert len(Checkpoint(partial, IDENTITY).load()) == len(predictions)


def test_resume_recomputes_items_whose_sql_changed(dev_examples, module_executor, gold_cache, tmp_path):
    example = dev_examples[0]
    checkpoint = Checkpoint(tmp_path / "checkpoint.jsonl", IDENTITY)
    score_predictions(
        [Prediction(example.req_id, 0, "SELECT 1")],
        [example],
        module_executor,
        gold_cache,
        timeout_s=10,
        checkpoint=checkpoint,
    )
    counting = CountingExecutor(module_executor)
    changed = f"SELECT * FROM ({example.gold_sql}) AS g"
    (record,) = score_predictions(
        [Prediction(example.req_id, 0, changed)], [example], counting, gold_cache, timeout_s=10, checkpoint=checkpoint
    )
    assert counting.calls == [changed] and record.sql == changed


class ExplodingExecutor(CountingExecutor):
    """Raise an unexpected exception for one SQL text, as a buggy engine or metric could."""

    def __init__(self, executor, poison: str):
        super().__init__(executor)
        self.poison = poison

    def execute(self, sql, *, timeout_s=None):
        if sql == self.poison:
            raise RecursionError("maximum recursion depth exceeded")
        return super().execute(sql, timeout_s=timeout_s)


def test_one_item_that_crashes_is_an_error_and_the_run_completes(dev_examples, module_executor, gold_cache, tmp_path):
    poison = "SELECT 'poison' AS oid"
    examples = dev_examples[:3]
    predictions = [Prediction(examples[0].req_id, 0, poison)] + [
        Prediction(example.req_id, 0, example.gold_sql) for example in examples[1:]
    ]
    checkpoint = Checkpoint(tmp_path / "checkpoint.jsonl", IDENTITY)
    records = score_predictions(
        predictions,
        examples,
        ExplodingExecutor(module_executor, poison),
        gold_cache,
        timeout_s=10,
        checkpoint=checkpoint,
    )
    assert [record.req_id for record in records] == [example.req_id for example in examples]
    assert (records[0].error_kind, records[0].row_pm, records[0].error_message) == (
        "general",
        False,
        "could not score this item (RecursionError: maximum recursion depth exceeded)",
    )
    assert all(record.error_kind is None for record in records[1:])
    assert len(checkpoint.load()) == 3


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT power(10::numeric, 400) AS oid",
        "SELECT (repeat('[', 3000) || repeat(']', 3000))::jsonb AS oid",
        "SELECT " + "(" * 200 + "1" + ")" * 200 + " AS oid",
        "SELECT 'a\ud800' AS oid",
        "SELECT (3::float8).pg_sleep AS oid",
        "SELECT xpath('/a', '<a/>'::xml) AS oid",
    ],
)
def test_hostile_prediction_is_an_error_for_its_item(dev_examples, module_executor, gold_cache, sql):
    record = _score(dev_examples[0], sql, module_executor, gold_cache)
    assert (record.error_kind, record.row_pm, record.pred_rows) == ("general", False, None)
