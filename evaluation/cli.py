"""Score predicted SQL against the benchmark's gold queries (row and column Perfect Match, value match).

Predictions come from a CSV or JSON file with req_id, sql and optionally run (any system can produce them), or
from running this project's program for --model (answers saved to <report>/predictions.jsonl as they finish).
Gold results are cached on disk per database, predictions run in parallel, and every finished item is saved to
<report>/checkpoint.jsonl, so rerunning with the same --report folder resumes an interrupted evaluation.
"""

import argparse
import functools
import hashlib
import json
import logging
import os
import sys
from datetime import datetime
from pathlib import Path

import dspy

from cli import logging_to_stderr
from data.errors import DataError
from data.loader import grounding_files, load_dataset, resolve_dataset_path, split_file
from db.engine import open_engine
from defaults.time_limits import EVALUATE_EMBEDDED_QUERY_S, EVALUATE_EXTERNAL_QUERY_S, GOLD_QUERY_FACTOR
from engines.errors import DatabaseUnavailable, EngineError
from engines.options import engine_settings
from engines.settings import DSN_ENV
from evaluation.ablation import render_ablation, run_ablation
from evaluation.arguments import build_parser, check_model_mode_arguments
from evaluation.checkpoint import CHECKPOINT_FILE, Checkpoint
from evaluation.errors import EvaluationError
from evaluation.predictions import Prediction, complete_predictions, read_predictions
from evaluation.program_predictions import ModelRunSettings, run_model
from evaluation.report import METRIC_VERSION, render_table, write_report
from evaluation.runner import score_predictions
from lms import LMConfigError
from metric.gold_cache import GoldCache
from modules.errors import PipelineError
from modules.settings import ProgramSettings, today_utc

__all__ = ["build_parser", "main"]

logger = logging.getLogger(__name__)


def _timeouts(args: argparse.Namespace) -> tuple[float, float, bool]:
    """Return the predicted and gold query time limits, and whether the database is external."""
    is_external = bool(args.engine == "tap" or args.dsn or os.environ.get(DSN_ENV))
    default_s = EVALUATE_EXTERNAL_QUERY_S if is_external else EVALUATE_EMBEDDED_QUERY_S
    timeout_s = args.timeout or default_s
    gold_timeout_s = args.gold_timeout or max(timeout_s, GOLD_QUERY_FACTOR * default_s)
    return timeout_s, gold_timeout_s, is_external


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _predictions_source(args: argparse.Namespace) -> tuple[list[Prediction], dict]:
    """Read the predictions named on the command line; return them and their description for the report."""
    path = Path(args.predictions).expanduser()
    predictions = read_predictions(path)
    return predictions, {"kind": "predictions", "path": str(path.resolve()), "sha256": _sha256(path)}


def _run(args: argparse.Namespace, report_dir: Path) -> dict:
    """Load everything, answer with the program in model mode, score, and write the report; return it."""
    predictions, source = _predictions_source(args) if args.predictions is not None else ([], {})
    dataset_file = split_file(resolve_dataset_path(args.dataset, args.catalog), args.split)
    examples = load_dataset(dataset_file, args.split)
    score = functools.partial(_score, args, examples=examples, dataset_file=dataset_file)
    if args.predictions is None:
        program = ProgramSettings(
            artifact=args.program,
            uncompiled=args.uncompiled,
            without=args.without,
            candidates=args.candidates,
            direct=args.direct,
            as_of=args.as_of or today_utc(),  # a concrete date, so the report records it and a resume keeps it
        )
        engine = engine_settings(args, ground=grounding_files(dataset_file), timeout_s=_timeouts(args)[0])
        settings = ModelRunSettings(
            model=args.model, program=program, engine=engine, runs=args.runs or 1, workers=args.workers
        )
        dataset_identity = {"split": args.split, "dataset_sha256": _sha256(dataset_file)}
        run = run_ablation if args.ablation else run_model
        return run(settings, examples, report_dir, score, dataset_identity=dataset_identity)
    predictions = complete_predictions(predictions, examples, source.get("path", "predictions"))
    return score(report_dir, predictions, source)


def _score(
    args: argparse.Namespace,
    report_dir: Path,
    predictions: list[Prediction],
    source: dict,
    *,
    examples: list,
    dataset_file: Path,
) -> dict:
    """Score one prediction per item against the gold results and write the report files; return the report."""
    timeout_s, gold_timeout_s, is_external = _timeouts(args)
    ground = grounding_files(dataset_file)  # the golds of every split of the dataset have answers
    settings = engine_settings(args, timeout_s=timeout_s, pool_size=max(2, args.workers), ground=ground)
    with open_engine(settings) as executor:
        gold_cache = GoldCache(executor, cache_dir=args.gold_cache and Path(args.gold_cache), timeout_s=gold_timeout_s)
        identity = {
            "metric_version": METRIC_VERSION,
            "catalog": args.catalog,
            "database_fingerprint": gold_cache.folder.name,
            "dataset_sha256": _sha256(dataset_file),
            "split": args.split,
            "timeout_s": timeout_s,
            "gold_timeout_s": gold_timeout_s,
        }
        checkpoint = Checkpoint(report_dir / CHECKPOINT_FILE, identity)
        records = score_predictions(
            predictions,
            examples,
            executor,
            gold_cache,
            timeout_s=timeout_s,
            workers=args.workers,
            checkpoint=checkpoint,
        )
    run_settings = {
        **identity,
        "database": "external" if is_external else "embedded",
        "dataset_path": str(dataset_file.resolve()),
        "source": source,
        "workers": args.workers,
        "max_rows": settings.max_rows,
    }
    return write_report(records, report_dir, settings=run_settings, convention=args.convention, plot=args.plot)


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m evaluate``; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    check_model_mode_arguments(parser, args)
    return run_parsed(args)


def run_parsed(args: argparse.Namespace) -> int:
    """Evaluate with parsed, checked ``python -m evaluate`` arguments; return the exit code."""
    with logging_to_stderr(args):
        return _evaluate(args)


def _evaluate(args: argparse.Namespace) -> int:
    report_dir = Path(args.report) if args.report else Path("reports") / datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        report = _run(args, report_dir)
    except DatabaseUnavailable as err:
        print(f"error: {err} Finished items are saved; rerun with --report {report_dir} to resume.", file=sys.stderr)
        return 1
    except (EvaluationError, DataError, EngineError, LMConfigError, PipelineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except dspy.LMError as err:
        print(f"error: the language model failed: {str(err).strip().splitlines()[0]}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"interrupted: finished items are saved; resume with --report {report_dir}", file=sys.stderr)
        return 130
    render = render_ablation if args.ablation else render_table
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else render(report))
    return 0
