"""Targeted revision: rewrite a query that ran, or was about to run, after a check found a problem."""

from typing import Literal

import dspy

__all__ = ["ReviseSQL"]

# The kinds are checks.FindingKind's values (signatures import nothing of the project; a test keeps them equal).
FINDING_KINDS = Literal[
    "unknown_value", "empty_result", "row_count", "missing_columns", "repeated_objects", "count_as_rows"
]


class ReviseSQL(dspy.Signature):
    """Revise the PostgreSQL query on the ALeRCE database: fix what the check found.
    Change only what the finding requires and keep every other condition.
    unknown_value: a literal is not a value of its column; use one of the valid values listed in the hints.
    empty_result: no rows came back; check the literals, units, date ranges (MJD) and joins against the question.
    row_count: more rows than the question asks for; order by what the question ranks on and limit the rows.
    missing_columns: the question names columns the result lacks; select them under those names.
    repeated_objects: the question asks for objects, yet objects repeat; return one row per object.
    count_as_rows: the question asks for a count; return the count, not the rows."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    schema_text: str = dspy.InputField(desc="the tables and columns linked to the question")
    checked_sql: str = dspy.InputField(desc="the query the check found wrong")
    finding_kind: FINDING_KINDS = dspy.InputField(desc="the kind of problem found")
    finding: str = dspy.InputField(desc="what the check found")
    hints: str = dspy.InputField(desc="valid values of the columns involved, may be empty")
    sql: str = dspy.OutputField(desc="the revised PostgreSQL query, no explanation")
