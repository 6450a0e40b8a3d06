"""Aggregate per-item PM scores into per-difficulty rates over runs (REFERENCE_SYSTEM.md, section a.5)."""

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["DIFFICULTIES", "METRICS", "ScoredItem", "aggregate"]

METRICS = ("row_pm", "col_pm", "col_pm_formatted", "value_match")
"""Per-item metrics, in report order: row PM, raw column PM, formatted column PM, our value match."""
DIFFICULTIES = ("simple", "medium", "advanced")
"""Gold difficulty labels in report order; other labels follow alphabetically."""


@dataclass(frozen=True, kw_only=True)
class ScoredItem:
    """One (question, run) pair with its scores.

    Attributes:
        req_id: The question id.
        run: The run id (a seed or index); std is taken over runs.
        difficulty: The gold difficulty label (never the predicted one).
        gold_error: The gold query failed (execution error or timeout); an empty gold result is not an error.
        pred_error: The kind of the predicted query's execution error (e.g. ``"timeout"``), or None.
        row_pm: Row PM (identifier sets).
        col_pm: Raw column PM.
        col_pm_formatted: Formatted column PM, the paper's column number.
        value_match: Our stricter value match.
    """

    req_id: int
    run: int | str
    difficulty: str
    gold_error: bool = False
    pred_error: str | None = None
    row_pm: bool | float = False
    col_pm: bool | float = False
    col_pm_formatted: bool | float = False
    value_match: bool | float = False

    def scores(self) -> dict[str, float]:
        """Return the metrics as floats; an item with a gold or prediction error scores 0 everywhere."""
        failed = self.gold_error or self.pred_error is not None
        return {name: 0.0 if failed else float(getattr(self, name)) for name in METRICS}


def _rates(items: list[ScoredItem]) -> dict[str, float]:
    """Return the mean of each metric over ``items``."""
    return {name: statistics.fmean(item.scores()[name] for item in items) for name in METRICS}


def _over_runs(items: list[ScoredItem]) -> dict:
    """Summarize items by run: per-run rates, then their mean and sample std (ddof=1; None for one run)."""
    by_run: dict[int | str, list[ScoredItem]] = defaultdict(list)
    for item in items:
        by_run[item.run].append(item)
    per_run = {run: _rates(by_run[run]) for run in sorted(by_run, key=lambda run: (isinstance(run, str), run))}
    summary: dict = {"n_items": len(items), "n_runs": len(per_run)}
    for name in METRICS:
        values = [rates[name] for rates in per_run.values()]
        std = statistics.stdev(values) if len(values) > 1 else None
        summary[name] = {"mean": statistics.fmean(values), "std": std}
    summary["per_run"] = per_run
    return summary


def _difficulty_order(label: str) -> tuple[int, str]:
    return (DIFFICULTIES.index(label), "") if label in DIFFICULTIES else (len(DIFFICULTIES), label)


def aggregate(items: Iterable[ScoredItem], take_error_gold: bool) -> dict:
    """Aggregate item scores overall, per difficulty, per run and per question.

    Each rate is a mean of PM values; "mean" and "std" are taken over the per-run rates, as in the paper.

    Args:
        items: One scored item per (question, run).
        take_error_gold: Keep items whose gold query failed, as zeros (True, the paper's figures), or drop them
            from every denominator (False, the reference's stored JSON summaries).

    Returns:
        A JSON-ready dict: ``take_error_gold``, ``gold_errors`` (counted before dropping), ``pred_errors`` by kind,
        ``overall`` and ``by_difficulty[d]`` (each: ``n_items``, ``n_runs``, per metric ``mean`` and ``std``,
        ``per_run`` rates), and ``by_question[req_id]`` (difficulty, runs, mean rate per metric).

    Examples:
        >>> items = [ScoredItem(req_id=1, run=r, difficulty="simple", row_pm=r == 0) for r in (0, 1)]
        >>> report = aggregate(items, take_error_gold=True)
        >>> report["by_difficulty"]["simple"]["row_pm"]
        {'mean': 0.5, 'std': 0.7071067811865476}
    """
    items = list(items)
    gold_errors = sum(item.gold_error for item in items)
    kept = [item for item in items if take_error_gold or not item.gold_error]
    by_difficulty: dict[str, list[ScoredItem]] = defaultdict(list)
    by_question: dict[int, list[ScoredItem]] = defaultdict(list)
    for item in kept:
        by_difficulty[item.difficulty].append(item)
        by_question[item.req_id].append(item)
    return {
        "take_error_gold": take_error_gold,
        "gold_errors": gold_errors,
        "pred_errors": dict(sorted(Counter(i.pred_error for i in kept if i.pred_error is not None).items())),
        "overall": _over_runs(kept) if kept else None,
        "by_difficulty": {d: _over_runs(by_difficulty[d]) for d in sorted(by_difficulty, key=_difficulty_order)},
        "by_question": {
            req_id: {"difficulty": group[0].difficulty, "n_runs": len(group), **_rates(group)}
            for req_id, group in sorted(by_question.items())
        },
    }
