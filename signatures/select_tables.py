"""Schema linking, step one: pick the tables a question needs."""

import dspy

__all__ = ["SelectTables"]


class SelectTables(dspy.Signature):
    """Select the tables of the ALeRCE database needed to answer the question.
    Use only names from the table catalog. Prefer a few extra tables to a missing one."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    table_catalog: str = dspy.InputField(desc="one line per table: name and description")
    tables: list[str] = dspy.OutputField(desc="table names from the catalog")
