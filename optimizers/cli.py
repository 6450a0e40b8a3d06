"""Compile the program for one model and freeze it under artifacts/.

Splits the dataset per difficulty into train (demo source), validation (selection, for the optimizers that
select) and held-out questions, scores the uncompiled program on the held-out ones with execution-based row
Perfect-Match, optimises, scores again on them, and writes the artifact.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import dspy
import platformdirs

from cli import logging_to_stderr
from data.errors import DataError
from data.loader import dataset_sha256, example_set, grounding_files, load_dataset, resolve_dataset_path, split_file
from db.engine import open_engine
from engines import EngineSettings
from engines.errors import DatabaseUnavailable, EngineError
from engines.options import engine_settings
from lms import LMConfigError, LMUnusable, resolve_lm
from metric.gold_cache import GoldCache
from modules import AlerceText2SQL
from modules.artifacts.load import MANIFEST_FILE, default_artifact_dir
from modules.settings import PipelineSettings, today_utc
from optimizers.arguments import build_parser
from optimizers.errors import CompileError, OptimizerError
from optimizers.run import compile_program
from optimizers.saving import check_writable, save_artifact
from optimizers.settings import CompileSettings

__all__ = ["build_parser", "is_committed", "main", "run", "run_parsed"]

logger = logging.getLogger(__name__)


def _configure_lm_cache() -> None:
    """Keep DSPy's disk cache in a per-project folder before any LM call, so a restart reuses it."""
    folder = os.environ.get("DSPY_CACHEDIR") or str(Path(platformdirs.user_cache_dir("alerce-t2s")) / "dspy")
    dspy.configure_cache(enable_disk_cache=True, enable_memory_cache=True, disk_cache_dir=folder)


def _settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> CompileSettings:
    try:
        return CompileSettings(
            model=args.model,
            optimizer=args.optimizer,
            pipeline=PipelineSettings(
                stages=tuple(args.stages),
                schema_detail=args.schema_detail,
                candidates=args.candidates,
                catalog=args.catalog,
                as_of=args.as_of or today_utc(),  # recorded in the manifest; answers use the date they are asked
            ),
            adapter=args.adapter,
            seed=args.seed,
            num_threads=args.num_threads,
            max_lm_calls=args.max_lm_calls,
            trials=args.trials,
            reflection_model=args.reflection_model,
            k=args.k,
            train_fraction=args.train_fraction,
        )
    except ValueError as err:
        parser.error(str(err))
        raise  # parser.error exits


def is_committed(folder: Path) -> bool:
    """Tell whether git tracks the artifact in ``folder`` (its manifest); False without git or a repository."""
    manifest = folder / MANIFEST_FILE
    if not manifest.is_file():
        return False
    command = ["git", "ls-files", "--error-unmatch", MANIFEST_FILE]
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def run(
    settings: CompileSettings,
    *,
    dataset: Path,
    engine: EngineSettings,
    out: Path | None,
    force: bool = False,
    command: str | None = None,
) -> Path:
    """Compile, save and return the artifact folder.

    Args:
        settings: How to compile.
        dataset: The labelled questions.
        engine: Where SQL runs.
        out: The artifact folder (None: ``artifacts/<model-slug>/<catalog>``).
        force: Replace an artifact that git tracks in ``out``.
        command: The shell command to record in the manifest (None: this process's command line).

    Raises:
        CompileError, ArtifactMismatch: see ``optimizers.errors``; ``CompileError`` also when ``out`` holds a
            committed artifact and ``force`` is off.
        DataError, EngineError, LMConfigError: the dataset, database or model is not usable (``LMUnusable``: the LM
            failed fatally or on every call; nothing is written).
    """
    out = _target(settings, out, force)
    examples = load_dataset(dataset)
    program, report = _compiled(settings, examples, dataset=dataset, engine=engine, out=out)
    report["command"] = command or shlex.join(["python", *sys.orig_argv[1:]])
    report["dataset"] = {
        "name": split_file(dataset).name,
        "sha256": dataset_sha256(dataset),
        "n_examples": len(examples),
    }
    folder = save_artifact(program, out, report)
    scores = report["scores"]
    logger.info(
        "held-out PM %.3f -> %.3f; artifact in %s", scores["heldout_pm_before"], scores["heldout_pm_after"], folder
    )
    return folder


def _compiled(
    settings: CompileSettings, examples: list[dspy.Example], *, dataset: Path, engine: EngineSettings, out: Path
) -> tuple[AlerceText2SQL, dict[str, Any]]:
    """Compile on the engine, its database grounded on the dataset's golds; a new artifact folder is removed again
    when the compile fails."""
    lm = resolve_lm(settings.model)
    reflection_lm = resolve_lm(settings.reflection_model) if settings.reflection_model else None
    is_new = not out.exists()
    check_writable(out)
    _configure_lm_cache()
    ground = grounding_files(dataset)  # the golds of every split of the dataset have answers
    try:
        with open_engine(dataclasses.replace(engine, ground=ground)) as executor:
            return compile_program(
                settings,
                examples,
                executor=executor,
                gold_cache=GoldCache(executor),
                lm=lm,
                reflection_lm=reflection_lm,
            )
    except BaseException:
        if is_new:
            with contextlib.suppress(OSError):
                out.rmdir()
        raise


def _target(settings: CompileSettings, out: Path | None, force: bool) -> Path:
    """The artifact folder to write, after the checks that need no model, data or database."""
    if settings.optimizer == "gepa" and not settings.reflection_model:
        raise CompileError("The gepa optimizer needs a reflection model: add --reflection-model PROVIDER/MODEL.")
    out = out or default_artifact_dir(settings.model, settings.pipeline.catalog)
    if not force and is_committed(out):
        raise CompileError(
            f"'{out}' holds a committed artifact (git tracks its {MANIFEST_FILE}): pass --force to replace it, "
            "or --out DIR to compile elsewhere."
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m compile``; return the exit code."""
    return run_parsed(build_parser().parse_args(argv), argv)


def run_parsed(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """Compile with parsed ``python -m compile`` arguments (`argv` as given, for the manifest); return the exit code."""
    settings = _settings(args, build_parser())
    command = shlex.join(["python", "-m", "compile", *(sys.argv[1:] if argv is None else argv)])
    with logging_to_stderr(args):
        return _compile(args, settings, command)


def _compile(args: argparse.Namespace, settings: CompileSettings, command: str) -> int:
    try:
        examples = example_set(args.catalog)
        dataset = examples if args.examples else resolve_dataset_path(args.dataset, args.catalog)
        if args.examples and not examples.is_file():
            raise CompileError(f"The example set '{examples}' is missing; pass --dataset PATH instead.")
        folder = run(
            settings, dataset=dataset, engine=engine_settings(args), out=args.out, force=args.force, command=command
        )
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except DatabaseUnavailable as err:
        print(f"error: {err} LM calls made so far are cached; rerun the same command to resume.", file=sys.stderr)
        return 1
    except LMUnusable as err:
        print(f"error: {err} No artifact was written.", file=sys.stderr)
        return 1
    except (OptimizerError, DataError, EngineError, LMConfigError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    with contextlib.suppress(BrokenPipeError):
        print(folder)
    return 0
