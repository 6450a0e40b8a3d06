"""Scripted fake LMs for answering tests: every stage answers, generation and correction give fixed SQL."""

from __future__ import annotations

import dspy

from lms import RetryingLM
from lms.fake import EXPLANATION, fake_lm, render_answer

LITERAL_SQL = "SELECT 1 AS n, 'ZTF' AS name UNION ALL SELECT 22, NULL"
"""SQL whose rows do not depend on the database contents."""
BROKEN_SQL = "SELECT oid FROM objekt"


def scripted_lm(sql: str = LITERAL_SQL, *, difficulty: str = "simple", correction: str | None = None) -> dspy.LM:
    """Return a fake LM answering every stage; generation gives `sql`, self-correction `correction` (or `sql`)."""
    fields = {
        "tables": {"tables": ["object"]},
        "columns": {"columns": {"object": ["oid"]}},
        "difficulty": {"difficulty": difficulty},
        "plan": {"plan": ["Read object.", "Count rows."]},
        "correct": {"sql": correction or sql},
        "explanation": EXPLANATION,
    }
    return fake_lm(lambda call: render_answer(fields.get(call.stage, {"sql": sql})))


def demo_model_lm(sql: str = LITERAL_SQL) -> dspy.LM:
    """Return `scripted_lm(sql)` under the name of the shipped demo model, local/gemma3-270m."""
    return RetryingLM("local/gemma3-270m", engine=scripted_lm(sql).engine_obj, cache=False)
