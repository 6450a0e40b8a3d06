"""SQL generation: direct, or following a plan when there is one; optionally step by step or sampled."""

import dspy

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG
from modules.predictors.extract_sql import extract_sql
from modules.predictors.predictor import make_predictor, rules_fitted_to
from modules.predictors.prefix_cache_adapter import laid_out
from modules.predictors.stage_call import call_predictor
from modules.run.failures import FailureKind, StageFailure
from signatures import GeneratePlannedSQL, GenerateSQL

__all__ = ["Generation"]

STAGE = "generation"


class Generation(dspy.Module):
    """Write the SQL; an empty `sql` with a failure when the LM gives no statement."""

    def __init__(self, *, reasoning: bool = False, catalog: str = DEFAULT_CATALOG) -> None:
        super().__init__()
        self.catalog = catalog
        rules = load_catalog(catalog).sql_rules
        self.direct = make_predictor(GenerateSQL, reasoning, rules=rules)
        self.planned = make_predictor(GeneratePlannedSQL, reasoning, rules=rules)

    def forward(
        self,
        question: str,
        knowledge: str,
        schema_text: str,
        plan: list[str] | None = None,
        demos: list[dspy.Example] | None = None,
        *,
        step_by_step: bool = False,
        config: dict[str, object] | None = None,
    ) -> dspy.Prediction:
        """Generate one SQL statement.

        Args:
            question: The astronomer's question.
            knowledge: Knowledge text (may be empty).
            schema_text: Schema shown to the model.
            plan: Steps from decomposition; None or empty uses the direct predictor.
            demos: Demos for this call only, replacing the predictor's own (per-question retrieval); None keeps them.
            step_by_step: Ask for short reasoning before the SQL (a candidate path; the predictor's demos stay).
            config: LM settings for this call only (a candidate's temperature and rollout id).

        Returns:
            A prediction with `sql` (possibly empty) and `failures`.
        """
        inputs = {"question": question, "knowledge": knowledge, "schema_text": schema_text}
        if demos is not None:
            inputs["demos"] = demos
        if config:
            inputs["config"] = config
        if plan:
            inputs["plan"] = plan
        predictor = self.planned if plan else self.direct
        if step_by_step:
            predictor = _reasoning_copy(predictor)
        inputs.update(rules_fitted_to(predictor, load_catalog(self.catalog), schema_text))
        if demos is not None:  # this question's own demos: no cache breakpoint after them
            inputs["signature"] = laid_out(inputs.get("signature", predictor.signature), question_demos=True)
        answer, failure = call_predictor(STAGE, predictor, **inputs)
        sql = extract_sql(answer.sql) if answer else ""
        if answer and not sql:
            failure = StageFailure(STAGE, FailureKind.EMPTY, "The answer holds no SELECT or WITH statement.")
        return dspy.Prediction(sql=sql, failures=[failure] if failure else [])


def _reasoning_copy(predictor: dspy.Predict) -> dspy.Predict:
    """Return an unnamed copy of `predictor` that reasons first (its demos and LM kept; not saved or compiled)."""
    if "reasoning" in predictor.signature.output_fields:
        return predictor
    copy = make_predictor(predictor.signature, reasoning=True)
    copy.demos, copy.lm = predictor.demos, predictor.lm
    return copy
