"""Count the input tokens each stage sends per dev question, full and ablated, and the pipeline's own overhead.

The explanation stage, which only reports to the user, is also given apart (``explanation``).

An oracle fake LM answers every stage from the dev labels, so the prompts are the ones a perfect model would
trigger; tokens are counted with o200k_base (package bpe-openai, offline) on the rendered system + user messages. No
database: a fake executor accepts every statement, except in the `one_correction` run, which fails each question's
first statement once (missing column) to measure a self-correction call. Overhead = wall time per question with a
zero-latency fake LM and no SQL (everything but LM and SQL time).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from collections import defaultdict

import bpe_openai
import dspy
import pandas as pd

from benchmarks.common import package_versions
from catalog import load_catalog
from data.errors import DataError
from data.loader import resolve_dataset_path, split_file
from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import OracleAnswers, fake_lm
from lms.usage import total_usage
from modules import STAGES, AlerceText2SQL, DirectText2SQL, PipelineSettings

EXAMPLES = """examples:
  python -m benchmarks.prompt_tokens
  python -m benchmarks.prompt_tokens --dataset ../shared/alerce-t2s/dev.csv --overhead-repeats 5

Prints one JSON object on stdout; exit codes: 0 done, 1 dataset not found, 2 bad command line."""

logger = logging.getLogger(__name__)


class AcceptingExecutor(FakeEngine):
    """Accepts every statement, or fails each question's first statement once when `fail_first`."""

    def __init__(self, fail_first: bool = False) -> None:
        self.fail_first = fail_first
        self.failed: set[str] = set()

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> None:
        if self.fail_first and sql not in self.failed:
            self.failed.add(sql)
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "firstmjdd" does not exist')


def run_dev(program: dspy.Module, dev: pd.DataFrame, lm: dspy.LM) -> list[dspy.Prediction]:
    """Run `program` on every dev question under `lm`."""
    with dspy.context(lm=lm):
        return [
            program(
                question=row.request, external_knowledge=row.external_knowledge, domain_knowledge=row.domain_knowledge
            )
            for row in dev.itertuples()
        ]


def token_summary(preds: list[dspy.Prediction]) -> dict:
    """Mean input tokens per question, per stage (per question and per call)."""
    per_stage: dict[str, list[int]] = defaultdict(list)
    calls: dict[str, int] = defaultdict(int)
    totals = []
    for pred in preds:
        totals.append(total_usage(pred.usage)["input_tokens"])
        for stage, usage in pred.usage.items():
            per_stage[stage].append(usage["input_tokens"])
            calls[stage] += usage["calls"]
    n = len(preds)
    return {
        "questions": n,
        "mean_input_tokens_per_question": round(sum(totals) / n, 1),
        "max_input_tokens_per_question": max(totals),
        "mean_input_tokens_per_question_by_stage": {s: round(sum(v) / n, 1) for s, v in per_stage.items()},
        "mean_input_tokens_per_call_by_stage": {s: round(sum(v) / calls[s], 1) for s, v in per_stage.items()},
        "calls_by_stage": dict(calls),
    }


def overhead_ms(dev: pd.DataFrame, oracle: OracleAnswers, repeats: int) -> dict:
    """Median and p90 wall time per question with a zero-latency fake LM and an accepting executor."""
    program, lm = AlerceText2SQL(AcceptingExecutor()), fake_lm(oracle)
    run_dev(program, dev.head(3), lm)  # warm-up
    times = []
    with dspy.context(lm=lm):
        for _ in range(repeats):
            for row in dev.itertuples():
                started = time.perf_counter()
                program(
                    question=row.request,
                    external_knowledge=row.external_knowledge,
                    domain_knowledge=row.domain_knowledge,
                )
                times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"median_ms": round(statistics.median(times), 2), "p90_ms": round(times[int(0.9 * (len(times) - 1))], 2)}


ENCODING = "o200k_base"


def load_encoding() -> bpe_openai.Encoding:
    """Return the o200k_base encoding (bpe-openai ships it, so no download is needed)."""
    return bpe_openai.get_encoding(ENCODING)


def measure(dev: pd.DataFrame, repeats: int, encoding: bpe_openai.Encoding) -> dict:
    """Run every configuration and collect the JSON report."""
    catalog = load_catalog()
    oracle = OracleAnswers(dev, lambda t: catalog.table(t).column_names if catalog.table(t) else [])

    def counted(program: dspy.Module) -> dict:
        return token_summary(run_dev(program, dev, fake_lm(oracle, lambda text: len(encoding.encode(text)))))

    report = {
        "full": counted(AlerceText2SQL(AcceptingExecutor())),
        "direct": counted(DirectText2SQL(AcceptingExecutor())),
        "one_correction": counted(AlerceText2SQL(AcceptingExecutor(fail_first=True))),
        "ablations": {},
    }
    for off in ("schema_linking", "classification", "decomposition"):
        stages = tuple(stage for stage in STAGES if stage != off)
        report["ablations"][f"no_{off}"] = counted(AlerceText2SQL(AcceptingExecutor(), PipelineSettings(stages=stages)))
    by_stage = report["full"]["mean_input_tokens_per_question_by_stage"]
    report["explanation"] = {
        "mean_input_tokens_per_question": by_stage.get("explanation", 0.0),
        "share_of_input_tokens": round(
            by_stage.get("explanation", 0.0) / report["full"]["mean_input_tokens_per_question"], 3
        ),
    }
    report["overhead"] = overhead_ms(dev, oracle, repeats)
    return report


def build_parser() -> argparse.ArgumentParser:
    """Build the command-line parser."""
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", help="dev.csv or its folder (default: env ALERCE_T2S_DATA, else the cache)")
    parser.add_argument(
        "--overhead-repeats", type=int, default=3, help="passes over the dev set for overhead (default: %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Print the token and overhead report as one JSON object."""
    args = build_parser().parse_args(argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        dev = pd.read_csv(split_file(resolve_dataset_path(args.dataset), "dev"))
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    encoding = load_encoding()
    report = {
        "benchmark": "prompt_tokens",
        "params": {"encoding": encoding.name, "questions": len(dev), "overhead_repeats": args.overhead_repeats},
        **measure(dev, args.overhead_repeats, encoding),
        "versions": package_versions("dspy", "bpe-openai"),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
