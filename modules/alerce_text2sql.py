"""The composed program: dates, linking, classification, decomposition, candidates, checks, selection,
self-correction and explanation."""

import functools
from dataclasses import dataclass, field
from datetime import date

import dspy

from catalog import Catalog, load_catalog, render_schema_text
from engines import Engine
from engines.bounded import BoundedEngine
from engines.errors import ExecutionError
from metric.perfect_match import identifier_columns
from modules.classification import Classification
from modules.dates.stage import DateRange, date_ranges, render_ranges
from modules.decomposition import Decomposition
from modules.errors import CatalogMismatch
from modules.explanation import Explanation, read_schema_text
from modules.generation.demo_retriever import DemoRetriever
from modules.generation.stage import Generation
from modules.result_check.stage import ResultCheck
from modules.run.execution import Outcome, describe_outcome, execute_with_corrections, result_frame
from modules.run.findings import Finding, finding_record
from modules.run.follow_up import FollowUp, render_follow_up
from modules.run.knowledge import format_knowledge
from modules.run.record import RunRecord
from modules.run.served_catalog import served_catalog
from modules.schema_linking import SchemaLinking
from modules.selection.alternatives import alternatives
from modules.selection.candidates import CandidatePath, candidate_paths, run_concurrently
from modules.selection.stage import CandidateSelection
from modules.selection.vote import Candidate
from modules.self_correction.stage import SelfCorrection
from modules.settings import PipelineSettings, default_candidates
from modules.value_check.stage import ValueCheck

__all__ = ["AlerceText2SQL"]


@dataclass(frozen=True)
class _Shared:
    """What every candidate of one question starts from."""

    question: str
    knowledge: str
    catalog: Catalog
    schema_text: str
    link: dspy.Prediction
    plan: list[str]
    retrieved: list[dspy.Example] | None


@dataclass
class _Draft:
    """One candidate: how it was written, its execution, its value-check findings, its bookkeeping and DSPy trace."""

    path: CandidatePath
    outcome: Outcome
    findings: list[Finding] = field(default_factory=list)
    record: RunRecord = field(default_factory=RunRecord)
    trace: list = field(default_factory=list)


class AlerceText2SQL(dspy.Module):
    """Answer an ALeRCE question with PostgreSQL; every stage is built, `settings.stages` switches them."""

    def __init__(self, executor: Engine | None = None, settings: PipelineSettings | None = None) -> None:
        """Build every stage.

        Args:
            executor: Runs the generated SQL for self-correction and selection; None skips execution (and
                correction, selection and the result check). With the value check on, the vocabulary of its
                database is read here (once per database). It must serve the settings' catalog.
            settings: Stage switches, candidates, correction budget, timeout and reasoning; defaults to all on.

        Raises:
            CatalogMismatch: The executor serves another catalog than the one the program writes for.
        """
        super().__init__()
        settings = settings or PipelineSettings()
        if executor is not None and executor.catalog != settings.catalog:
            raise CatalogMismatch(
                f"The program writes SQL for the {settings.catalog} catalog, but its engine serves {executor.catalog}.",
                settings.catalog,
                executor.catalog,
            )
        self.executor = executor
        self._bounded = BoundedEngine(executor) if executor is not None else None
        self.settings = settings
        # Generation demos picked per question (the mqs strategy), part of the compiled state; None: compiled demos.
        self.demo_retriever: DemoRetriever | None = None
        reasoning, catalog = self.settings.reasoning, self.settings.catalog
        self.schema_linking = SchemaLinking(reasoning=reasoning, catalog=catalog)
        self.classification = Classification(reasoning=reasoning, catalog=catalog)
        self.decomposition = Decomposition(reasoning=reasoning, catalog=catalog)
        self.generation = Generation(reasoning=reasoning, catalog=catalog)
        self.self_correction = SelfCorrection(reasoning=reasoning, catalog=catalog)
        self.selection = CandidateSelection()
        self.values = ValueCheck.open(executor, catalog) if self.settings.is_on("value_check") else ValueCheck()
        self.result_check = ResultCheck()
        self.explanation = Explanation(reasoning=reasoning)

    def forward(
        self,
        question: str,
        external_knowledge: object = "",
        domain_knowledge: object = "",
        follow_up: FollowUp | None = None,
    ) -> dspy.Prediction:
        """Run the switched-on stages for one question; bad LM output is recorded in `failures`, never raised.

        The date stage's ranges and the earlier turn (`follow_up`) join the knowledge every stage sees.

        Returns:
            A prediction with `sql`, `as_of`, `dates`, `tables`, `columns`, `dropped_names`, `difficulty`, `plan`,
            `attempts`, `result`, `error`, `failures`, `usage`, `timings_s`, `candidates`, `selection`,
            `alternatives`, `findings` and `explanation` (see `modules` package docstring).
        """
        record = RunRecord()
        as_of = self.settings.reference_date() if self.settings.is_on("dates") else None
        dates = self._dates(question, as_of, record)
        knowledge = format_knowledge(
            external_knowledge, domain_knowledge, render_ranges(dates), render_follow_up(follow_up)
        )
        catalog = self._served_catalog
        link = self._link(question, knowledge, catalog, record)
        # Routing needs the shape of the schema, not the meaning of each column.
        structure = render_schema_text(catalog, link.tables, link.columns, detail="names")
        difficulty = self._classify(question, structure, record)
        plan = self._plan(question, knowledge, link.schema_text, difficulty, record)
        on = self.settings.is_on("value_check")
        values = self.values.prompt_text(link.tables, link.columns, question) if on else ""
        retrieved = self.demo_retriever.demos(question) if self.demo_retriever is not None else None
        schema_text = f"{link.schema_text}\n\n{values}" if values else link.schema_text
        shared = _Shared(question, knowledge, catalog, schema_text, link, plan, retrieved)
        paths = candidate_paths(self._candidate_count())
        drafts = run_concurrently([functools.partial(self._draft, path, shared) for path in paths])
        for draft in drafts:
            record.merge(draft.record)
        chosen, selection = self._select(shared, drafts, record)
        if dspy.settings.trace is not None:  # optimizers bootstrap demos from the trace: only the selected path's
            dspy.settings.trace.extend(chosen.trace)
        outcome, checked = self._check_result(shared, chosen.outcome, record)
        candidates = [describe_outcome(draft.path.name, draft.outcome) for draft in drafts]
        return record.prediction(
            outcome,
            as_of=as_of.isoformat() if as_of else None,
            dates=[date_range.as_dict() for date_range in dates],
            tables=link.tables,
            columns=link.columns,
            dropped_names=link.dropped_names,
            difficulty=difficulty,
            plan=plan,
            candidates=candidates,
            selection=selection,
            alternatives=alternatives(outcome.sql, candidates, selection),
            findings=[*(finding_record("value_check", finding) for finding in chosen.findings), *checked],
            explanation=self._explain(shared, outcome, record),
        )

    @functools.cached_property
    def _served_catalog(self) -> Catalog:
        """The catalog as the engine serves it: read and restricted at the first question, then kept."""
        return served_catalog(self.executor, load_catalog(self.settings.catalog))

    def _candidate_count(self) -> int:
        if not self.settings.is_on("selection") or self.executor is None:
            return 1
        return self.settings.candidates or default_candidates(self.generation.direct.lm or dspy.settings.lm)

    def _draft(self, path: CandidatePath, shared: _Shared) -> _Draft:
        """Write, value-check and execute one candidate by `path`, in a DSPy trace of its own (when tracing)."""
        with dspy.context(trace=[] if dspy.settings.trace is not None else None):
            draft = self._write(path, shared)
            draft.trace = dspy.settings.trace or []
        return draft

    def _write(self, path: CandidatePath, shared: _Shared) -> _Draft:
        record = RunRecord()
        own_demos = None if shared.retrieved is not None else []  # the compiled demos, or none when they are default
        with record.stage("generation"):
            generated = self.generation(
                question=shared.question,
                knowledge=shared.knowledge,
                schema_text=shared.schema_text,
                plan=shared.plan if path.use_plan else None,
                demos=shared.retrieved if path.demos == "default" else own_demos,
                step_by_step=path.step_by_step,
                config=path.config or None,
            )
        record.add_failures(generated.failures)
        sql, findings = self._check_values(generated.sql, shared, record)
        return _Draft(path, self._execute(shared, sql, record), findings, record)

    def _dates(self, question: str, as_of: date | None, record: RunRecord) -> list[DateRange]:
        if as_of is None:
            return []
        with record.stage("dates"):
            return date_ranges(question, as_of)

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

    def _check_values(self, sql: str, shared: _Shared, record: RunRecord) -> tuple[str, list[Finding]]:
        """Revise `sql` once when it compares a categorical column with an unknown value; replace what remains."""
        findings = self.values.findings(sql) if self.settings.is_on("value_check") else []
        if not findings:
            return sql, []
        finding, hints = self.values.revision_finding(findings)
        revised = self._revise("value_check", finding, shared, sql, hints, record)
        return self.values.replace(revised or sql), findings

    def _revise(self, stage: str, finding: Finding, shared: _Shared, sql: str, hints: str, record: RunRecord) -> str:
        """Ask self-correction's revision branch to fix what `stage` found in `sql`; "" when it gave no SQL."""
        with record.stage(stage):
            revised = self.self_correction.revise_after(
                finding,
                question=shared.question,
                knowledge=shared.knowledge,
                sql=sql,
                schema_text=shared.schema_text,
                hints=hints,
                stage=stage,
            )
        record.add_failures(revised.failures)
        return revised.sql

    def _select(self, shared: _Shared, drafts: list[_Draft], record: RunRecord) -> tuple[_Draft, dict | None]:
        if len(drafts) == 1:
            return drafts[0], None
        candidates = [Candidate(str(i), d.outcome.sql, result_frame(d.outcome)) for i, d in enumerate(drafts)]
        with record.stage("selection"):
            chosen = self.selection(
                shared.question,
                shared.knowledge,
                candidates,
                min_agreement=self.settings.min_agreement,
                ids=identifier_columns(self.settings.catalog),
            )
        record.add_failures(chosen.failures)
        selected = int(chosen.candidate.id)
        clusters = [[int(member) for member in cluster] for cluster in chosen.vote.clusters]
        described = {"selected": selected, "clusters": clusters, "disagree": chosen.disagree, "reasons": chosen.reasons}
        return drafts[selected], described

    def _check_result(self, shared: _Shared, outcome: Outcome, record: RunRecord) -> tuple[Outcome, list[dict]]:
        if not self.settings.is_on("result_check"):
            return outcome, []

        def retry(finding: Finding, sql: str) -> Outcome | None:
            revised = self._revise("result_check", finding, shared, sql, "", record)
            return self._execute(shared, revised, record) if revised and revised != sql else None

        return self.result_check(shared.question, outcome, retry)

    def _explain(self, shared: _Shared, outcome: Outcome, record: RunRecord) -> dict | None:
        """Explain the final SQL when it ran (or nothing ran it); never change it."""
        if not self.settings.is_on("explanation") or not outcome.sql or outcome.error is not None:
            return None
        schema_text = read_schema_text(outcome.sql, shared.catalog) or shared.schema_text
        with record.stage("explanation"):
            explained = self.explanation(
                question=shared.question, knowledge=shared.knowledge, schema_text=schema_text, sql=outcome.sql
            )
        record.add_failures(explained.failures)
        return explained.explanation

    def _execute(self, shared: _Shared, sql: str, record: RunRecord) -> Outcome:
        link = shared.link

        def correct(failed_sql: str, error: ExecutionError) -> str:
            with record.stage("self_correction"):
                repaired = self.self_correction(
                    question=shared.question,
                    knowledge=shared.knowledge,
                    failed_sql=failed_sql,
                    error=error,
                    tables=link.tables,
                    columns=link.columns,
                )
            record.add_failures(repaired.failures)
            return repaired.sql

        budget = self.settings.max_corrections if self.settings.is_on("self_correction") else 0
        return execute_with_corrections(
            self._bounded, sql, correct, max_corrections=budget, timeout_s=self.settings.timeout_s
        )
