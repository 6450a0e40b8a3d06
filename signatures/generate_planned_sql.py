"""SQL generation: following a step-by-step plan."""

import dspy

__all__ = ["GeneratePlannedSQL"]


class GeneratePlannedSQL(dspy.Signature):
    """Write one PostgreSQL SELECT query that answers the question on the ALeRCE database by the plan.
    Steps may be merged; the question wins where the plan disagrees with it."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    schema_text: str = dspy.InputField(desc="the tables and columns linked to the question")
    plan: list[str] = dspy.InputField(desc="the steps of the query")
    sql: str = dspy.OutputField(desc="one PostgreSQL query, no explanation")
