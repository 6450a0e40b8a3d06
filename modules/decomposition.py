"""Decomposition: a step-by-step plan for medium and advanced questions."""

import dspy

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG
from modules.predictors.predictor import make_predictor, rules_fitted_to
from modules.predictors.stage_call import call_predictor
from modules.run.failures import FailureKind, StageFailure
from signatures import PlanQuery

__all__ = ["Decomposition"]

STAGE = "decomposition"


class Decomposition(dspy.Module):
    """Write the plan; an empty plan (after a failure) sends generation down the direct path."""

    def __init__(self, *, reasoning: bool = False, catalog: str = DEFAULT_CATALOG) -> None:
        super().__init__()
        self.catalog = catalog
        self.predict = make_predictor(PlanQuery, reasoning, rules=load_catalog(catalog).sql_rules)

    def forward(self, question: str, knowledge: str, schema_text: str) -> dspy.Prediction:
        """Plan the query.

        Returns:
            A prediction with `plan` (list of non-empty step strings) and `failures`.
        """
        fitted = rules_fitted_to(self.predict, load_catalog(self.catalog), schema_text)
        answer, failure = call_predictor(
            STAGE, self.predict, question=question, knowledge=knowledge, schema_text=schema_text, **fitted
        )
        plan = [str(step).strip() for step in (answer.plan if answer else []) if str(step).strip()]
        if answer and not plan:
            failure = StageFailure(STAGE, FailureKind.EMPTY, "The plan has no steps.")
        return dspy.Prediction(plan=plan, failures=[failure] if failure else [])
