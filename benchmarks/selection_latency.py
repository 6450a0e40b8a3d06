"""Measure what K candidates cost in latency: the whole program with a fake LM that waits on every call.

The fake LM answers every stage (tables, columns, a "medium" difficulty so that the plan runs, SQL, pairwise
choices) after waiting ``--lm-delay`` seconds; a fake executor answers at once. Each question runs at K = 1 and at
K = 4 twice: once with candidates that agree (the vote decides alone), once with four different results (a tie,
so all six pairs of the selector's tournament run too). The target is K = 4 within 1.5 times K = 1.
"""

import argparse
import itertools
import json
import logging
import statistics
import sys
import time
from types import SimpleNamespace

import dspy
import pandas as pd

from benchmarks.common import package_versions
from engines.fake import FakeEngine
from lms.fake import EXPLANATION, Call, fake_lm, render_answer
from modules import AlerceText2SQL, PipelineSettings

EXAMPLES = """examples:
  python -m benchmarks.selection_latency
  python -m benchmarks.selection_latency --lm-delay 0.5 --questions 3

Prints one JSON object on stdout; exit 0 done, 2 on a bad command line."""

TARGET_RATIO = 1.5


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.selection_latency",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--lm-delay", type=float, default=1.0, help="seconds each LM call waits (default: %(default)s)")
    parser.add_argument("--questions", type=int, default=2, help="questions per setting (default: %(default)s)")
    parser.add_argument("--candidates", type=int, default=4, help="K compared with K = 1 (default: %(default)s)")
    return parser


class InstantExecutor(FakeEngine):
    """Returns one row per statement at once: the oid the SQL names after its last space."""

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> SimpleNamespace:
        return SimpleNamespace(frame=pd.DataFrame({"oid": [sql.rsplit(" ", 1)[-1]]}), elapsed_s=0.0, truncated=False)


def _answers(delay_s: float, *, agree: bool):
    counter = itertools.count()

    def answer(call: Call) -> str:
        time.sleep(delay_s)
        if "choice" in call.output_fields:
            return render_answer({"choice": "first", "reason": "It keeps every condition."})
        fields = {
            "tables": {"tables": ["object"]},
            "columns": {"columns": {"object": ["oid"]}},
            "difficulty": {"difficulty": "medium"},
            "plan": {"plan": ["Read object.", "Keep the SNe."]},
            "explanation": EXPLANATION,
        }.get(call.stage)
        if fields is None:
            oid = "'ZTF1'" if agree else f"'ZTF{next(counter)}'"
            fields = {"sql": f"SELECT oid FROM object WHERE oid = {oid}"}
        if "reasoning" in call.output_fields:
            fields = {"reasoning": "One step.", **fields}
        return render_answer(fields)

    return answer


def _seconds(candidates: int, args: argparse.Namespace, *, agree: bool) -> dict:
    program = AlerceText2SQL(InstantExecutor(), PipelineSettings(candidates=candidates))
    lm = fake_lm(_answers(args.lm_delay, agree=agree))
    durations, calls = [], []
    for index in range(args.questions):
        before = len(lm.engine_obj.calls)
        started = time.perf_counter()
        with dspy.context(lm=lm):
            program(question=f"Which objects are SNe? ({index})")
        durations.append(time.perf_counter() - started)
        calls.append(len(lm.engine_obj.calls) - before)
    return {"seconds_mean": round(statistics.mean(durations), 3), "lm_calls_per_question": statistics.mean(calls)}


def main(argv: list[str] | None = None) -> int:
    """Entry point: prints one JSON object on stdout."""
    args = _parser().parse_args(argv)
    if args.lm_delay < 0 or args.questions < 1 or args.candidates < 2:
        _parser().error("--lm-delay must be 0 or more, --questions 1 or more, --candidates 2 or more")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    _seconds(args.candidates, argparse.Namespace(lm_delay=0.0, questions=1), agree=False)  # warm up, untimed
    one = _seconds(1, args, agree=True)
    agreeing = _seconds(args.candidates, args, agree=True)
    disagreeing = _seconds(args.candidates, args, agree=False)
    results = {
        "k1": one,
        "k_agreeing": agreeing,
        "k_disagreeing": disagreeing,
        "ratio_agreeing": round(agreeing["seconds_mean"] / one["seconds_mean"], 3),
        "ratio_disagreeing": round(disagreeing["seconds_mean"] / one["seconds_mean"], 3),
        "target_ratio": TARGET_RATIO,
    }
    params = {"lm_delay_s": args.lm_delay, "questions": args.questions, "candidates": args.candidates}
    output = {"benchmark": "selection_latency", "params": params, "results": results}
    output["versions"] = package_versions("dspy")
    print(json.dumps(output, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
