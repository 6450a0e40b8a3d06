"""Count the input tokens each stage sends per dev question, at K = 1 and K = 4, and what a prompt cache could serve.

An oracle fake LM answers every stage from the dev labels, so the prompts are the ones a perfect model would
trigger; tokens are counted with o200k_base (package bpe-openai, offline) on the rendered system + user messages, in
the format of --adapter (default: compact, what a provider's model gets). No database: a fake engine answers each
statement with one row named after its select list, so candidates that write the same SQL agree in the vote, and
the value check has no vocabulary to show. Runs:
  k1, k4            one and four candidates; the oracle's candidates agree, so the vote decides alone;
  k4_disagreeing    four candidates whose results all differ: every pair of the selection tournament is asked;
  one_correction    K = 1, each question's first statement failing once (missing column);
  direct            the one-call baseline; ablations: K = 1 without one stage.
Per stage: input tokens per question and per call, calls, and the share of input tokens a provider's prefix cache
could serve (benchmarks.prompt_cache: a prefix of at least --cache-min-tokens, in blocks of --cache-block-tokens,
sent by a call that finished before; calls sent together never serve each other). Overhead = wall time per question
with a zero-latency fake LM and no SQL (everything but LM and SQL time). The explanation stage, which only reports
to the user, is also given apart (``explanation``: its tokens at K = 1 and their share).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
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

from benchmarks.common import package_versions, split_examples
from benchmarks.prompt_cache import PrefixCache
from catalog import load_catalog
from data.errors import DataError
from engines import Result
from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import OracleAnswers, fake_lm
from metric.select_list import parse_select_list
from modules import STAGES, AlerceText2SQL, DirectText2SQL, PipelineSettings
from modules.adapter import ADAPTERS, make_adapter

EXAMPLES = """examples:
  python -m benchmarks.prompt_tokens
  python -m benchmarks.prompt_tokens --dataset ../shared/alerce-t2s/dev.csv --adapter chat --overhead-repeats 5

Prints one JSON object on stdout; exit codes: 0 done, 1 dataset not found or without questions, 2 bad command line."""

ENCODING = "o200k_base"
CALL_STAGES = {
    "tables": "schema_linking",
    "columns": "schema_linking",
    "difficulty": "classification",
    "plan": "decomposition",
    "planned": "generation",
    "direct": "generation",
    "revise": "revision",
    "correct": "self_correction",
    "choice": "selection",
    "explanation": "explanation",
}
"""Program stage of each kind of LM call (``lms.fake.Call.stage``); revisions serve the value and result checks."""
WAVES = {"planned": "generation", "direct": "generation", "revise": "generation"}
"""Calls sent together within one question: the K candidates, with their revisions."""

logger = logging.getLogger(__name__)


class RowEngine(FakeEngine):
    """Answers each statement with one row named after its select list: one value per statement (or per execution).

    With ``disagree`` every execution gets a value of its own, so no two candidates agree; with ``fail_first``
    each statement fails once (missing column) before it runs.
    """

    def __init__(self, *, disagree: bool = False, fail_first: bool = False) -> None:
        self.disagree = disagree
        self.fail_first = fail_first
        self.failed: set[str] = set()
        self._executions = itertools.count()

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Return the statement's row, or fail it once (see the class)."""
        if self.fail_first and sql not in self.failed:
            self.failed.add(sql)
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "firstmjdd" does not exist')
        names = [name for name, _ in parse_select_list(sql) if name != "*"] or ["oid"]
        key = f"{sql}{next(self._executions)}" if self.disagree else sql
        value = hashlib.sha256(key.encode()).hexdigest()[:12]
        return Result(frame=pd.DataFrame([[value] * len(names)], columns=names), elapsed_s=0.0, truncated=False)


def run_dev(program: dspy.Module, dev: pd.DataFrame, lm: dspy.LM, adapter: str) -> list[dspy.Prediction]:
    """Run `program` on every dev question under `lm` and `adapter`."""
    with dspy.context(lm=lm, adapter=make_adapter(adapter)):
        return [
            program(
                question=row.request, external_knowledge=row.external_knowledge, domain_knowledge=row.domain_knowledge
            )
            for row in dev.itertuples()
        ]


def token_summary(preds: list[dspy.Prediction], cacheable: dict[str, float]) -> dict:
    """Input tokens per question (mean, max) and, per stage, per question, per call, calls and cacheable share."""
    per_stage: dict[str, int] = defaultdict(int)
    calls: dict[str, int] = defaultdict(int)
    totals = []
    for pred in preds:
        totals.append(sum(usage["input_tokens"] for usage in pred.usage.values()))
        for stage, usage in pred.usage.items():
            per_stage[stage] += usage["input_tokens"]
            calls[stage] += usage["calls"]
    n = len(preds)
    by_stage = {
        stage: {
            "input_tokens_per_question": round(tokens / n, 1),
            "input_tokens_per_call": round(tokens / calls[stage], 1),
            "calls": calls[stage],
        }
        for stage, tokens in per_stage.items()
    }
    return {
        "mean_input_tokens_per_question": round(sum(totals) / n, 1),
        "max_input_tokens_per_question": max(totals),
        "by_stage": by_stage,
        "cacheable_share_by_call_stage": cacheable,
    }


def cacheable_shares(calls: list, encoding: bpe_openai.Encoding, cache: PrefixCache) -> dict[str, float]:
    """Share of each call stage's input tokens (and of all, key "all") that `cache` could serve, in call order."""
    served: dict[str, int] = defaultdict(int)
    sent: dict[str, int] = defaultdict(int)
    for call in calls:
        tokens = encoding.encode(call.system + call.user)
        wave = (call.inputs.get("question", ""), WAVES.get(call.stage, call.stage))
        stage = CALL_STAGES.get(call.stage, call.stage)
        served[stage] += cache.serve(tokens, wave=wave)
        sent[stage] += len(tokens)
    shares = {stage: round(served[stage] / sent[stage], 3) for stage in sent}
    return {**shares, "all": round(sum(served.values()) / max(1, sum(sent.values())), 3)}


def overhead_ms(dev: pd.DataFrame, oracle: OracleAnswers, repeats: int, adapter: str) -> dict:
    """Median and p90 wall time per question with a zero-latency fake LM and a row engine."""
    program, lm = AlerceText2SQL(RowEngine()), fake_lm(oracle)
    run_dev(program, dev.head(3), lm, adapter)  # warm-up
    times = []
    with dspy.context(lm=lm, adapter=make_adapter(adapter)):
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


def programs() -> dict[str, dspy.Module]:
    """Every measured configuration, by report key (ablations as ``ablations.no_<stage>``)."""
    runs = {
        "k1": AlerceText2SQL(RowEngine(), PipelineSettings(candidates=1)),
        "k4": AlerceText2SQL(RowEngine(), PipelineSettings(candidates=4)),
        "k4_disagreeing": AlerceText2SQL(RowEngine(disagree=True), PipelineSettings(candidates=4)),
        "one_correction": AlerceText2SQL(RowEngine(fail_first=True), PipelineSettings(candidates=1)),
        "direct": DirectText2SQL(RowEngine()),
    }
    for off in ("schema_linking", "classification", "decomposition"):
        stages = tuple(stage for stage in STAGES if stage != off)
        runs[f"ablations.no_{off}"] = AlerceText2SQL(RowEngine(), PipelineSettings(stages=stages, candidates=1))
    return runs


def measure(dev: pd.DataFrame, args: argparse.Namespace, encoding: bpe_openai.Encoding) -> dict:
    """Run every configuration and collect the JSON report."""
    catalog = load_catalog()
    oracle = OracleAnswers(dev, lambda t: catalog.table(t).column_names if catalog.table(t) else [])
    report: dict = {"ablations": {}}
    for key, program in programs().items():
        lm = fake_lm(oracle, lambda text: len(encoding.encode(text)))
        preds = run_dev(program, dev, lm, args.adapter)
        cache = PrefixCache(min_tokens=args.cache_min_tokens, block_tokens=args.cache_block_tokens)
        summary = token_summary(preds, cacheable_shares(lm.engine_obj.calls, encoding, cache))
        section, _, name = key.partition(".")
        if name:
            report[section][name] = summary
        else:
            report[key] = summary
    k1 = report["k1"]
    explanation = k1["by_stage"].get("explanation", {}).get("input_tokens_per_question", 0.0)
    report["explanation"] = {
        "mean_input_tokens_per_question": explanation,
        "share_of_input_tokens": round(explanation / k1["mean_input_tokens_per_question"], 3),
    }
    report["overhead"] = overhead_ms(dev, oracle, args.overhead_repeats, args.adapter)
    return report


def build_parser() -> argparse.ArgumentParser:
    """Build the command-line parser."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.prompt_tokens",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", help="dev.csv or its folder (default: env ALERCE_T2S_DATA, else the cache)")
    parser.add_argument("--adapter", choices=ADAPTERS, default="compact", help="prompt format (default: %(default)s)")
    parser.add_argument(
        "--cache-min-tokens", type=int, default=1024, help="shortest prefix a cache serves (default: %(default)s)"
    )
    parser.add_argument(
        "--cache-block-tokens", type=int, default=128, help="granularity of a served prefix (default: %(default)s)"
    )
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
        file, _ = split_examples(args.dataset, "dev")  # checks the file and that it holds questions
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    dev = pd.read_csv(file)
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    encoding = bpe_openai.get_encoding(ENCODING)
    params = {
        "encoding": encoding.name,
        "questions": len(dev),
        "adapter": args.adapter,
        "cache_min_tokens": args.cache_min_tokens,
        "cache_block_tokens": args.cache_block_tokens,
        "overhead_repeats": args.overhead_repeats,
    }
    report = {"benchmark": "prompt_tokens", "params": params, **measure(dev, args, encoding)}
    report["versions"] = package_versions("dspy", "bpe-openai")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
