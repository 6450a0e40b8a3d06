"""Pairwise selection: pick the one of two candidate queries that answers the question."""

from typing import Literal

import dspy

__all__ = ["ChooseCandidate"]


class ChooseCandidate(dspy.Signature):
    """Choose which of two PostgreSQL queries on the ALeRCE database answers the astronomer's question.
    Judge from the question, the hints and what each query returned, not from the query's length or style.
    Prefer the query whose conditions match every constraint of the question: classifier, class name, ranking, band,
    dates (MJD) and thresholds.
    A query that returned no rows or failed is the worse choice unless the question expects nothing."""

    question: str = dspy.InputField(desc="the astronomer's question")
    knowledge: str = dspy.InputField(desc="hints that come with the question, may be empty")
    first_sql: str = dspy.InputField(desc="the first candidate query")
    first_result: str = dspy.InputField(desc="a short preview of what the first query returned")
    second_sql: str = dspy.InputField(desc="the second candidate query")
    second_result: str = dspy.InputField(desc="a short preview of what the second query returned")
    choice: Literal["first", "second"] = dspy.OutputField(desc="the query that answers the question")
    reason: str = dspy.OutputField(desc="one sentence on why")
