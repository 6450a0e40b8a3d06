"""An oracle LM that answers every stage from the dev labels reaches row PM = 1 on the tiny database."""

import dspy

from engines.errors import ExecutionError
from metric.perfect_match import row_match
from modules import AlerceText2SQL


def is_match(gold, pred_frame, gold_sql: str, pred_sql: str) -> bool:
    """Row PM, or frame equality when row PM cannot score even gold against itself (no identifier column)."""
    if row_match(gold, gold, gold_sql).pm:
        return row_match(gold, pred_frame, pred_sql).pm
    return pred_frame is not None and pred_frame.equals(gold)


def test_oracle_gives_pm_1_on_every_dev_question_with_gold_rows(dev_frame, oracle_lm, executor):
    program = AlerceText2SQL(executor)
    compared, problems = 0, []
    with dspy.context(lm=oracle_lm):
        for row in dev_frame.itertuples():
            pred = program(
                question=row.request, external_knowledge=row.external_knowledge, domain_knowledge=row.domain_knowledge
            )
            if pred.failures or pred.error is not None or len(pred.attempts) != 1:
                problems.append((row.req_id, pred.failures, pred.error))
                continue
            try:
                gold = executor.execute(row.gold_query).frame
            except ExecutionError as err:
                problems.append((row.req_id, "gold failed", err))
                continue
            if len(gold) == 0:
                continue
            compared += 1
            if not is_match(gold, pred.result.frame, row.gold_query, pred.sql):
                problems.append((row.req_id, "no match", pred.sql))
    assert problems == []
    assert compared >= 30
