"""SQL generation: direct, or following a plan when there is one."""

import dspy

from modules.extract_sql import extract_sql
from modules.failures import FailureKind, StageFailure
from modules.predictor import make_predictor
from modules.stage_call import call_predictor
from signatures import GeneratePlannedSQL, GenerateSQL

__all__ = ["Generation"]

STAGE = "generation"


class Generation(dspy.Module):
    """Write the SQL; an empty `sql` with a failure when the LM gives no statement."""

    def __init__(self, *, reasoning: bool = False) -> None:
        super().__init__()
        self.direct = make_predictor(GenerateSQL, reasoning)
        self.planned = make_predictor(GeneratePlannedSQL, reasoning)

    def forward(
        self,
        question: str,
        knowledge: str,
        schema_text: str,
        plan: list[str] | None = None,
        demos: list[dspy.Example] | None = None,
    ) -> dspy.Prediction:
        """Generate one SQL statement.

        Args:
            question: The astronomer's question.
            knowledge: Knowledge text (may be empty).
            schema_text: Schema shown to the model.
            plan: Steps from decomposition; None or empty uses the direct predictor.
            demos: Demos for this call only, replacing the predictor's own (per-question retrieval); None keeps them.

        Returns:
            A prediction with `sql` (possibly empty) and `failures`.
        """
        inputs = {"question": question, "knowledge": knowledge, "schema_text": schema_text}
        if demos is not None:
            inputs["demos"] = demos
        if plan:
            answer, failure = call_predictor(STAGE, self.planned, plan=plan, **inputs)
        else:
            answer, failure = call_predictor(STAGE, self.direct, **inputs)
        sql = extract_sql(answer.sql) if answer else ""
        if answer and not sql:
            failure = StageFailure(STAGE, FailureKind.EMPTY, "The answer holds no SELECT or WITH statement.")
        return dspy.Prediction(sql=sql, failures=[failure] if failure else [])
