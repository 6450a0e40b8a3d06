"""Decomposition: a step-by-step plan for the query, without SQL."""

import dspy

__all__ = ["PlanQuery"]


class PlanQuery(dspy.Signature):
    """Plan the PostgreSQL query that answers the question, as short steps without SQL.
    Name the tables, columns, conditions and values each step uses, and how the steps combine (sub-query, join,
    INTERSECT, UNION)."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    schema_text: str = dspy.InputField(desc="the tables and columns linked to the question")
    plan: list[str] = dspy.OutputField(desc="the steps in order")
