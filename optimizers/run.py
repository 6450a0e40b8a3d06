"""Run one compile: split the data, score the program, optimise, score again, and describe the run."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import dspy
import psycopg
import sqlglot

from engines.outage import OutageGuard
from lms import LMWatch
from lms.retries import retries_total
from lms.usage import SharedUsageTracker, UsageTotals, per_model
from metric.dspy_metric import make_feedback_metric, make_pm_metric
from modules import AlerceText2SQL
from modules.artifacts.load import signature_hash
from modules.predictors.adapter import make_adapter
from modules.settings import PipelineSettings, default_candidates
from optimizers.settings import CompileSettings
from optimizers.strategies import SELECTING, STRATEGIES, CompileContext, as_demo_source, split_examples

if TYPE_CHECKING:
    from metric.gold_cache import GoldCache
    from modules import Engine

__all__ = ["compile_program", "evaluate_pm"]

logger = logging.getLogger(__name__)

# The train, validation and held-out examples of a compile.
Parts = tuple[list[dspy.Example], list[dspy.Example], list[dspy.Example]]


def _metered(metric: Any, usage: UsageTotals, guard: OutageGuard) -> Any:
    def metered(example: dspy.Example, pred: Any, trace: object = None) -> Any:
        with guard.watching():
            usage.add(getattr(pred, "usage", None))
            return metric(example, pred, trace)

    return metered


def _metered_feedback(metric: Any, usage: UsageTotals, guard: OutageGuard) -> Any:
    # GEPA reads the parameter names, so they must be spelled out; per-predictor feedback calls rescore a
    # prediction already counted, so only whole-program calls (pred_name None) add usage.
    def metered(gold: dspy.Example, pred: Any, trace: object = None, pred_name=None, pred_trace=None) -> Any:
        with guard.watching():
            if pred_name is None:
                usage.add(getattr(pred, "usage", None))
            return metric(gold, pred, trace, pred_name, pred_trace)

    return metered


def evaluate_pm(program: Callable[..., Any], examples: list[dspy.Example], metric: Any, num_threads: int) -> float:
    """Return the mean row PM of ``program`` on ``examples`` (0 to 1), with a progress bar when stderr is a terminal."""
    if not examples:
        return 0.0
    evaluate = dspy.Evaluate(
        devset=examples,
        metric=metric,
        num_threads=num_threads,
        display_progress=sys.stderr.isatty(),
        max_errors=len(examples) + 1,
    )
    with contextlib.redirect_stdout(sys.stderr):
        return evaluate(program).score / 100


def _versions() -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "dspy": dspy.__version__,
        "sqlglot": sqlglot.__version__,
        "psycopg": psycopg.__version__,
    }


def compile_program(
    settings: CompileSettings,
    examples: list[dspy.Example],
    *,
    executor: Engine,
    gold_cache: GoldCache,
    lm: dspy.LM,
    reflection_lm: dspy.LM | None = None,
) -> tuple[AlerceText2SQL, dict[str, Any]]:
    """Compile the program with the chosen strategy and describe the run.

    Args:
        settings: The compile settings.
        examples: The labelled dataset; split into train, validation and held-out parts by ``settings``.
        executor: Runs predicted SQL (read-only database).
        gold_cache: Gold results for the metric.
        lm: The task model.
        reflection_lm: The model that rewrites instructions (gepa).

    Returns:
        The compiled program and the manifest entries of the run (without dataset facts); ``usage.lm_retries``
        counts the LM calls retried after transient errors; ``split`` lists the req_ids of each part;
        ``scores`` are row PM on the held-out part, before and after.

    Raises:
        DatabaseUnavailable: The database went away during a phase (DSPy would have scored the rest as zeros).
        LMUnusable: A fatal LM error (``lms.FATAL_LM_ERRORS``) happened, or every LM call of a phase failed.
    """
    started, retries_before = time.monotonic(), retries_total()
    guard = OutageGuard(executor)
    # Candidates resolved: the manifest records the K compiled with.
    pipeline = dataclasses.replace(settings.pipeline, candidates=settings.pipeline.candidates or default_candidates(lm))
    student = AlerceText2SQL(guard, pipeline)
    parts = split_examples(
        as_demo_source(examples), settings.train_fraction, settings.seed, selects=settings.optimizer in SELECTING
    )
    logger.info("%d train, %d validation and %d held-out examples", *map(len, parts))
    usage, tracker = UsageTotals(), SharedUsageTracker()
    context = _context(settings, guard, gold_cache, usage, reflection_lm)
    with dspy.context(lm=lm, adapter=make_adapter(settings.adapter), usage_tracker=tracker):
        compiled, scores = _optimise(student, parts, context, guard)
    report = {
        **_describe_settings(settings, pipeline, signature_hash(student)),
        "split": _describe_split(parts, settings.seed),
        "scores": scores,
        "usage": {
            "per_stage": usage.as_dict(),
            "per_model": per_model(tracker),
            "lm_retries": retries_total() - retries_before,
        },
        "versions": _versions(),
        "elapsed_s": round(time.monotonic() - started, 3),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return compiled, report


def _context(
    settings: CompileSettings, guard: OutageGuard, gold_cache: GoldCache, usage: UsageTotals, reflection_lm: Any
) -> CompileContext:
    """What the strategy works with: the metrics (their LM usage counted, outages watched) and the reflection LM."""
    return CompileContext(
        settings=settings,
        metric=_metered(make_pm_metric(guard, gold_cache), usage, guard),
        feedback_metric=_metered_feedback(make_feedback_metric(guard, gold_cache), usage, guard),
        reflection_lm=reflection_lm,
    )


def _optimise(
    student: AlerceText2SQL, parts: Parts, context: CompileContext, guard: OutageGuard
) -> tuple[AlerceText2SQL, dict[str, float]]:
    """Score the student on the held-out part, run the strategy, score the result; each phase watched for outages."""
    settings, metric = context.settings, context.metric
    train, validation, heldout = parts
    watch = LMWatch()
    with dspy.context(callbacks=[*dspy.settings.callbacks, watch]):
        with guard.phase(), watch.phase():
            before = evaluate_pm(watch.guarded(student), heldout, metric, settings.num_threads)
        logger.info("held-out PM before: %.3f", before)
        with guard.phase(), watch.phase(), contextlib.redirect_stdout(sys.stderr):
            compiled = STRATEGIES[settings.optimizer](student, train, validation, context)
        with guard.phase(), watch.phase():
            after = (
                before
                if settings.optimizer == "none"
                else evaluate_pm(watch.guarded(compiled), heldout, metric, settings.num_threads)
            )
        logger.info("held-out PM after: %.3f", after)
    return compiled, {"heldout_pm_before": before, "heldout_pm_after": after}


def _describe_settings(settings: CompileSettings, pipeline: PipelineSettings, code_hash: str) -> dict[str, Any]:
    """The manifest's account of what was compiled; the pipeline (with its stages) is stored once, as resolved."""
    given = dataclasses.asdict(settings)
    del given["pipeline"]
    return {
        "model": settings.model,
        "catalog": pipeline.catalog,
        "optimizer": settings.optimizer,
        "settings": given,
        "pipeline": dataclasses.asdict(pipeline),
        "adapter": settings.adapter,
        "signature_hash": code_hash,
    }


def _describe_split(parts: Parts, seed: int) -> dict[str, Any]:
    train, validation, heldout = parts
    return {
        "n_train": len(train),
        "n_validation": len(validation),
        "n_heldout": len(heldout),
        "seed": seed,
        "train_req_ids": [example.get("req_id") for example in train],
        "validation_req_ids": [example.get("req_id") for example in validation],
        "heldout_req_ids": [example.get("req_id") for example in heldout],
    }
