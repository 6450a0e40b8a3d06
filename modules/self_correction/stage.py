"""Self-correction: one repair of a failed query given the typed error, or one revision after a check's finding."""

import dspy

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG
from engines.errors import ExecutionError
from modules.predictors.extract_sql import extract_sql
from modules.predictors.predictor import make_predictor
from modules.predictors.stage_call import call_predictor
from modules.run.failures import FailureKind, StageFailure
from modules.run.findings import Finding
from modules.self_correction.context import correction_context
from signatures import CorrectSQL, ReviseSQL

__all__ = ["SelfCorrection"]

STAGE = "self_correction"


class SelfCorrection(dspy.Module):
    """Rewrite a failed query, or one a check found wrong; an empty `sql` with a failure when the LM gives none."""

    def __init__(self, *, reasoning: bool = False, catalog: str = DEFAULT_CATALOG) -> None:
        super().__init__()
        self.catalog = catalog
        self.predict = make_predictor(CorrectSQL, reasoning, rules=load_catalog(catalog).sql_rules)
        self.revise = make_predictor(ReviseSQL, reasoning, rules=load_catalog(catalog).sql_rules)

    def forward(
        self,
        question: str,
        knowledge: str,
        failed_sql: str,
        error: ExecutionError,
        *,
        tables: list[str],
        columns: dict[str, list[str]] | None = None,
    ) -> dspy.Prediction:
        """Correct `failed_sql`.

        Args:
            question: The astronomer's question.
            knowledge: Knowledge text (may be empty).
            failed_sql: The statement that failed.
            error: Its execution error.
            tables: Linked tables (the schema shown to the model starts from them).
            columns: Linked columns, or None for all.

        Returns:
            A prediction with `sql` (possibly empty) and `failures`.
        """
        schema_text, hints = correction_context(load_catalog(self.catalog), error, tables, columns)
        answer, failure = call_predictor(
            STAGE,
            self.predict,
            question=question,
            knowledge=knowledge,
            schema_text=schema_text,
            failed_sql=failed_sql,
            error_kind=error.kind.value,
            error_message=error.message,
            hints=hints,
        )
        return _answered_sql(STAGE, answer, failure)

    def revise_after(
        self, finding: Finding, *, question: str, knowledge: str, sql: str, schema_text: str, hints: str, stage: str
    ) -> dspy.Prediction:
        """Revise `sql` once after a check's `finding` (the branch of its kind).

        Args:
            finding: What the check found.
            question: The astronomer's question.
            knowledge: Knowledge text (may be empty).
            sql: The statement the check found wrong.
            schema_text: The schema shown to generation.
            hints: Valid values of the columns involved (may be empty).
            stage: The checking stage, named in failures.

        Returns:
            A prediction with `sql` (possibly empty) and `failures`.
        """
        answer, failure = call_predictor(
            stage,
            self.revise,
            question=question,
            knowledge=knowledge,
            schema_text=schema_text,
            checked_sql=sql,
            finding_kind=finding.kind.value,
            finding=finding.message,
            hints=hints,
        )
        return _answered_sql(stage, answer, failure)


def _answered_sql(stage: str, answer: dspy.Prediction | None, failure: StageFailure | None) -> dspy.Prediction:
    sql = extract_sql(answer.sql) if answer else ""
    if answer and not sql:
        failure = StageFailure(stage, FailureKind.EMPTY, "The answer holds no SELECT or WITH statement.")
    return dspy.Prediction(sql=sql, failures=[failure] if failure else [])
