"""Token usage and its cost, read from DSPy's own usage records and priced with LiteLLM's price map.

DSPy records one usage entry per LM call that was not a cache hit (``dspy.track_usage()``, or the
``usage_tracker`` in ``dspy.settings``), keyed by model. The program files them per stage as
``{stage: {"input_tokens", "output_tokens", "calls"}}`` (``tokens_of``); evaluate, compile, the benchmarks and
the web page add it up, summarise it and price it here.

Example:
    >>> by_stage = {}
    >>> add_usage(by_stage, {"generation": {"input_tokens": 100, "output_tokens": 20, "calls": 1}})
    >>> add_usage(by_stage, {"generation": {"input_tokens": 50, "output_tokens": 10, "calls": 1}})
    >>> total_usage(by_stage)
    {'input_tokens': 150, 'output_tokens': 30, 'calls': 2}
    >>> price_usd("local/smollm2-135m", 150, 30) is None
    True
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from dspy.utils.usage_tracker import UsageTracker

__all__ = [
    "USAGE_KEYS",
    "SharedUsageTracker",
    "UsageTotals",
    "add_usage",
    "per_model",
    "price_usd",
    "tokens_of",
    "total_usage",
]

USAGE_KEYS = ("input_tokens", "output_tokens", "calls")
"""The counts kept per stage."""
UNPRICED_PREFIXES = ("local/", "fake/")
"""Model strings of this project's own engines, which cost nothing."""


def _zero() -> dict[str, int]:
    return dict.fromkeys(USAGE_KEYS, 0)


def tokens_of(usage_data: Mapping[str, Iterable[Mapping[str, Any]]]) -> dict[str, int]:
    """Count the calls and tokens of a DSPy ``UsageTracker.usage_data`` ({model: [entry per call]}).

    Example:
        >>> tokens_of({"openai/gpt-4.1-mini": [{"prompt_tokens": 12, "completion_tokens": 3}, {"prompt_tokens": 8}]})
        {'input_tokens': 20, 'output_tokens': 3, 'calls': 2}
    """
    totals = _zero()
    for entries in usage_data.values():
        for entry in entries:
            totals["input_tokens"] += int(entry.get("prompt_tokens") or 0)
            totals["output_tokens"] += int(entry.get("completion_tokens") or 0)
            totals["calls"] += 1
    return totals


def add_usage(totals: dict[str, dict[str, int]], usage: Mapping[str, Mapping[str, Any]]) -> None:
    """Add per-stage usage (``{stage: {input_tokens, output_tokens, calls}}``) into ``totals`` in place."""
    for stage, counts in usage.items():
        mine = totals.setdefault(stage, _zero())
        for key in USAGE_KEYS:
            mine[key] += int(counts.get(key) or 0)


def total_usage(usage: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """Sum per-stage usage over the stages."""
    totals = _zero()
    for counts in usage.values():
        for key in USAGE_KEYS:
            totals[key] += int(counts.get(key) or 0)
    return totals


def price_usd(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """Return the USD cost of the tokens from LiteLLM's price map; None for a model it has no price for.

    The model string may carry its provider (``openai/gpt-4.1-mini``); local and fake models cost nothing and have
    no price (None), like models LiteLLM does not know.
    """
    if model.startswith(UNPRICED_PREFIXES):
        return None
    import litellm  # heavy; only needed for priced models

    _, _, name = model.partition("/")
    known = next((key for key in (model, name) if key and key in litellm.model_cost), None)
    if known is None:  # asking cost_per_token about an unmapped model prints LiteLLM's provider list on stdout
        return None
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=known, prompt_tokens=input_tokens, completion_tokens=output_tokens
        )
    except (litellm.exceptions.ModelNotMappedError, litellm.exceptions.BadRequestError, ValueError):
        return None
    return prompt_cost + completion_cost


class UsageTotals:
    """Thread-safe per-stage sum of the usage that predictions report (``pred.usage``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals: dict[str, dict[str, int]] = {}

    def add(self, usage: Mapping[str, Mapping[str, Any]] | None) -> None:
        """Add one prediction's per-stage usage (None adds nothing)."""
        with self._lock:
            add_usage(self._totals, usage or {})

    def as_dict(self) -> dict[str, dict[str, int]]:
        """Return the totals per stage."""
        with self._lock:
            return {stage: dict(counts) for stage, counts in self._totals.items()}


class SharedUsageTracker(UsageTracker):
    """A DSPy usage tracker that worker threads share instead of copying (``dspy.Parallel`` deep-copies it)."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def add_usage(self, lm: str, usage_entry: dict[str, Any]) -> None:
        """Record one call's usage for ``lm`` (from any thread)."""
        with self._lock:
            super().add_usage(lm, usage_entry)

    def __deepcopy__(self, memo: dict) -> SharedUsageTracker:
        return self


def per_model(tracker: UsageTracker) -> dict[str, dict[str, Any]]:
    """Return the input and output tokens of every model a DSPy usage tracker saw, with their cost (or None)."""
    models = {}
    for model, usage in tracker.get_total_tokens().items():
        tokens_in, tokens_out = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        models[model] = {
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "cost_usd": price_usd(model, tokens_in, tokens_out),
        }
    return models
