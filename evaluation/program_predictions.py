"""Run the text-to-SQL program over a dataset split, saving every answer as it finishes (predictions.jsonl).

The saved answers (SQL, attempts, token usage, seconds) let a report be recomputed without LM calls, and a rerun
with the same report folder resumes: questions answered under the same model, program, stages and dataset are
not asked again. The SQL is then scored exactly like a predictions file.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import dspy

import lms
from answering import Text2SQL, load
from answering.question import Question
from defaults.time_limits import POSTGRES_QUERY_S
from engines import EngineSettings
from engines.errors import DatabaseUnavailable, ErrorKind
from engines.outage import raise_if_connection_lost
from evaluation.checkpoint import Checkpoint
from evaluation.predictions import Prediction
from evaluation.report_names import PREDICTIONS_FILE
from evaluation.seen_questions import seen_in_compile
from lms import LMWatch
from lms.lm_watch import raise_if_every_call_failed
from lms.retries import retries_in_thread
from lms.usage import add_usage, price_usd, total_usage
from modules.settings import ProgramSettings

__all__ = [
    "PREDICTIONS_FILE",
    "ModelRunSettings",
    "Scorer",
    "failed_answer",
    "predict_dataset",
    "run_model",
    "usage_summary",
]

logger = logging.getLogger(__name__)

Scorer = Callable[[Path, list[Prediction], dict], dict]
"""Scores predictions into a report folder like predictions mode: (report_dir, predictions, source) -> report."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelRunSettings:
    """Which program runs over the dataset, where its SQL runs, and how often.

    Attributes:
        model: The model string (``lms.resolve_lm``); it also names the default artifact.
        program: The artifact, uncompiled or direct, and the stage and candidate switches.
        engine: Where the SQL runs; its ``timeout_s`` limits the program's own queries (self-correction).
        runs: Runs over the dataset (std is taken over runs); runs after the first bypass the LM cache.
        workers: Questions answered at once.
    """

    model: str
    program: ProgramSettings = dataclasses.field(default_factory=ProgramSettings)
    engine: EngineSettings = dataclasses.field(default_factory=lambda: EngineSettings(timeout_s=POSTGRES_QUERY_S))
    runs: int = 1
    workers: int = 2


def _run_lm(lm: dspy.LM, run: int) -> dspy.LM:
    """Return the LM of run ``run``: the same for run 0, else one whose answers are not taken from the cache."""
    if run == 0:
        return lm
    if lm.kwargs.get("temperature"):
        return lm.copy(rollout_id=run)
    return lm.copy(cache=False)  # rollout_id has no effect at temperature 0 (DSPy warns); skip the cache instead


def predict_one(t2s: Text2SQL, example: dspy.Example, run: int) -> dict[str, Any]:
    """Answer one question; return its JSON-ready record (req_id, run, sql, attempts, usage, seconds, ...).

    ``lm_retries`` counts the LM calls retried after a transient error while answering.

    Raises:
        engines.errors.DatabaseUnavailable: The database went away while the program ran its SQL (nothing to save).
    """
    started = time.perf_counter()
    retries_before = retries_in_thread()
    pred = t2s.predict(Question(example.question, example.external_knowledge, example.domain_knowledge))
    if pred.error is not None:
        raise_if_connection_lost(pred.error)
    return {
        "req_id": example.req_id,
        "run": run,
        "sql": pred.sql,
        "difficulty": pred.difficulty,
        "attempts": pred.attempts,
        "error_kind": pred.error.kind.value if pred.error is not None else None,
        "failures": pred.failures,
        "usage": pred.usage,
        "lm_retries": retries_in_thread() - retries_before,
        "seconds": round(time.perf_counter() - started, 3),
    }


def failed_answer(example: dspy.Example, run: int, err: Exception, *, seconds: float) -> dict[str, Any]:
    """The record of a question whose answering raised unexpectedly: no SQL (scored as missing), one failure.

    Examples:
        >>> example = dspy.Example(req_id=7, question="q")
        >>> failed_answer(example, 0, ValueError("lone surrogate"), seconds=0.5)["failures"]
        [{'stage': 'pipeline', 'kind': 'crash', 'message': 'ValueError: lone surrogate'}]
    """
    return {
        "req_id": example.req_id,
        "run": run,
        "sql": None,
        "difficulty": None,
        "attempts": [],
        "error_kind": ErrorKind.GENERAL.value,
        "failures": [{"stage": "pipeline", "kind": "crash", "message": f"{type(err).__name__}: {str(err)[:500]}"}],
        "usage": {},
        "lm_retries": 0,
        "seconds": round(seconds, 3),
    }


def predict_dataset(
    t2s: Text2SQL, examples: Sequence[dspy.Example], *, runs: int, workers: int, checkpoint: Checkpoint
) -> list[dict[str, Any]]:
    """Answer every question in every run in parallel, skipping those already in the checkpoint.

    Returns:
        One record per (run, question), in run then dataset order.

    A question whose answering raises anything else is recorded by ``failed_answer`` and the run goes on. Each
    record counts the LM calls made (``lm_calls``) and failed (``lm_failed_calls``) while answering it.

    Raises:
        KeyboardInterrupt: Interrupted; finished answers are in the checkpoint.
        engines.errors.DatabaseUnavailable, dspy.LMError: The database or the LM cannot be used at all.
    """
    from tqdm import tqdm

    done = {(record["req_id"], record["run"]): record for record in checkpoint.load()}
    keys = [(example, run) for run in range(runs) for example in examples]
    todo = [(example, run) for example, run in keys if (example.req_id, run) not in done]
    if len(todo) < len(keys):
        logger.info("resuming: %d of %d answers already in %s", len(keys) - len(todo), len(keys), checkpoint.path)
    answerers = {run: t2s.with_lm(_run_lm(t2s.lm, run)) for run in range(runs)}
    watch = LMWatch()

    def answer_and_save(example: dspy.Example, run: int) -> dict[str, Any]:
        started = time.perf_counter()
        calls_before, failed_before = watch.in_thread()
        try:
            with dspy.context(callbacks=[*dspy.settings.callbacks, watch]):
                record = predict_one(answerers[run], example, run)
        except (DatabaseUnavailable, dspy.LMError):
            raise
        except Exception as err:  # one question the program cannot handle must not end the run
            logger.warning("question %s run %s could not be answered: %r", example.req_id, run, err)
            record = failed_answer(example, run, err, seconds=time.perf_counter() - started)
        calls, failed = watch.in_thread()
        record |= {"lm_calls": calls - calls_before, "lm_failed_calls": failed - failed_before}
        checkpoint.append(record)
        return record

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="predict")
    try:
        futures = [pool.submit(answer_and_save, example, run) for example, run in todo]
        with tqdm(total=len(keys), initial=len(keys) - len(todo), desc="answer", file=sys.stderr, disable=None) as bar:
            for future in concurrent.futures.as_completed(futures):
                record = future.result()
                done[record["req_id"], record["run"]] = record
                bar.update()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [done[example.req_id, run] for example, run in keys]


def usage_summary(records: Sequence[dict[str, Any]], model: str) -> dict[str, Any]:
    """Sum tokens, calls, LM retries and seconds over answers, per stage and per question, and price them."""
    by_stage: dict[str, dict[str, int]] = {}
    for record in records:
        add_usage(by_stage, record["usage"])
    items = max(1, len(records))
    total = total_usage(by_stage)
    input_tokens, output_tokens = total["input_tokens"], total["output_tokens"]
    cost = price_usd(model, input_tokens, output_tokens)
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "calls": total["calls"],
        "lm_retries": sum(int(record.get("lm_retries") or 0) for record in records),
        "by_stage": by_stage,
        "cost_usd": cost,
        "input_tokens_per_question": input_tokens / items,
        "output_tokens_per_question": output_tokens / items,
        "cost_usd_per_question": None if cost is None else cost / items,
        "seconds_per_question": sum(float(record["seconds"]) for record in records) / items,
    }


def _describe(t2s: Text2SQL, settings: ModelRunSettings) -> dict[str, Any]:
    """Name what answers depend on: model, program state (prompts and demos), stage settings and adapter."""
    state = json.dumps(t2s.program.dump_state(), sort_keys=True, default=str)
    pipeline = getattr(t2s.program, "settings", None)
    return {
        "model": settings.model,
        "program": "direct" if settings.program.direct else "compiled" if t2s.manifest else "uncompiled",
        "program_sha256": hashlib.sha256(state.encode()).hexdigest(),
        "pipeline": json.loads(json.dumps(dataclasses.asdict(pipeline), default=str)) if pipeline is not None else None,
        "adapter": (t2s.manifest or {}).get("adapter"),
    }


def _raise_if_every_call_failed(records: Sequence[dict[str, Any]]) -> None:
    """Refuse to score a run whose every LM call failed (resumed answers included): it measured nothing."""
    calls = sum(int(record.get("lm_calls") or 0) for record in records)
    failed = sum(int(record.get("lm_failed_calls") or 0) for record in records)
    messages = [f["message"] for record in records for f in record["failures"] if f["kind"] == "lm_error"]
    raise_if_every_call_failed(calls, failed, messages[-1] if messages else None)


def run_model(
    settings: ModelRunSettings,
    examples: Sequence[dspy.Example],
    report_dir: Path,
    score: Scorer,
    *,
    dataset_identity: dict[str, Any],
    lm: dspy.LM | None = None,
) -> dict:
    """Answer the dataset with the program (resuming from ``predictions.jsonl``) and score the answers.

    Args:
        settings: The program and how to run it.
        examples: The dataset split.
        report_dir: Where predictions.jsonl and the report files go.
        score: Scores the SQL like predictions mode and writes the report.
        dataset_identity: JSON-ready facts naming the dataset (split, sha256); part of the resume check.
        lm: A ready LM (shared between ablation configurations); None resolves ``settings.model``.

    Returns:
        The report; ``settings.source`` describes the program and holds ``usage`` (``usage_summary``).

    Raises:
        lms.LMConfigError, modules.errors.PipelineError, engines.errors.EngineError: The model, artifact or database
            is unusable (``lms.LMUnusable``: every LM call of the run failed).
        evaluation.errors.CheckpointMismatch: predictions.jsonl was written for another program or dataset.
    """
    lm = lm if lm is not None else lms.resolve_lm(settings.model)
    with load(settings.model, program=settings.program, engine=settings.engine, lm=lm) as t2s:
        identity = {
            **_describe(t2s, settings),
            "catalog": settings.engine.catalog,
            **dataset_identity,
            "timeout_s": settings.engine.timeout_s,
        }
        seen = seen_in_compile(t2s.manifest, examples, dataset_identity.get("dataset_sha256", ""))
        if seen:
            logger.warning(
                "%d of the %d questions were in the split the program was compiled on (demos or selection), so "
                "their scores are optimistic; evaluate on questions compile did not see (e.g. --split test)",
                len(seen),
                len(examples),
            )
        checkpoint = Checkpoint(report_dir / PREDICTIONS_FILE, identity)
        records = predict_dataset(t2s, examples, runs=settings.runs, workers=settings.workers, checkpoint=checkpoint)
    _raise_if_every_call_failed(records)
    predictions = [Prediction(record["req_id"], record["run"], record["sql"]) for record in records]
    source = {
        "kind": "program",
        **identity,
        "runs": settings.runs,
        "predictions_file": str(checkpoint.path.resolve()),
        "usage": usage_summary(records, settings.model),
        "seen_in_compile": seen,
    }
    return score(report_dir, predictions, source)
