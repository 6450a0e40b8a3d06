"""Execution-result voting: cluster executed candidates by what row PM would compare, the largest cluster wins."""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import pandas as pd

from metric.perfect_match import IDS, identifier_strings, prediction_identifier

__all__ = ["Candidate", "Vote", "result_key", "vote"]


@dataclass(frozen=True)
class Candidate:
    """One executed candidate.

    Attributes:
        id: Names the candidate (unique within one vote).
        sql: The SQL as executed.
        frame: Its rows, or None when it raised an error.
    """

    id: str
    sql: str
    frame: pd.DataFrame | None


@dataclass(frozen=True)
class Vote:
    """The outcome of one vote.

    Attributes:
        winners: Ids of the candidates of the winning cluster, in input order; with a tie, those of the first
            tied cluster in input order.
        clusters: Every cluster of the eligible candidates (ids in input order), largest first, ties in input order.
        is_tie: Several clusters share the largest size.
        tied: The tied clusters (the first is ``winners``); empty when there is no tie.
    """

    winners: tuple[str, ...]
    clusters: tuple[tuple[str, ...], ...]
    is_tie: bool
    tied: tuple[tuple[str, ...], ...] = ()


def result_key(candidate: Candidate, *, ids: Sequence[str] = IDS) -> Hashable | None:
    """Return what two candidates must share to agree: column names and identifier set; None for an error.

    The identifier column is the one row PM compares (`ids`, alias mapping, then an id-like column); a result
    without one is keyed by all its rows as strings. An empty result keys on its column names alone.

    Examples:
        >>> a = Candidate("a", "SELECT oid FROM object", pd.DataFrame({"oid": ["ZTF2", "ZTF1", "ZTF1"]}))
        >>> b = Candidate("b", "SELECT oid FROM object", pd.DataFrame({"oid": ["ZTF1", "ZTF2"]}))
        >>> result_key(a) == result_key(b)
        True
    """
    frame = candidate.frame
    if frame is None:
        return None
    names = tuple(sorted({str(name).lower() for name in frame.columns}))
    if len(frame) == 0:
        return (names, "empty")
    column = prediction_identifier(frame, candidate.sql, ids=ids)
    if column is None:
        rows = frozenset(tuple(str(value) for value in row) for row in frame.itertuples(index=False))
        return (names, "rows", rows)
    values = frame.loc[:, ~frame.columns.duplicated()][column]
    return (names, str(column).lower(), frozenset(identifier_strings(values)))


def _eligible(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Keep the candidates with rows; else those that ran; else all (every one raised an error)."""
    with_rows = [c for c in candidates if c.frame is not None and len(c.frame) > 0]
    if with_rows:
        return with_rows
    ran = [c for c in candidates if c.frame is not None]
    return ran or list(candidates)


def vote(candidates: Sequence[Candidate], *, ids: Sequence[str] = IDS) -> Vote:
    """Select the candidates whose result most others share.

    A candidate that raised an error or returned no rows loses to any that returned rows, unless all did; when all
    raised errors, each is its own cluster (their errors are not compared).

    Args:
        candidates: The executed candidates (at least one), ids unique.
        ids: The identifier columns of the catalog, in priority order (`metric.identifier_columns`).

    Returns:
        The vote; ``is_tie`` says whether the largest cluster was shared (a pairwise selector decides those).

    Raises:
        ValueError: No candidate was given.

    Examples:
        >>> def c(id, oids):
        ...     return Candidate(id, "SELECT oid FROM object", None if oids is None else pd.DataFrame({"oid": oids}))
        >>> vote([c("a", ["ZTF1"]), c("b", ["ZTF2"]), c("c", ["ZTF2"]), c("d", None)]).winners
        ('b', 'c')
        >>> vote([c("a", ["ZTF1"]), c("b", ["ZTF2"])]).is_tie
        True
    """
    if not candidates:
        raise ValueError("vote needs at least one candidate, got none.")
    groups: dict[Hashable, list[str]] = {}
    for position, candidate in enumerate(_eligible(candidates)):
        key = result_key(candidate, ids=ids)
        groups.setdefault(key if key is not None else ("error", position), []).append(candidate.id)
    clusters = sorted((tuple(ids) for ids in groups.values()), key=len, reverse=True)
    tied = tuple(cluster for cluster in clusters if len(cluster) == len(clusters[0]))
    is_tie = len(tied) > 1
    return Vote(winners=clusters[0], clusters=tuple(clusters), is_tie=is_tie, tied=tied if is_tie else ())
