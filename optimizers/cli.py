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

import platformdirs

from cli import add_verbosity_arguments, logging_to_stderr, positive_int
from data.errors import DataError
from data.loader import dataset_sha256, example_set, grounding_files, load_dataset, resolve_dataset_path, split_file
from data.options import add_dataset_argument
from db.engine import open_engine
from engines import EngineSettings
from engines.errors import DatabaseUnavailable, EngineError
from engines.options import add_engine_arguments, engine_settings
from lms import LMConfigError, LMUnusable, resolve_lm
from lms.options import add_model_argument
from metric.gold_cache import GoldCache
from modules.adapter import ADAPTERS
from modules.artifact import MANIFEST_FILE, default_artifact_dir
from modules.options import add_as_of_argument, add_candidates_argument
from modules.settings import SCHEMA_DETAILS, PipelineSettings, today_utc
from modules.stages import STAGES
from optimizers.errors import CompileError, OptimizerError
from optimizers.run import compile_program
from optimizers.saving import check_writable, save_artifact
from optimizers.settings import CompileSettings
from optimizers.strategies import STRATEGIES

__all__ = ["build_parser", "is_committed", "main", "run"]

logger = logging.getLogger(__name__)

EPILOG = """\
examples:
  python -m compile --model openai/gpt-4.1-mini --optimizer random-search --max-lm-calls 2000
  python -m compile --model local/smollm2-135m --optimizer mqs --k 3 --examples
  python -m compile --model openai/gpt-4.1-mini --catalog multisurvey --optimizer mqs --examples

writes:
  artifacts/<model-slug>/<catalog>/program.json   prompts and demos of every stage (DSPy JSON)
  artifacts/<model-slug>/<catalog>/manifest.json  the command, model, catalog, optimizer settings, stages, as-of
                                                  date, adapter, dataset sha256, the req_ids of each part,
                                                  held-out PM before/after, tokens and cost, versions

The catalog (--catalog, default ztf) is the one the program writes SQL for; its questions come from --dataset,
or --examples (the project's example set of that catalog; multisurvey has no benchmark, so it defaults to its
example set). An artifact folder whose manifest git tracks (the committed artifacts/local-gemma3-270m/ztf) is
only replaced with --force; use --out DIR to compile beside it.

LM calls are cached in the user cache folder (alerce-t2s/dspy; $DSPY_CACHEDIR overrides), so a restarted
compile does not pay twice.

exit codes: 0 done, 1 error (one line on stderr), 2 bad command line, 130 interrupted
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``python -m compile``."""
    parser = argparse.ArgumentParser(
        prog="python -m compile",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_argument(parser)
    parser.add_argument(
        "--optimizer",
        choices=tuple(STRATEGIES),
        default="random-search",
        help="compile strategy (default: %(default)s)",
    )
    source = parser.add_mutually_exclusive_group()
    add_dataset_argument(source)
    source.add_argument(
        "--examples",
        action="store_true",
        help="use the project's own example set of the catalog (data/examples/, see its README)",
    )
    parser.add_argument(
        "--stages", nargs="+", choices=STAGES, default=list(STAGES), help="stages switched on (default: all)"
    )
    add_candidates_argument(parser)
    add_as_of_argument(parser)
    parser.add_argument(
        "--num-threads", type=positive_int, default=2, help="parallel program runs (default: %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the split and the optimiser (default: %(default)s)"
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--max-lm-calls", type=positive_int, help="task-LM call budget (default: the optimizer's)")
    budget.add_argument("--trials", type=positive_int, help="candidate programs or trials instead of a call budget")
    parser.add_argument(
        "--reflection-model", help="model that writes instructions: required by gepa, used by mipro for its proposals"
    )
    parser.add_argument(
        "--adapter", choices=ADAPTERS, help="prompt format (default: chat for local/ models, else compact)"
    )
    parser.add_argument("--k", type=positive_int, default=3, help="demos per question (mqs) or per stage (labeled) "
                        "(default: %(default)s)")  # fmt: skip
    parser.add_argument(
        "--schema-detail",
        choices=SCHEMA_DETAILS,
        default="full",
        help="schema text shown when schema_linking is off; names suits small models (default: %(default)s)",
    )
    parser.add_argument(
        "--train-fraction",
        type=float,
        default=0.4,
        help="share of each difficulty used as demo source; of the rest, half selects (random-search, mipro, gepa) "
        "and the others are held out to score the program (default: %(default)s)",
    )
    parser.add_argument("--out", type=Path, help="artifact folder (default: artifacts/<model-slug>/<catalog>)")
    parser.add_argument(
        "--force", action="store_true", help="replace an artifact that git tracks (a committed result) in --out"
    )
    add_engine_arguments(parser)
    add_verbosity_arguments(parser)
    return parser


def _configure_lm_cache() -> None:
    """Keep DSPy's disk cache in a per-project folder before any LM call, so a restart reuses it."""
    import dspy

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
    lm = resolve_lm(settings.model)
    reflection_lm = resolve_lm(settings.reflection_model) if settings.reflection_model else None
    is_new = not out.exists()
    check_writable(out)
    _configure_lm_cache()
    ground = grounding_files(dataset)  # the golds of every split of the dataset have answers
    try:
        with open_engine(dataclasses.replace(engine, ground=ground)) as executor:
            gold_cache = GoldCache(executor)
            program, report = compile_program(
                settings, examples, executor=executor, gold_cache=gold_cache, lm=lm, reflection_lm=reflection_lm
            )
    except BaseException:
        if is_new:  # leave no empty artifact folder behind
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
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
    parser = build_parser()
    args = parser.parse_args(argv)
    settings = _settings(args, parser)
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
