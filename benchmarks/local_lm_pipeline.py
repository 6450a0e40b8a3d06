"""Measure a local model through the pipeline: compile on the project's example set, score on the dev set.

Compiling uses ``python -m compile``'s own ``run`` (the MQS strategy by default, on data/examples/examples.csv);
answering and scoring use ``python -m evaluate``'s model mode (``run_model``, ``score_predictions``), so numbers
match what those commands report. Every answer is saved under the report folder, so an interrupted run resumes.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from data.loader import dataset_sha256, example_set
from db.engine import open_engine
from engines import EngineSettings
from evaluation.ablation import Configuration, ablation_row
from evaluation.program_predictions import ModelRunSettings, Scorer, run_model
from evaluation.report import write_report
from evaluation.runner import score_predictions
from lms import model_slug, resolve_lm
from metric.gold_cache import GoldCache
from modules import OPTIONAL_STAGES
from modules.artifacts.load import MANIFEST_FILE, default_artifact_dir
from modules.settings import PipelineSettings, ProgramSettings
from optimizers.cli import run
from optimizers.settings import CompileSettings

if TYPE_CHECKING:
    import dspy

__all__ = [
    "DEMO_SOURCE_FRACTION",
    "PipelineBenchmarkSettings",
    "compiled_artifact",
    "measure_pipeline",
    "select_questions",
]

logger = logging.getLogger(__name__)

DEMO_SOURCE_FRACTION = 0.9
"""Share of each difficulty of the example set used as MQS demo source; the rest (5 of 53) scores the compile
(MQS selects nothing, so that score is only informative). The committed default artifact uses the same value."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class PipelineBenchmarkSettings:
    """How the pipeline part of the benchmark runs.

    Attributes:
        dataset: The dev split's CSV file.
        report_dir: Folder for compiled artifacts, predictions and reports (one sub-folder per model).
        stages: Stages switched on, compiled and uncompiled alike.
        adapter: Prompt format of the compiled program (``optimizers.settings.ADAPTERS``).
        k: MQS demos per question.
        schema_detail: Schema text of the compiled program (``modules.PipelineSettings.schema_detail``); the
            uncompiled program keeps the code default, so the comparison is what compiling changes.
        train_fraction: Share of the example set that serves as the demo source (the rest scores the compile).
        limit: Questions of the dev set to answer (None: all), taken round-robin over difficulties.
        reuse_artifacts: Use ``artifacts/<model-slug>/ztf`` when it was compiled with the same stages, adapter and k.
        dsn: The database (None: ``$ALERCE_DSN``, else the embedded server).
        timeout_s: Time limit of one query, in seconds.
    """

    dataset: Path
    report_dir: Path
    stages: tuple[str, ...]
    adapter: str = "chat"
    k: int = 2
    schema_detail: str = "names"
    train_fraction: float = DEMO_SOURCE_FRACTION
    limit: int | None = None
    reuse_artifacts: bool = True
    dsn: str | None = None
    timeout_s: float = 10.0


def select_questions(examples: Sequence[dspy.Example], limit: int | None) -> list[dspy.Example]:
    """Take ``limit`` questions round-robin over difficulties (in dataset order), or all of them.

    Returns:
        The chosen examples in their original order.
    """
    if limit is None or limit >= len(examples):
        return list(examples)
    by_difficulty: dict[str, list[int]] = defaultdict(list)
    for index, example in enumerate(examples):
        by_difficulty[str(example.get("difficulty", ""))].append(index)
    queues = [by_difficulty[name] for name in sorted(by_difficulty)]
    chosen: list[int] = []
    while len(chosen) < limit:
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return [examples[index] for index in sorted(chosen)]


def _matches(manifest: dict[str, Any], settings: CompileSettings) -> bool:
    saved, pipeline = manifest.get("settings") or {}, manifest.get("pipeline") or {}
    return (
        manifest.get("model") == settings.model
        and tuple(pipeline.get("stages") or ()) == settings.stages
        and manifest.get("adapter") == settings.adapter
        and saved.get("optimizer") == settings.optimizer
        and saved.get("k") == settings.k
        and pipeline.get("schema_detail", "full") == settings.schema_detail
    )


def compiled_artifact(model: str, settings: PipelineBenchmarkSettings) -> tuple[Path, str]:
    """Return the artifact folder of ``model`` compiled on the example set, compiling it if needed.

    Returns:
        The folder, and "committed" (``artifacts/<model-slug>/ztf`` reused) or "compiled" (written now).
    """
    compile_settings = CompileSettings(
        model=model,
        optimizer="mqs",
        pipeline=PipelineSettings(stages=settings.stages, schema_detail=settings.schema_detail),
        adapter=settings.adapter,
        k=settings.k,
        train_fraction=settings.train_fraction,
        num_threads=1,
    )
    committed = default_artifact_dir(model)
    if settings.reuse_artifacts and (committed / MANIFEST_FILE).is_file():
        manifest = json.loads((committed / MANIFEST_FILE).read_text(encoding="utf-8"))
        if _matches(manifest, compile_settings):
            return committed, "committed"
        logger.info("%s was compiled with other settings; compiling anew", committed)
    out = settings.report_dir / model_slug(model) / "artifact"
    if (out / MANIFEST_FILE).is_file():
        manifest = json.loads((out / MANIFEST_FILE).read_text(encoding="utf-8"))
        if _matches(manifest, compile_settings):
            return out, "compiled"
    return run(compile_settings, dataset=example_set(), engine=EngineSettings(dsn=settings.dsn), out=out), "compiled"


def _scorer(examples: Sequence[dspy.Example], settings: PipelineBenchmarkSettings) -> Scorer:
    """Score predictions the way ``python -m evaluate`` does, into a report folder."""

    def score(report_dir: Path, predictions: list, source: dict) -> dict:
        with open_engine(EngineSettings(dsn=settings.dsn, timeout_s=settings.timeout_s)) as executor:
            gold_cache = GoldCache(executor, timeout_s=3 * settings.timeout_s)
            records = score_predictions(
                predictions, examples, executor, gold_cache, timeout_s=settings.timeout_s, workers=1
            )
        run_settings = {"source": source, "dataset_path": str(settings.dataset), "timeout_s": settings.timeout_s}
        return write_report(records, report_dir, settings=run_settings, plot=False)

    return score


def _summary(name: str, report: dict) -> dict[str, Any]:
    """Reduce a report to the benchmark row: PM per difficulty, tokens, seconds, and what the SQL did."""
    row = ablation_row(Configuration(name), report)
    counts, source = report["counts"], report["settings"]["source"]
    row["executed"] = counts["items"] - counts["pred_errors"] - counts["missing"]
    row["no_sql"] = _count_empty_sql(Path(source["predictions_file"]))
    row["errors_by_kind"] = counts["pred_errors_by_kind"]
    return row


def _count_empty_sql(predictions_file: Path) -> int:
    lines = predictions_file.read_text(encoding="utf-8").splitlines()[1:]  # the first line is the header
    return sum(1 for line in lines if line.strip() and not json.loads(line).get("sql", "").strip())


def note(results: dict[str, Any]) -> str:
    """Say in one line whether compiling helped, with the facts that explain it."""
    before, after = results["uncompiled"], results["compiled"]
    verdict = "beats" if after["row_pm_overall"] > before["row_pm_overall"] else "does not beat"
    return (
        f"compiled {verdict} uncompiled on row PM ({after['row_pm_overall']:.3f} vs {before['row_pm_overall']:.3f}); "
        f"SQL that ran: {after['executed']} vs {before['executed']} of {after['items']}; no SQL: {after['no_sql']} vs "
        f"{before['no_sql']}; seconds per question {after['seconds_per_question']:.1f} vs "
        f"{before['seconds_per_question']:.1f}"
    )


def measure_pipeline(model: str, examples: Sequence[dspy.Example], settings: PipelineBenchmarkSettings) -> dict:
    """Score ``model`` uncompiled and compiled on ``examples``; return both summaries and where the artifact is.

    Returns:
        ``uncompiled`` and ``compiled`` rows (row and column PM per difficulty, tokens and seconds per question,
        answered / no_sql / sql_errors counts), ``artifact`` and ``artifact_source``.
    """
    lm: dspy.LM = resolve_lm(model)
    without = tuple(stage for stage in OPTIONAL_STAGES if stage not in settings.stages)
    identity = {"split": "dev", "dataset_sha256": dataset_sha256(settings.dataset), "n": len(examples)}
    score = _scorer(examples, settings)
    folder = settings.report_dir / model_slug(model)
    results: dict[str, Any] = {}
    for name in ("uncompiled", "compiled"):
        program = None
        if name == "compiled":
            program, results["artifact_source"] = compiled_artifact(model, settings)
            results["artifact"] = str(program)
        run_settings = ModelRunSettings(
            model=model,
            program=ProgramSettings(artifact=program, uncompiled=program is None, without=without),
            engine=EngineSettings(dsn=settings.dsn, timeout_s=settings.timeout_s),
            workers=1,
        )
        report = run_model(run_settings, examples, folder / name, score, dataset_identity=identity, lm=lm)
        results[name] = _summary(name, report)
    results["note"] = note(results)
    return results
