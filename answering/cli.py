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
from answering.arguments import FORMATS, SHOW_CHOICES, TABLE_LIMIT, build_parser
from answering.errors import BadQuestion
from answering.question import Question
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
from cli import logging_to_stderr
from engines.errors import EngineError
from engines.options import engine_settings
from lms import LMConfigError
from modules.errors import PipelineError
from modules.settings import ProgramSettings

__all__ = ["FORMATS", "SHOW_CHOICES", "build_parser", "main", "run_parsed"]


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
    question = Question.of(args.question, args.external_knowledge, args.domain_knowledge)  # before the model loads
    program = ProgramSettings(artifact=args.program, without=args.without, candidates=args.candidates, as_of=args.as_of)
    with load(args.model, program=program, engine=engine_settings(args, timeout_s=args.timeout)) as t2s:
        return t2s.answer(question)


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m ask``; return the exit code."""
    return run_parsed(build_parser().parse_args(argv))


def run_parsed(args: argparse.Namespace) -> int:
    """Answer the question of parsed ``python -m ask`` arguments; return the exit code."""
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
