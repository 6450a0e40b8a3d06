"""Difficulty classification: route a question to direct or planned generation."""

from typing import Literal

import dspy

__all__ = ["ClassifyDifficulty"]


class ClassifyDifficulty(dspy.Signature):
    """Classify how hard it is to write the SQL query that answers the question."""

    question: str = dspy.InputField(desc="the astronomer's question")
    schema_text: str = dspy.InputField(desc="the tables and columns linked to the question")
    difficulty: Literal["simple", "medium", "advanced"] = dspy.OutputField(desc="the difficulty class")
