"""The command line of ``python -m evaluate``, kept apart from the scorer so that ``--help`` answers at once.

It imports nothing heavy (no DSPy, pandas or LiteLLM): ``evaluate.py`` parses and checks the arguments with it and
only then imports ``evaluation.cli``.
"""

import argparse

from cli import add_verbosity_arguments, comma_choices, positive_float, positive_int
from data.options import ENV_VAR, SPLITS, add_dataset_argument
from defaults.time_limits import EVALUATE_EMBEDDED_QUERY_S, EVALUATE_EXTERNAL_QUERY_S, GOLD_QUERY_FACTOR
from engines.options import add_engine_arguments
from engines.settings import DSN_ENV
from evaluation.report_names import CONVENTIONS, PLOT_FILE, PREDICTIONS_FILE
from lms.options import add_model_argument
from modules.options import add_as_of_argument, add_candidates_argument
from modules.stages import OPTIONAL_STAGES

__all__ = ["build_parser", "check_model_mode_arguments"]

DESCRIPTION = """\
Score predicted SQL against the benchmark's gold queries (row and column Perfect Match, value match).

Predictions come from a CSV or JSON file with req_id, sql and optionally run (any system can produce them), or
from running this project's program for --model (answers saved to <report>/predictions.jsonl as they finish).
Gold results are cached on disk per database, predictions run in parallel, and every finished item is saved to
<report>/checkpoint.jsonl, so rerunning with the same --report folder resumes an interrupted evaluation.
"""

_MODEL_ONLY = ("program", "uncompiled", "without", "candidates", "direct", "ablation", "runs", "as_of")

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
        description=DESCRIPTION,
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
    parser.add_argument(
        "--gold-cache",
        metavar="DIR",
        help="gold result cache (default: gold/ in the user cache folder alerce-t2s)",
    )
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


def add_model_mode_arguments(parser: argparse.ArgumentParser, source: argparse._MutuallyExclusiveGroup) -> None:
    """Add ``--model`` to the prediction-source group, and the options that only model mode takes."""
    add_model_argument(
        source,
        purpose="run the program with this language model (its artifacts/<model-slug>/<catalog>, see --program) and "
        "score its answers",
    )
    compiled = parser.add_mutually_exclusive_group()
    compiled.add_argument("--program", metavar="PATH", help="with --model: artifact folder or program.json "
                          "(default: artifacts/<model-slug>/<catalog>, else uncompiled with a warning)")  # fmt: skip
    compiled.add_argument("--uncompiled", action="store_true", help="with --model: ignore any compiled artifact")
    parser.add_argument(
        "--without",
        type=comma_choices(OPTIONAL_STAGES, "stage"),
        default=(),
        metavar="STAGES",
        help=f"with --model: comma-separated stages to switch off, from {', '.join(OPTIONAL_STAGES)}",
    )
    add_candidates_argument(parser)
    parser.add_argument("--direct", action="store_true", help="with --model: run the one-call direct baseline")
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="with --model: run full, each optional stage off, and direct; write ablation.json and ablation.csv",
    )
    parser.add_argument("--runs", type=positive_int, help="with --model: runs over the dataset (default: 1)")
    add_as_of_argument(parser)


def check_model_mode_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse model-mode options without --model, and combinations that contradict each other (exit 2)."""
    if args.predictions is not None:
        given = [name for name in _MODEL_ONLY if getattr(args, name) not in (None, False, ())]
        if given:
            option = given[0].replace("_", "-")
            parser.error(f"--{option} runs the program: use it with --model instead of --predictions")
    if args.ablation and (args.without or args.direct):
        parser.error("--ablation runs its own grid (full, each stage off, direct): drop --without and --direct")
    if args.direct and (args.without or args.program or args.uncompiled or args.candidates):
        parser.error(
            "--direct runs the uncompiled one-call baseline: drop --program, --uncompiled, --without and --candidates"
        )
