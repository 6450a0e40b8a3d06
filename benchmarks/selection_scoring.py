"""Aggregate scored candidates into the selection benchmark's numbers (pure; used by ``benchmarks.selection``)."""

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import mean

import pandas as pd

from modules.run.findings import FindingKind
from modules.selection.vote import Candidate, vote

__all__ = ["RESULT_KINDS", "Scored", "pool_report"]

RESULT_KINDS = tuple(kind for kind in FindingKind if kind is not FindingKind.UNKNOWN_VALUE)


@dataclass(frozen=True)
class Scored:
    """One executed and scored candidate.

    Attributes:
        req_id, difficulty, model, id: Which question, its gold difficulty, who wrote it, the candidate id.
        sql: The SQL executed; frame: its rows, or None on an error.
        pm: Row PM on the local database; col_pm: formatted column PM there.
        live_pm: The file's live row verdict (None when absent or the live gold failed).
        value_flagged: The value check flagged the SQL; fixed_sql, fixed_frame, fixed_pm: after replacing the
            flagged literals (the originals when nothing was flagged).
        result_kinds: Kinds of the result checks' findings on the executed result.
    """

    req_id: int
    difficulty: str
    model: str
    id: str
    sql: str
    frame: pd.DataFrame | None
    pm: bool
    col_pm: bool
    live_pm: bool | None
    value_flagged: bool
    fixed_sql: str
    fixed_frame: pd.DataFrame | None
    fixed_pm: bool
    result_kinds: frozenset[FindingKind] = field(default_factory=frozenset)


def _rate(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def _vote_pm(items: Sequence[Scored], score: Callable[[Scored], float | None], *, fixed: bool = False) -> float | None:
    """Expected score of the vote's pick: ties broken uniformly at random, each cluster scored by its members."""
    by_id = {item.id: item for item in items}
    candidates = [Candidate(i.id, i.fixed_sql if fixed else i.sql, i.fixed_frame if fixed else i.frame) for i in items]
    result = vote(candidates)
    picked = result.tied or (result.winners,)
    values = []
    for cluster in picked:
        scores = [s for s in (score(by_id[member]) for member in cluster) if s is not None]
        if scores:
            values.append(mean(scores))
    return mean(values) if values else None


def _check_counts(items: Iterable[Scored], is_flagged: Callable[[Scored], bool]) -> dict:
    items = list(items)
    flagged = [i for i in items if is_flagged(i)]
    wrong = [i for i in items if not i.pm]
    flagged_wrong = [i for i in flagged if not i.pm]
    live = [i for i in flagged if i.live_pm is not None]
    return {
        "candidates": len(items),
        "flagged": len(flagged),
        "precision": _rate(len(flagged_wrong), len(flagged)),
        "recall": _rate(len(flagged_wrong), len(wrong)),
        "precision_live": _rate(sum(not i.live_pm for i in live), len(live)),
        "precision_column_pm": _rate(sum(not i.col_pm for i in flagged), len(flagged)),
    }


def _question_means(groups: dict[int, list[Scored]], score: Callable[[list[Scored]], float | None]) -> float | None:
    values = [v for v in (score(items) for items in groups.values()) if v is not None]
    return round(mean(values), 4) if values else None


def _live_mean(items: list[Scored]) -> float | None:
    scores = [i.live_pm for i in items if i.live_pm is not None]
    return mean(scores) if scores else None


def _live_any(items: list[Scored]) -> float | None:
    scores = [i.live_pm for i in items if i.live_pm is not None]
    return float(any(scores)) if scores else None


def pool_report(items: Sequence[Scored]) -> dict:
    """Report one pool (one set of candidates per question): PM of the mean candidate, the vote, the oracle, checks.

    Means are over questions (each question's candidates averaged first), so a question weighs the same however
    many candidates it has. ``*_live`` scores the same picks with the file's live verdicts instead of the local ones.
    """
    groups: dict[int, list[Scored]] = defaultdict(list)
    for item in items:
        groups[item.req_id].append(item)
    ties = sum(vote([Candidate(i.id, i.sql, i.frame) for i in group]).is_tie for group in groups.values())
    executed = [i for i in items if i.frame is not None]
    return {
        "questions": len(groups),
        "candidates": len(items),
        "mean_row_pm": _question_means(groups, lambda g: mean(float(i.pm) for i in g)),
        "vote_row_pm": _question_means(groups, lambda g: _vote_pm(g, lambda i: float(i.pm))),
        "oracle_row_pm": _question_means(groups, lambda g: float(any(i.pm for i in g))),
        "vote_ties": ties,
        "mean_row_pm_live": _question_means(groups, _live_mean),
        "vote_row_pm_live": _question_means(groups, lambda g: _vote_pm(g, lambda i: i.live_pm)),
        "oracle_row_pm_live": _question_means(groups, _live_any),
        "value_check": {
            **_check_counts(items, lambda i: i.value_flagged),
            "mean_row_pm_after_replace": _question_means(groups, lambda g: mean(float(i.fixed_pm) for i in g)),
            "vote_row_pm_after_replace": _question_means(
                groups, lambda g: _vote_pm(g, lambda i: float(i.fixed_pm), fixed=True)
            ),
        },
        "result_checks": {
            kind.value: _check_counts(executed, lambda i, kind=kind: kind in i.result_kinds) for kind in RESULT_KINDS
        },
    }
