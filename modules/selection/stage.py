"""Candidate selection: the result vote, and a pairwise LM choice between clusters it leaves tied or weakly agreed."""

import functools
import itertools
from collections.abc import Sequence

import dspy
import pandas as pd

from metric.perfect_match import IDS
from modules.predictors.stage_call import call_predictor
from modules.selection.candidates import run_concurrently
from modules.selection.vote import Candidate, vote
from signatures.choose_candidate import ChooseCandidate

__all__ = ["MAX_CONTENDERS", "CandidateSelection", "result_preview"]

STAGE = "selection"
MAX_CONTENDERS = 4
"""Clusters that meet in the pairwise tournament (all pairs: at most 6 LM calls, made at once)."""


def result_preview(frame: pd.DataFrame | None, *, max_rows: int = 3) -> str:
    """Describe a result in a few lines: its columns, row count and first rows, or that it failed.

    Examples:
        >>> print(result_preview(pd.DataFrame({"oid": ["ZTF1", "ZTF2"]}), max_rows=1))
        2 rows; columns: oid
        ZTF1
        >>> result_preview(None)
        'the query failed'
    """
    if frame is None:
        return "the query failed"
    if len(frame) == 0:
        return f"no rows; columns: {', '.join(map(str, frame.columns))}"
    lines = [f"{len(frame)} rows; columns: {', '.join(map(str, frame.columns))}"]
    lines += [" | ".join(str(value) for value in row) for row in frame.head(max_rows).itertuples(index=False)]
    return "\n".join(lines)


class CandidateSelection(dspy.Module):
    """Select one executed candidate: the largest result cluster, or a pairwise LM tournament between clusters."""

    def __init__(self) -> None:
        super().__init__()
        self.choose = dspy.Predict(ChooseCandidate)

    def forward(
        self,
        question: str,
        knowledge: str,
        candidates: list[Candidate],
        *,
        min_agreement: float = 0.0,
        ids: Sequence[str] = IDS,
    ) -> dspy.Prediction:
        """Select a candidate.

        On a tie, or when the largest cluster holds less than ``min_agreement`` of the voting candidates, one
        candidate of each contending cluster (at most `MAX_CONTENDERS`, largest clusters first) meets every other
        in a pairwise LM choice, all pairs at once; most wins is selected, ties going to the larger cluster.

        Args:
            question: The astronomer's question.
            knowledge: Knowledge text (may be empty).
            candidates: The executed candidates (at least one).
            min_agreement: Share of the voting candidates the largest cluster needs to win alone.
            ids: The catalog's identifier columns, which the vote compares (`metric.identifier_columns`).

        Returns:
            A prediction with ``candidate`` (the selected one), ``vote``, ``disagree`` (several clusters contended:
            a tie, or the largest below ``min_agreement``), ``reasons`` (one per LM comparison) and ``failures``
            (comparisons whose answer could not be used count for neither side).
        """
        result = vote(candidates, ids=ids)
        by_id = {candidate.id: candidate for candidate in candidates}
        voters = sum(len(cluster) for cluster in result.clusters)
        contenders = result.tied or (result.clusters if len(result.winners) < min_agreement * voters else ())
        finalists = [by_id[cluster[0]] for cluster in contenders[:MAX_CONTENDERS]]
        disagree = len(finalists) > 1
        if not disagree:
            return dspy.Prediction(
                candidate=by_id[result.winners[0]], vote=result, disagree=False, reasons=[], failures=[]
            )
        pairs = list(itertools.combinations(finalists, 2))
        choices = run_concurrently([functools.partial(self._choose, question, knowledge, *pair) for pair in pairs])
        wins = dict.fromkeys((finalist.id for finalist in finalists), 0)
        reasons, failures = [], []
        for (first, second), (choice, failure) in zip(pairs, choices, strict=True):
            if failure is not None:
                failures.append(failure)
                continue
            wins[(second if choice.choice == "second" else first).id] += 1
            reasons.append(choice.reason)
        best = max(finalists, key=lambda finalist: wins[finalist.id])  # max keeps the first (larger) on a tie
        return dspy.Prediction(candidate=best, vote=result, disagree=True, reasons=reasons, failures=failures)

    def _choose(self, question: str, knowledge: str, first: Candidate, second: Candidate):
        return call_predictor(
            STAGE,
            self.choose,
            question=question,
            knowledge=knowledge,
            first_sql=first.sql,
            first_result=result_preview(first.frame),
            second_sql=second.sql,
            second_result=result_preview(second.frame),
        )
