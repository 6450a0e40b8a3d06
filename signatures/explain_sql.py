"""Explanation: say in plain words what the final query returns, and what it took for granted."""

import dspy

__all__ = ["ExplainSQL"]


class ExplainSQL(dspy.Signature):
    """Explain what the PostgreSQL query returns, for an astronomer who does not read SQL.
    Describe only what the query does, not what it should do; name columns by what they hold.
    State every condition in words: dates as calendar dates (UTC), classifiers with their version, thresholds with
    their units, cone radii in arcseconds.
    Say how the rows are ordered and how many are kept.
    List as assumptions the readings the query took where the question left a choice open, such as a magnitude cut
    for "bright" or a classifier the question did not name."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    schema_text: str = dspy.InputField(desc="the tables and columns the query reads")
    sql: str = dspy.InputField(desc="the query that answered the question")
    summary: str = dspy.OutputField(desc="one sentence on which objects or rows the query returns, with which values")
    conditions: list[str] = dspy.OutputField(desc="each condition of the query in plain words, one per item")
    ordering: str = dspy.OutputField(desc="how the rows are ordered and how many are kept, or that they are not")
    assumptions: list[str] = dspy.OutputField(desc="readings taken where the question was open, may be empty")
