"""The composed program: schema linking, classification, decomposition, generation, self-correction."""

import dspy

from db.catalog import Catalog, render_schema_text
from db.errors import ExecutionError
from modules.classification import Classification
from modules.decomposition import Decomposition
from modules.execution import Outcome, execute_with_corrections
from modules.generation import Generation
from modules.knowledge import format_knowledge
from modules.run_record import RunRecord
from modules.schema_linking import SchemaLinking
from modules.self_correction import SelfCorrection
from modules.settings import PipelineSettings
from modules.sql_executor import SQLExecutor, served_catalog

__all__ = ["AlerceText2SQL"]


class AlerceText2SQL(dspy.Module):
    """Answer an ALeRCE question with PostgreSQL; every stage is built, `settings.stages` switches them."""

    def __init__(self, executor: SQLExecutor | None = None, settings: PipelineSettings | None = None) -> None:
        """Build every stage.

        Args:
            executor: Runs the generated SQL for self-correction; None skips execution (and correction).
            settings: Stage switches, correction budget, timeout and reasoning; defaults to all stages on.
        """
        super().__init__()
        self.executor = executor
        self.settings = settings or PipelineSettings()
        reasoning = self.settings.reasoning
        self.schema_linking = SchemaLinking(reasoning=reasoning)
        self.classification = Classification(reasoning=reasoning)
        self.decomposition = Decomposition(reasoning=reasoning)
        self.generation = Generation(reasoning=reasoning)
        self.self_correction = SelfCorrection(reasoning=reasoning)
        # Optional per-question generation demos (optimizers.mqs.DemoRetriever): anything with demos(question).
        self.demo_retriever = None

    def forward(self, question: str, external_knowledge: object = "", domain_knowledge: object = "") -> dspy.Prediction:
        """Run the switched-on stages for one question; bad LM output is recorded in `failures`, never raised.

        Returns:
            A prediction with `sql`, `tables`, `columns`, `dropped_names`, `difficulty`, `plan`, `attempts`,
            `result`, `error`, `failures`, `usage` and `timings_s` (see `modules` package docstring).
        """
        record = RunRecord()
        knowledge = format_knowledge(external_knowledge, domain_knowledge)
        catalog = served_catalog(self.executor)
        link = self._link(question, knowledge, catalog, record)
        # Routing needs the shape of the schema, not the meaning of each column.
        structure = render_schema_text(catalog, link.tables, link.columns, detail="names")
        difficulty = self._classify(question, structure, record)
        plan = self._plan(question, knowledge, link.schema_text, difficulty, record)
        demos = self.demo_retriever.demos(question) if self.demo_retriever is not None else None
        with record.stage("generation"):
            generated = self.generation(
                question=question, knowledge=knowledge, schema_text=link.schema_text, plan=plan, demos=demos
            )
        record.add_failures(generated.failures)
        outcome = self._execute(question, knowledge, generated.sql, link, record)
        return record.prediction(
            outcome,
            tables=link.tables,
            columns=link.columns,
            dropped_names=link.dropped_names,
            difficulty=difficulty,
            plan=plan,
        )

    def _link(self, question: str, knowledge: str, catalog: Catalog, record: RunRecord) -> dspy.Prediction:
        if not self.settings.is_on("schema_linking"):
            return dspy.Prediction(
                tables=list(catalog.table_names),
                columns=None,
                schema_text=render_schema_text(catalog, detail=self.settings.schema_detail),
                dropped_names=[],
            )
        with record.stage("schema_linking"):
            link = self.schema_linking(question=question, knowledge=knowledge, catalog=catalog)
        record.add_failures(link.failures)
        return link

    def _classify(self, question: str, schema_text: str, record: RunRecord) -> str | None:
        if not self.settings.is_on("classification"):
            return None
        with record.stage("classification"):
            classified = self.classification(question=question, schema_text=schema_text)
        record.add_failures(classified.failures)
        return classified.difficulty

    def _plan(self, question: str, knowledge: str, schema_text: str, difficulty: str | None, record) -> list[str]:
        # An unknown difficulty (classification off or failed) escalates to planning.
        if not self.settings.is_on("decomposition") or difficulty == "simple":
            return []
        with record.stage("decomposition"):
            planned = self.decomposition(question=question, knowledge=knowledge, schema_text=schema_text)
        record.add_failures(planned.failures)
        return planned.plan

    def _execute(self, question: str, knowledge: str, sql: str, link: dspy.Prediction, record: RunRecord) -> Outcome:
        def correct(failed_sql: str, error: ExecutionError) -> str:
            with record.stage("self_correction"):
                repaired = self.self_correction(
                    question=question,
                    knowledge=knowledge,
                    failed_sql=failed_sql,
                    error=error,
                    tables=link.tables,
                    columns=link.columns,
                )
            record.add_failures(repaired.failures)
            return repaired.sql

        budget = self.settings.max_corrections if self.settings.is_on("self_correction") else 0
        return execute_with_corrections(
            self.executor, sql, correct, max_corrections=budget, timeout_s=self.settings.timeout_s
        )
