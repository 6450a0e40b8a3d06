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

from cli import add_verbosity_arguments, logging_to_stderr, positive_float, positive_int
from data.errors import DataError
from data.loader import ENV_VAR, SPLITS, grounding_files, load_dataset, resolve_dataset_path, split_file
from data.options import add_dataset_argument
from db.engine import open_engine
from defaults.time_limits import EVALUATE_EMBEDDED_QUERY_S, EVALUATE_EXTERNAL_QUERY_S, GOLD_QUERY_FACTOR
from engines.errors import DatabaseUnavailable, EngineError
from engines.options import add_engine_arguments, engine_settings
from engines.settings import DSN_ENV
from evaluation.ablation import add_model_mode_arguments, check_model_mode_arguments, render_ablation, run_ablation
from evaluation.checkpoint import CHECKPOINT_FILE, Checkpoint
from evaluation.errors import EvaluationError
from evaluation.predictions import Prediction, complete_predictions, read_predictions
from evaluation.program_predictions import PREDICTIONS_FILE, ModelRunSettings, run_model
from evaluation.report import CONVENTIONS, METRIC_VERSION, PLOT_FILE, render_table, write_report
from evaluation.runner import score_predictions
from lms import LMConfigError
from metric.gold_cache import GoldCache, default_cache_dir
from modules.errors import PipelineError
from modules.settings import ProgramSettings, today_utc

__all__ = ["build_parser", "main"]

logger = logging.getLogger(__name__)


EXAMPLES = f"""examples:
  python -m evaluate --predictions preds.csv --plot
  python -m evaluate --catalog multisurvey --predictions preds.csv    on the multi-survey example set
  python -m evaluate --predictions preds.json --dsn postgresql://reader@host/alerce --workers 4 --json > report.json
  python -m evaluate --model openai/gpt-4.1-mini --runs 3 --without decomposition
  python -m evaluate --model openai/gpt-4.1-mini --ablation

files written (in --report, default reports/<timestamp>):
  report.json        settings (catalog, timeouts, database fingerprint, dataset sha256), counts and every rate
  per_question.csv   one row per question and run: rows, error kind and message, row/column PM, value match
  checkpoint.jsonl   finished items; rerun with the same --report to resume
  {PREDICTIONS_FILE:<18} with --model: the program's answers (sql, attempts, usage, seconds); resumed likewise
  ablation.json/.csv with --ablation: one row per configuration (each has its own sub-folder of the files above)
  {PLOT_FILE:<18} with --plot: row and formatted column PM per difficulty

environment: {ENV_VAR} (dataset when --dataset is not given), {DSN_ENV} (database when --dsn is not given)
exit codes: 0 done, 1 bad input or database unreachable (one line on stderr), 2 bad command line, 130 interrupted
"""


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``python -m evaluate``; the ``source`` group takes one prediction source."""
    parser = argparse.ArgumentParser(
        prog="python -m evaluate",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--predictions", metavar="FILE", help="CSV or JSON file with req_id, sql and optionally run")
    add_model_mode_arguments(parser, source)
    add_dataset_argument(parser)
    parser.add_argument("--split", choices=SPLITS, default="dev", help="dataset split (default: %(default)s)")
    add_engine_arguments(parser)
    parser.add_argument("--workers", type=positive_int, default=2, help="items scored at once (default: %(default)s)")
    parser.add_argument(
        "--timeout",
        type=positive_float,
        metavar="S",
        help=f"time limit of a predicted query in seconds (default: {EVALUATE_EXTERNAL_QUERY_S:g} with --dsn, "
        f"${DSN_ENV} or --engine tap, {EVALUATE_EMBEDDED_QUERY_S:g} on the embedded database)",
    )
    parser.add_argument(
        "--gold-timeout",
        type=positive_float,
        metavar="S",
        help=f"time limit of a gold query in seconds (default: {GOLD_QUERY_FACTOR:g} times the database's "
        "default, at least --timeout)",
    )
    _add_output_options(parser)
    return parser


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """Add the options choosing what is written and printed."""
    parser.add_argument("--report", metavar="DIR", help="report folder (default: reports/<timestamp>)")
    parser.add_argument("--gold-cache", metavar="DIR", help=f"gold result cache (default: {default_cache_dir()})")
    parser.add_argument(
        "--plot", action=argparse.BooleanOptionalAction, default=False, help="draw the PNG bar chart (default: off)"
    )
    parser.add_argument(
        "--convention",
        choices=tuple(CONVENTIONS),
        default="paper",
        help="gold errors count as failures (paper) or are excluded from every rate (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print report.json on stdout instead of the table")
    add_verbosity_arguments(parser)


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
