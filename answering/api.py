"""Answer ALeRCE questions from Python: load the program compiled for a model once, then ask.

Example (in a notebook)::

    from answering import load

    with load("openai/gpt-4.1-mini") as t2s:      # artifacts/openai-gpt-4.1-mini/ztf, else uncompiled (warning)
        answer = t2s.ask("How many objects have more than 50 detections?")
    print(answer.sql)
    answer.frame        # a pandas DataFrame, or None when it could not answer
    answer.error        # why it could not answer, in one line (None when it did)
    answer.usage        # {stage: {"input_tokens", "output_tokens", "calls"}}
    answer.table        # an astropy Table with the catalog's units and descriptions
    answer.plot_sky()   # a matplotlib Figure of the positions (Aitoff), when the rows have RA/Dec
    answer.plot_lightcurve("ZTF20aaelulu")   # magpsf against MJD per band, limits as arrows
    answer.to_votable("answer.xml")
    answer.dates        # the MJD ranges of the question's dates, as the stages saw them
    answer.explanation  # what the SQL returns, in plain words, and the assumptions it took
    answer.alternatives # other readings of the question, when the candidates disagreed
    t2s.conversation()  # follow-up questions (answering.conversation)

``load()`` with no model uses the default local model; without ``engine`` the SQL runs on ``$ALERCE_DSN``, else the
embedded server; ``engine=EngineSettings(engine="tap")`` runs it on ALeRCE's TAP service as ADQL instead
(``tap_url`` picks another); ``engine=EngineSettings(catalog="multisurvey")`` asks about the Rubin/LSST and ZTF
multi-survey catalog (schema alerce_tap) with the program compiled for it (``artifacts/<model slug>/multisurvey``);
``program=ProgramSettings(without=("selection",))`` switches stages off. Generated SQL always passes the SQL guard
first, then runs read-only with a time limit.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Self

import dspy

import lms
from answering.answer import Answer
from answering.conversation import Conversation
from answering.errors import CannotFollowUp
from answering.question import Question
from db.engine import open_engine
from defaults.time_limits import ASK_CONNECT_S, ASK_QUERY_S
from engines import Engine, EngineSettings
from engines.errors import EngineError
from engines.guard import check_sql
from modules import DirectText2SQL
from modules.artifacts.load import load_program
from modules.predictors.adapter import default_adapter, make_adapter
from modules.settings import ProgramSettings

__all__ = ["Answer", "Text2SQL", "ask_defaults", "load"]


class Text2SQL:
    """A loaded program with its LM, adapter and executor; ``ask`` answers one question (thread-safe)."""

    def __init__(
        self,
        program: dspy.Module,
        *,
        lm: dspy.LM,
        executor: Engine,
        adapter: dspy.Adapter | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        """Wrap a built program; prefer ``load()``, which builds one from an artifact.

        Args:
            program: ``AlerceText2SQL`` or ``DirectText2SQL``, already holding ``executor``.
            lm: The LM every stage uses (unless a predictor has its own).
            executor: The engine that runs the generated SQL; closed by ``close()``.
            adapter: The adapter the program was compiled with, or the model's ``default_adapter`` when uncompiled
                (None: DSPy's default ChatAdapter).
            manifest: The artifact's manifest, or None when running uncompiled.
        """
        self.program = program
        self.lm = lm
        self.executor = executor
        self.adapter = adapter
        self.manifest = manifest

    @property
    def catalog(self) -> str:
        """The name of the catalog the program writes SQL for: its engine's (``load`` refuses any other)."""
        return self.executor.catalog

    def with_lm(self, lm: dspy.LM) -> Text2SQL:
        """Return a copy that uses another LM (e.g. ``lm.copy(rollout_id=run)``) and shares everything else."""
        return Text2SQL(self.program, lm=lm, executor=self.executor, adapter=self.adapter, manifest=self.manifest)

    def predict(self, question: Question) -> dspy.Prediction:
        """Run the program on a checked question and return its raw prediction (see the ``modules`` package).

        Raises:
            CannotFollowUp: A follow-up asked of the direct baseline, which answers each question on its own.
        """
        inputs = {
            "question": question.text,
            "external_knowledge": question.external_knowledge,
            "domain_knowledge": question.domain_knowledge,
        }
        if question.follow_up is not None:
            if isinstance(self.program, DirectText2SQL):
                raise CannotFollowUp(
                    "direct", "the direct baseline answers each question on its own; ask it without an earlier answer"
                )
            inputs["follow_up"] = question.follow_up
        with dspy.context(lm=self.lm, adapter=self.adapter):
            return self.program(**inputs)

    def conversation(self) -> Conversation:
        """Start a conversation: each question after the first follows up the answer before it."""
        return Conversation(self)

    def ask(
        self, question: str, external_knowledge: str = "", domain_knowledge: str = "", *, follows: Answer | None = None
    ) -> Answer:
        """Answer one question; an unusable LM answer or a failing query gives an ``Answer`` with ``error`` set.

        Args:
            question: The question in plain English.
            external_knowledge: Extra facts the question relies on ("" when none).
            domain_knowledge: Astronomy background for the question ("" when none).
            follows: An earlier answer this question follows up ("now only those with more than 50
                detections"): its question, SQL and explanation join the knowledge the stages see.

        Returns:
            The answer; ``answer.frame`` is None when it could not answer.

        Raises:
            BadQuestion: The question is empty, or a text is over its length limit.
            CannotFollowUp: `follows` failed, is on another catalog, or the program is the direct baseline.
            engines.errors.DatabaseUnavailable: The database cannot be reached.
            dspy.LMError: The LM refused every call (configuration, authentication or billing).
        """
        checked = Question.of(question, external_knowledge, domain_knowledge)
        return self.answer(checked.following(follows, self.catalog) if follows is not None else checked)

    def answer(self, question: Question) -> Answer:
        """Answer a question checked where it came in (``Question.of``); raises as ``ask``, bad texts aside."""
        started = time.perf_counter()
        pred = self.predict(question)
        error, error_kind = _why_unanswered(pred)
        # What the prediction holds under the answer's field names (None: the default); its error becomes one line.
        named = {field.name for field in dataclasses.fields(Answer)}
        known = {name: value for name, value in pred.items() if name in named and value is not None} | {
            "question": question.text,
            "sql": pred.sql,
            "catalog": self.catalog,
            "follows": question.follow_up.question if question.follow_up is not None else None,
            "error": error,
            "error_kind": error_kind,
            "seconds": time.perf_counter() - started,
            "engine": self.executor,
            "notice": lms.demo_model_notice(self.lm.model),
        }
        if pred.result is None:
            return Answer(frame=None, adql=_adql_tried(self.executor, pred.sql), **known)
        return Answer.of_result(pred.result, **known)

    def close(self) -> None:
        """Close the executor's connections."""
        self.executor.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _adql_tried(engine: Any, sql: str | None) -> str:
    """The ADQL a TAP engine sent for SQL that failed there ("" on PostgreSQL, or when it has no ADQL form)."""
    while engine is not None and not hasattr(engine, "translate"):
        engine = getattr(engine, "inner", None)
    if engine is None or not sql:
        return ""
    try:
        return engine.translate(check_sql(sql)).adql
    except EngineError:
        return ""


def _why_unanswered(pred: dspy.Prediction) -> tuple[str | None, str | None]:
    if pred.result is not None:
        return None, None
    if pred.error is not None:
        return f"could not answer ({pred.error.label}): {pred.error.message}", pred.error.label
    reasons = "; ".join(
        f"{f['stage']} {f['kind']}: {f['message']}" for f in pred.failures if f["stage"] == "generation"
    )
    detail = f" ({reasons})" if reasons else ""
    return f"could not answer (no_sql): the model gave no SELECT statement{detail}", "no_sql"


def load(
    model: str | None = None,
    *,
    program: ProgramSettings | None = None,
    engine: EngineSettings | Engine | None = None,
    lm: dspy.LM | None = None,
) -> Text2SQL:
    """Build the program for a model, load its compiled artifact and connect to the database.

    Args:
        model: ``provider/model`` string (``lms.resolve_lm``); None means the default local model. With the
            engine's catalog it names the artifact folder ``artifacts/<model slug>/<catalog>``.
        program: Which program answers (an artifact, uncompiled, the direct baseline) and the stage and candidate
            switches that adjust it; None loads the model's artifact as compiled.
        engine: Where the SQL runs and on which catalog's data (``EngineSettings``: the embedded ztf database by
            default, ``--dsn``, or a TAP service; ``catalog`` picks ztf or multisurvey, and the program answers for
            it; ``timeout_s`` limits each generated query, default 30 s), or an engine opened already (closed with
            the program).
        lm: A ready LM (tests, notebooks with custom settings); None resolves ``model``.

    Returns:
        The loaded program; close it (or use it as a context manager) to release the connections.

    Raises:
        lms.LMConfigError: Unknown model string, missing API key or missing local model package.
        modules.errors.PipelineError: The artifact is missing, does not match the code, or was compiled for another
            catalog than the engine's (``CatalogMismatch``).
        engines.errors.EngineError: The database cannot be reached (``DatabaseUnavailable``) or the server cannot
            start.
    """
    program = program or ProgramSettings()
    lm = lm if lm is not None else lms.resolve_lm(model)
    if isinstance(engine, EngineSettings | None):
        engine = open_engine(ask_defaults(engine or EngineSettings()))
    try:
        built, manifest = _build(model, engine, program)
        engine.fingerprint()  # fail fast on an unreachable database or service, before any LM call
    except BaseException:
        engine.close()
        raise
    adapter = make_adapter((manifest or {}).get("adapter") or default_adapter(model))
    return Text2SQL(built, lm=lm, executor=engine, adapter=adapter, manifest=manifest)


def ask_defaults(settings: EngineSettings) -> EngineSettings:
    """Fill the time limits an interactive question has by default (30 s per query, 5 s to connect)."""
    return dataclasses.replace(
        settings,
        timeout_s=ASK_QUERY_S if settings.timeout_s is None else settings.timeout_s,
        connect_timeout_s=ASK_CONNECT_S if settings.connect_timeout_s is None else settings.connect_timeout_s,
    )


def _build(model: str | None, engine: Engine, program: ProgramSettings) -> tuple[dspy.Module, dict[str, Any] | None]:
    """Build the program; its queries take the engine's time limit."""
    if program.direct:
        return DirectText2SQL(engine, catalog=engine.catalog), None
    return load_program(model, executor=engine, choice=program)
