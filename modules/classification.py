"""Difficulty classification: decides whether generation follows a plan."""

from typing import get_args

import dspy

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG
from modules.predictors.predictor import make_predictor
from modules.predictors.stage_call import call_predictor
from signatures import ClassifyDifficulty

__all__ = ["DIFFICULTIES", "Classification"]

STAGE = "classification"
DIFFICULTIES = get_args(ClassifyDifficulty.output_fields["difficulty"].annotation)


class Classification(dspy.Module):
    """Label a question simple, medium or advanced; None when the LM gives no valid label."""

    def __init__(self, *, reasoning: bool = False, catalog: str = DEFAULT_CATALOG) -> None:
        super().__init__()
        notes = load_catalog(catalog).prompt_notes.get(ClassifyDifficulty.__name__, "")
        self.predict = make_predictor(ClassifyDifficulty, reasoning, rules=notes)

    def forward(self, question: str, schema_text: str) -> dspy.Prediction:
        """Classify the question.

        Returns:
            A prediction with `difficulty` (one of DIFFICULTIES, or None on failure) and `failures`.
        """
        answer, failure = call_predictor(STAGE, self.predict, question=question, schema_text=schema_text)
        return dspy.Prediction(difficulty=answer.difficulty if answer else None, failures=[failure] if failure else [])
