"""Self-correction: repair a query that failed to execute."""

from typing import Literal

import dspy

__all__ = ["CorrectSQL"]


class CorrectSQL(dspy.Signature):
    """Fix the PostgreSQL query that failed on the ALeRCE database, so that it runs and answers the question.
    Change only what the error requires and keep the query's meaning.
    missing_structure: a table, column or function does not exist; use the valid names from the hints or the schema.
    timeout: keep every condition; filter early in sub-queries on indexed columns (see hints), avoid cross joins.
    general: fix the syntax or types named in the error."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    schema_text: str = dspy.InputField(desc="the tables and columns available")
    failed_sql: str = dspy.InputField(desc="the query that failed")
    error_kind: Literal["timeout", "missing_structure", "general"] = dspy.InputField(desc="the kind of failure")
    error_message: str = dspy.InputField(desc="the database error message")
    hints: str = dspy.InputField(desc="valid names near a missing one, or indexed columns, may be empty")
    sql: str = dspy.OutputField(desc="the corrected PostgreSQL query, no explanation")
