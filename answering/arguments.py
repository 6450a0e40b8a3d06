"""The command line of ``python -m ask``, kept apart from the program so that ``--help`` answers at once.

It imports nothing heavy (no DSPy, pandas or LiteLLM): ``ask.py`` parses the arguments with it and only then imports
``answering.cli``, which answers the question.
"""

import argparse

from answering.question import EXAMPLE_QUESTION
from catalog.options import CATALOG_ENV
from cli import add_verbosity_arguments, comma_choices, positive_int
from engines.options import add_engine_arguments, add_query_timeout_argument
from engines.settings import DSN_ENV
from engines.tap.settings import TAP_URL_ENV
from lms.options import add_model_argument
from modules.options import add_as_of_argument, add_candidates_argument
from modules.stages import OPTIONAL_STAGES

__all__ = ["FORMATS", "SHOW_CHOICES", "TABLE_LIMIT", "build_parser"]

FORMATS = ("table", "csv", "json", "votable")
SHOW_CHOICES = ("sql", "adql", "dates", "explanation", "alternatives", "plan", "attempts")
TABLE_LIMIT = 20
"""Rows a table shows unless --limit says otherwise (csv and json show every fetched row)."""

DESCRIPTION = """\
Answer a question about ALeRCE data: generate PostgreSQL with the compiled program, run it read-only, print rows.

The SQL passes the SQL guard and runs in a read-only transaction with a time limit (or, with --engine tap, is
translated to ADQL and runs on ALeRCE's TAP service); self-correction repairs it when it fails (unless switched off
with --without self_correction).
"""

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
        prog="python -m ask",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
