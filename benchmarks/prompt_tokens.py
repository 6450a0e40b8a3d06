"""Count the input tokens each stage sends per dev question, at K = 1 and K = 4, and what a prompt cache could serve.

An oracle fake LM answers every stage from the dev labels, so the prompts are the ones a perfect model would
trigger; tokens are counted with o200k_base (package bpe-openai, offline) on the rendered messages (system, demos,
question), in the format of --adapter (default: compact, what a provider's model gets). No database: a fake engine
answers each statement with one row named after its select list, so candidates that write the same SQL agree in the
vote, and the value check has no vocabulary to show. Runs:
  k1, k4            one and four candidates; the oracle's candidates agree, so the vote decides alone;
  k4_disagreeing    four candidates whose results all differ: every pair of the selection tournament is asked;
  one_correction    K = 1, each question's first statement failing once (missing column);
  direct            the one-call baseline; ablations: K = 1 without one stage;
  k1_demos, k4_demos  K = 1 and 4 with the demos a default compile gives every stage (BootstrapFewShot with the
                    oracle on the compile split's train part: 2 bootstrapped + 1 labelled per predictor).
Per stage: input tokens per question and per call, calls, and the share of input tokens a provider's prefix cache
could serve (benchmarks.prompt_cache: a prefix of at least --cache-min-tokens, in blocks of --cache-block-tokens,
sent by a call that finished before; calls sent together never serve each other). ``prompt_cache`` gives, per run
and per provider rule, the share served and the input price per question (LiteLLM's bundled price map), for the
prompts in the cache order (``modules.predictors.prefix_cache_adapter``, what is sent) and in the signature order
(today's ``CompactChatAdapter`` prompts, rendered from the same calls); ``cacheable_share`` sums it up per run. The
rules:
  openai      automatic prefix cache from --cache-min-tokens (1,024) in blocks of 128; cached input price;
  anthropic   up to the request's cache_control breakpoints, from --anthropic-min-tokens (1,024, Sonnet-class); a
              miss writes the prefix (cache write price), a hit reads it (cache read price); the signature order
              carries no breakpoint, as today;
  any_prefix  any shared start, token by token (no provider: the ceiling the order allows).
Overhead = wall time per question with a zero-latency fake LM and no SQL (everything but LM and SQL time). The
explanation stage, which only reports to the user, is also given apart (``explanation``: its tokens at K = 1 and
their share).
"""

from __future__ import annotations

import argparse
import contextlib
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
from benchmarks.prompt_cache import BreakpointCache, PrefixCache
from catalog import load_catalog
from data.errors import DataError
from data.loader import load_dataset
from engines import Result
from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import OracleAnswers, fake_lm, parse_call
from metric.select_list import parse_select_list
from modules import STAGES, AlerceText2SQL, DirectText2SQL, PipelineSettings
from modules.predictors.adapter import ADAPTERS, make_adapter
from modules.predictors.compact_chat_adapter import CompactChatAdapter
from modules.predictors.prefix_cache_adapter import Breakpoint, PrefixCacheAdapter
from optimizers.strategies import as_demo_source
from optimizers.strategies import split_examples as compile_split

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
ORDERS = ("cache_order", "signature_order")
"""The prompts as sent (``PrefixCacheAdapter``) and in the order of the signatures (``CompactChatAdapter``)."""
PRICED_MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-5"}
"""The model whose prices (LiteLLM's bundled map) each provider rule is costed with."""
HEADLINE_RUNS = ("k1", "k4", "k1_demos", "k4_demos")
"""The runs ``cacheable_share`` sums up."""

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


class Sent:
    """One request as rendered: per order, its messages (text) and its cache breakpoints."""

    def __init__(self, layouts: dict[str, tuple[list[dict], list[Breakpoint]]]) -> None:
        self.layouts = layouts
        messages = layouts["cache_order"][0]
        system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
        self.call = parse_call(system, [(m["role"], m["content"]) for m in messages if m["role"] != "system"])


def recording(adapter: dspy.Adapter, sent: list[Sent]) -> dspy.Adapter:
    """Make `adapter` append each request it renders to `sent`, in the cache order and (for the provider's
    adapter) in the signature order; what it sends is unchanged."""
    render = adapter.format
    unordered = CompactChatAdapter() if isinstance(adapter, PrefixCacheAdapter) else None

    def format(signature, demos, inputs):
        if isinstance(adapter, PrefixCacheAdapter):
            layouts = {"cache_order": adapter.layout(signature, demos, inputs)}
        else:
            layouts = {"cache_order": (render(signature, demos, inputs), [])}
        if unordered is not None:
            layouts["signature_order"] = (unordered.format(signature, demos, inputs), [])
        sent.append(Sent(layouts))
        return render(signature, demos, inputs)

    adapter.format = format
    return adapter


def run_dev(
    program: dspy.Module, dev: pd.DataFrame, lm: dspy.LM, adapter: str, sent: list[Sent] | None = None
) -> list[dspy.Prediction]:
    """Run `program` on every dev question under `lm` and `adapter`, recording each request in `sent` if given."""
    rendering = make_adapter(adapter)
    with dspy.context(lm=lm, adapter=recording(rendering, sent) if sent is not None else rendering):
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


def prompt_tokens(messages: list[dict], breakpoints: list[Breakpoint], encoding) -> tuple[list[int], list[int]]:
    """The tokens of a request's messages, one after the other, and the token count at each breakpoint."""
    offsets, text = [], ""
    for message in messages:
        offsets.append(len(text))
        text += message["content"]
    tokens = encoding.encode(text)
    marks = sorted({len(encoding.encode(text[: offsets[index] + offset])) for index, offset in breakpoints})
    return tokens, marks


def cacheable_shares(sent: list[Sent], encoding: bpe_openai.Encoding, cache: PrefixCache) -> dict[str, float]:
    """Share of each call stage's input tokens (and of all, key "all") that `cache` could serve, in call order."""
    served: dict[str, int] = defaultdict(int)
    tokens_sent: dict[str, int] = defaultdict(int)
    for request in sent:
        tokens, _ = prompt_tokens(request.layouts["cache_order"][0], [], encoding)
        stage = CALL_STAGES.get(request.call.stage, request.call.stage)
        served[stage] += cache.serve(tokens, wave=wave_of(request))
        tokens_sent[stage] += len(tokens)
    return _shares(served, tokens_sent)


def wave_of(request: Sent) -> tuple[str, str]:
    """The calls sent together with this one: same question, same wave of the program."""
    call = request.call
    return call.inputs.get("question", ""), WAVES.get(call.stage, call.stage)


def _shares(served: dict[str, int], sent: dict[str, int]) -> dict[str, float]:
    shares = {stage: round(served[stage] / sent[stage], 3) for stage in sent if sent[stage]}
    return {**shares, "all": round(sum(served.values()) / max(1, sum(sent.values())), 3)}


def prices() -> dict[str, dict[str, float]]:
    """USD per million input tokens of each priced model: uncached, cache read and (Anthropic) cache write."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm  # imported here, after the variable: the price map is read at import

    table = {}
    for rule, model in PRICED_MODELS.items():
        cost = litellm.model_cost[model]
        table[rule] = {
            "input": round(cost["input_cost_per_token"] * 1e6, 4),
            "cache_read": round(cost["cache_read_input_token_cost"] * 1e6, 4),
            "cache_write": round(
                (cost.get("cache_creation_input_token_cost") or cost["input_cost_per_token"]) * 1e6, 4
            ),
        }
    return table


def _write_cost(cost: dict) -> float:
    """USD per token written to the cache (OpenAI charges none above the input price)."""
    return cost.get("cache_creation_input_token_cost") or cost["input_cost_per_token"]


def prompt_cache(sent: list[Sent], n_questions: int, encoding, args: argparse.Namespace, price: dict) -> dict:
    """Per provider rule and prompt order: the share of input tokens served, per call stage and in all, and the
    input price per question (see the module's docstring)."""
    orders = [order for order in ORDERS if order in sent[0].layouts] if sent else []
    report: dict = {}
    for rule in ("openai", "anthropic", "any_prefix"):
        report[rule] = {}
        for order in orders:
            if rule == "anthropic":
                cache = BreakpointCache(min_tokens=args.anthropic_min_tokens)
            else:
                cache = PrefixCache(
                    min_tokens=args.cache_min_tokens if rule == "openai" else 0,
                    block_tokens=args.cache_block_tokens if rule == "openai" else 1,
                )
            served: dict[str, int] = defaultdict(int)
            written: dict[str, int] = defaultdict(int)
            tokens_sent: dict[str, int] = defaultdict(int)
            for request in sent:
                messages, breakpoints = request.layouts[order]
                tokens, marks = prompt_tokens(messages, breakpoints, encoding)
                stage = CALL_STAGES.get(request.call.stage, request.call.stage)
                if rule == "anthropic":
                    read, write = cache.serve(tokens, marks, wave=wave_of(request))
                    served[stage] += read
                    written[stage] += write
                else:
                    served[stage] += cache.serve(tokens, wave=wave_of(request))
                tokens_sent[stage] += len(tokens)
            entry = {
                "cacheable_share": _shares(served, tokens_sent)["all"],
                "by_call_stage": _shares(served, tokens_sent),
            }
            if rule in price:
                total, hit, write = sum(tokens_sent.values()), sum(served.values()), sum(written.values())
                usd = (
                    (total - hit - write) * price[rule]["input"]
                    + hit * price[rule]["cache_read"]
                    + write * price[rule]["cache_write"]
                ) / 1e6
                entry["input_usd_per_question"] = round(usd / n_questions, 6)
                if rule == "anthropic":
                    entry["cache_write_share"] = round(write / max(1, total), 3)
            report[rule][order] = entry
        if rule in price and len(orders) == 2:
            before, after = (
                report[rule][order]["input_usd_per_question"] for order in ("signature_order", "cache_order")
            )
            report[rule]["input_price_change"] = round(after / before - 1, 3) if before else 0.0
    return report


def compiled_demos(file, oracle: OracleAnswers, adapter: str) -> dict[str, list]:
    """The demos a default compile gives each predictor, with the oracle as the model: BootstrapFewShot (2
    bootstrapped + 1 labelled demos, the compile defaults) on the train part of the compile split (seed 0)."""
    train, _, _ = compile_split(as_demo_source(load_dataset(file)), 0.9, 0, selects=False)
    optimizer = dspy.BootstrapFewShot(
        metric=lambda example, pred, trace=None: True, max_bootstrapped_demos=2, max_labeled_demos=1
    )
    student = AlerceText2SQL(RowEngine(), PipelineSettings(candidates=1))
    with dspy.context(lm=fake_lm(oracle), adapter=make_adapter(adapter)), contextlib.redirect_stdout(sys.stderr):
        compiled = optimizer.compile(student, trainset=train)  # it prints its progress: keep stdout for the JSON
    return {name: list(predictor.demos) for name, predictor in compiled.named_predictors()}


def with_demos(program: dspy.Module, demos: dict[str, list]) -> dspy.Module:
    """`program` with each predictor's demos set from `demos` (by predictor name)."""
    for name, predictor in program.named_predictors():
        predictor.demos = list(demos.get(name, []))
    return program


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


def measure(dev: pd.DataFrame, file, args: argparse.Namespace, encoding: bpe_openai.Encoding) -> dict:
    """Run every configuration and collect the JSON report."""
    catalog = load_catalog()
    oracle = OracleAnswers(dev, lambda t: catalog.table(t).column_names if catalog.table(t) else [])
    price = prices()
    demos = compiled_demos(file, oracle, args.adapter)
    runs = programs()
    runs["k1_demos"] = with_demos(AlerceText2SQL(RowEngine(), PipelineSettings(candidates=1)), demos)
    runs["k4_demos"] = with_demos(AlerceText2SQL(RowEngine(), PipelineSettings(candidates=4)), demos)
    report: dict = {"ablations": {}}
    for key, program in runs.items():
        lm = fake_lm(oracle, lambda text: len(encoding.encode(text)))
        sent: list[Sent] = []
        preds = run_dev(program, dev, lm, args.adapter, sent)
        cache = PrefixCache(min_tokens=args.cache_min_tokens, block_tokens=args.cache_block_tokens)
        summary = token_summary(preds, cacheable_shares(sent, encoding, cache))
        summary["prompt_cache"] = prompt_cache(sent, len(dev), encoding, args, price)
        section, _, name = key.partition(".")
        if name:
            report[section][name] = summary
        else:
            report[key] = summary
    report["demos_per_predictor"] = {name: len(items) for name, items in demos.items() if items}
    report["prices_usd_per_million_tokens"] = {rule: {"model": PRICED_MODELS[rule], **p} for rule, p in price.items()}
    report["cacheable_share"] = {
        rule: {
            run: {
                order: entry["cacheable_share"]
                for order, entry in report[run]["prompt_cache"][rule].items()
                if order in ORDERS
            }
            for run in HEADLINE_RUNS
        }
        for rule in ("openai", "anthropic", "any_prefix")
    }
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
        "--anthropic-min-tokens",
        type=int,
        default=1024,
        help="shortest prefix Anthropic caches (default: %(default)s, Sonnet-class; 2048 or 4096 for Haiku models)",
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
        "anthropic_min_tokens": args.anthropic_min_tokens,
        "overhead_repeats": args.overhead_repeats,
    }
    report = {"benchmark": "prompt_tokens", "params": params, **measure(dev, file, args, encoding)}
    report["versions"] = package_versions("dspy", "bpe-openai", "litellm")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
