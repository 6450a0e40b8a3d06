"""Schema linking, step two: pick the columns of the selected tables."""

import dspy

__all__ = ["SelectColumns"]


class SelectColumns(dspy.Signature):
    """Select the columns needed to answer the question, for each table of the schema.
    Include the columns to return, to filter on and to join on. Use only names from the schema."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    schema_text: str = dspy.InputField(desc="the selected tables with their columns")
    columns: dict[str, list[str]] = dspy.OutputField(desc="column names per table name")
