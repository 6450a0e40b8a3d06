"""Answer a question about ALeRCE data: generate PostgreSQL with the compiled program, run it read-only, print rows.

The SQL passes the SQL guard and runs in a read-only transaction with a time limit (or, with --engine tap, is
translated to ADQL and runs on ALeRCE's TAP service); self-correction repairs it when it fails (unless switched off
with --without self_correction).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

import dspy

from answering.api import Answer, load
from answering.errors import BadQuestion
from answering.question import EXAMPLE_QUESTION, clean_text
from answering.render import (
    answer_json,
    render_alternatives,
    render_attempts,
    render_csv,
    render_dates,
    render_explanation_of,
    render_plan,
    render_table,
    render_votable,
)
from catalog.options import CATALOG_ENV
from cli import add_verbosity_arguments, comma_choices, logging_to_stderr, positive_int
from engines.errors import EngineError
from engines.options import add_engine_arguments, add_query_timeout_argument, engine_settings
from engines.settings import DSN_ENV
from engines.tap_settings import TAP_URL_ENV
from lms import LMConfigError
from lms.options import add_model_argument
from modules import OPTIONAL_STAGES
from modules.errors import PipelineError
from modules.options import add_as_of_argument, add_candidates_argument
from modules.settings import ProgramSettings

__all__ = ["FORMATS", "SHOW_CHOICES", "build_parser", "main"]

FORMATS = ("table", "csv", "json", "votable")
SHOW_CHOICES = ("sql", "adql", "dates", "explanation", "alternatives", "plan", "attempts")
TABLE_LIMIT = 20
"""Rows a table shows unless --limit says otherwise (csv and json show every fetched row)."""

EPILOG = f"""\
examples:
  python -m ask "{EXAMPLE_QUESTION}"
  python -m ask "Which objects are classified as SNIa with probability above 0.9?" \\
      --model openai/gpt-4.1-mini --show sql,plan,attempts --limit 5
  python -m ask "How many objects have more than 50 detections?" --format json > answer.json
  python -m ask "Which SNe Ia were first detected in September 2023?" --show sql,dates,explanation \\
      --as-of 2026-12-01
  python -m ask "Brightest r-band magnitude of each QSO" --engine tap --show sql,adql --format votable > out.xml
  python -m ask "Which LSST objects have the most detections?" --catalog multisurvey

the program compiled for --model and --catalog is read from artifacts/<model-slug>/<catalog>/ (--program
overrides); without one the uncompiled program runs and a warning is printed. A program compiled for the other
catalog is refused.

output: table and csv print the SQL, a blank line, then the rows on stdout (csv and votable: the SQL goes to
stderr); --show adql adds the ADQL sent to the TAP service; --show dates,explanation,alternatives adds the MJD
ranges of the question's dates, what the SQL returns in plain words with its assumptions, and the other readings
when the candidates disagreed, and --show plan,attempts the difficulty, plan and execution attempts, all on stderr.
json prints one object on stdout: question, catalog, sql, adql, as_of, dates, explanation, alternatives,
difficulty, plan, attempts, columns, rows, truncated, row_count, usage, error, error_kind, notice (and more). votable
prints a VOTable document. An answer of a small demo model (local/...) ends with a note on stderr saying so and how
to use a real model.

environment: {DSN_ENV} (database when --dsn is not given), {TAP_URL_ENV} (service when --tap-url is not given),
{CATALOG_ENV} (catalog when --catalog is not given), provider API keys such as OPENAI_API_KEY
exit codes: 0 answered (the SQL ran, even with no rows), 1 could not answer, or the model or database is
unusable (one line on stderr), 2 bad command line or question, 130 interrupted
"""


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options choosing what is printed and how."""
    parser.add_argument(
        "--show",
        type=comma_choices(SHOW_CHOICES, "--show item"),
        default=("sql",),
        metavar="ITEMS",
        help=f"comma-separated extras to print, from {', '.join(SHOW_CHOICES)}, or none (default: sql)",
    )
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default: %(default)s)")
    parser.add_argument(
        "--limit",
        type=positive_int,
        metavar="N",
        help=f"rows to print (default: {TABLE_LIMIT} for table, every fetched row for csv and json)",
    )


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``python -m ask``."""
    parser = argparse.ArgumentParser(
        prog="python -m ask", description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("question", help="the question in plain English (quote it)")
    add_model_argument(parser)
    parser.add_argument("--program", metavar="PATH", help="artifact folder or program.json (default: the model's)")
    parser.add_argument("--external-knowledge", default="", metavar="TEXT", help="facts the question relies on")
    parser.add_argument("--domain-knowledge", default="", metavar="TEXT", help="astronomy background for the question")
    _add_output_arguments(parser)
    add_query_timeout_argument(parser)
    add_engine_arguments(parser)
    parser.add_argument(
        "--without",
        type=comma_choices(OPTIONAL_STAGES, "stage"),
        default=(),
        metavar="STAGES",
        help=f"comma-separated stages to switch off, from {', '.join(OPTIONAL_STAGES)} (default: none)",
    )
    add_candidates_argument(parser)
    add_as_of_argument(parser)
    add_verbosity_arguments(parser)
    return parser


def _print_answer(answer: Answer, args: argparse.Namespace) -> None:
    if args.format == "json":
        print(json.dumps(answer_json(answer, limit=args.limit), ensure_ascii=False, indent=2))
        return
    extras = {
        "dates": render_dates,
        "explanation": render_explanation_of,
        "alternatives": render_alternatives,
        "plan": render_plan,
        "attempts": render_attempts,
    }
    for item, render in extras.items():
        if item in args.show:
            sys.stderr.write(render(answer))
    sql_out = sys.stdout if args.format == "table" else sys.stderr
    if "sql" in args.show and answer.sql:
        print(f"{answer.sql}\n", file=sql_out)
    if "adql" in args.show and answer.adql:
        print(f"{answer.adql}\n", file=sql_out)
    if answer.frame is None:
        return
    if args.format == "votable":
        sys.stdout.write(render_votable(answer))
    elif args.format == "csv":
        sys.stdout.write(render_csv(answer.frame, limit=args.limit))
    else:
        limit = args.limit or TABLE_LIMIT
        sys.stdout.write(render_table(answer.frame, truncated=answer.truncated, limit=limit))


def _answer(args: argparse.Namespace) -> Answer:
    question = clean_text(args.question)
    program = ProgramSettings(artifact=args.program, without=args.without, candidates=args.candidates, as_of=args.as_of)
    with load(args.model, program=program, engine=engine_settings(args, timeout_s=args.timeout)) as t2s:
        return t2s.ask(question, args.external_knowledge, args.domain_knowledge)


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m ask``; return the exit code."""
    args = build_parser().parse_args(argv)
    with logging_to_stderr(args):
        try:
            answer = _answer(args)
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr)
            return 130
        except BadQuestion as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        except (LMConfigError, PipelineError, EngineError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        except dspy.LMError as err:
            first_line = (str(err).strip().splitlines() or [type(err).__name__])[0]
            print(f"error: the language model failed: {first_line}", file=sys.stderr)
            return 1
    with contextlib.suppress(BrokenPipeError):
        _print_answer(answer, args)
    if answer.notice:
        print(f"note: {answer.notice}", file=sys.stderr)
    if not answer.is_answered:
        print(f"error: {answer.error}", file=sys.stderr)
        return 1
    return 0
