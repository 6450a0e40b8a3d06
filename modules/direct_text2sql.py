"""The paper's direct-inference baseline: one LM call with the full schema, one execution."""

import dspy

from catalog import load_catalog, render_schema_text
from defaults.catalog import DEFAULT_CATALOG
from engines import Engine
from modules.predictors.extract_sql import extract_sql
from modules.predictors.predictor import make_predictor
from modules.predictors.prefix_cache_adapter import laid_out
from modules.predictors.stage_call import call_predictor
from modules.run.execution import describe_outcome, execute_with_corrections
from modules.run.failures import FailureKind, StageFailure
from modules.run.knowledge import format_knowledge
from modules.run.record import RunRecord
from modules.run.served_catalog import served_catalog, with_targets
from signatures import GenerateSQL

__all__ = ["DirectText2SQL"]


class DirectText2SQL(dspy.Module):
    """Generate SQL in one call from the question, knowledge and the whole schema; no linking, no repair."""

    def __init__(
        self,
        executor: Engine | None = None,
        *,
        timeout_s: float | None = None,
        reasoning: bool = False,
        catalog: str = DEFAULT_CATALOG,
    ) -> None:
        """Build the single predictor `generation`.

        Args:
            executor: Runs the SQL once; None skips execution.
            timeout_s: Statement timeout for that execution (None: the executor's default).
            reasoning: Ask for a `reasoning` output before the SQL.
            catalog: The name of the catalog it writes SQL for.
        """
        super().__init__()
        self.executor = executor
        self.timeout_s = timeout_s
        self.reasoning = reasoning
        self.catalog = catalog
        self.generation = make_predictor(GenerateSQL, reasoning, rules=load_catalog(catalog).sql_rules)

    def forward(self, question: str, external_knowledge: object = "", domain_knowledge: object = "") -> dspy.Prediction:
        """Answer one question; the prediction has the same fields as `AlerceText2SQL`'s."""
        record = RunRecord()
        catalog = with_targets(served_catalog(self.executor, load_catalog(self.catalog)))
        with record.stage("generation"):
            answer, failure = call_predictor(
                "generation",
                self.generation,
                signature=laid_out(self.generation.signature, stable=("schema_text",)),  # the whole catalog
                question=question,
                knowledge=format_knowledge(external_knowledge, domain_knowledge),
                schema_text=render_schema_text(catalog),
            )
        sql = extract_sql(answer.sql) if answer else ""
        if answer and not sql:
            failure = StageFailure("generation", FailureKind.EMPTY, "The answer holds no SELECT or WITH statement.")
        record.add_failures([failure] if failure else [])
        outcome = execute_with_corrections(
            self.executor, sql, _no_correction, max_corrections=0, timeout_s=self.timeout_s
        )
        return record.prediction(
            outcome,
            tables=list(catalog.table_names),
            columns=None,
            dropped_names=[],
            difficulty=None,
            plan=[],
            candidates=[describe_outcome("direct", outcome)],
            selection=None,
            findings=[],
        )


def _no_correction(sql: str, error: Exception) -> str:
    return ""
