"""SQL generation: direct, from the question and the schema."""

import dspy

__all__ = ["GenerateSQL"]


class GenerateSQL(dspy.Signature):
    """Write one PostgreSQL SELECT query that answers the question on the ALeRCE database."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    schema_text: str = dspy.InputField(desc="the tables and columns linked to the question")
    sql: str = dspy.OutputField(desc="one PostgreSQL query, no explanation")
