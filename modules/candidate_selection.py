"""Candidate selection: the result vote, and a pairwise LM choice between the clusters it leaves tied."""

import dspy
import pandas as pd

from checks.vote import Candidate, vote
from signatures.choose_candidate import ChooseCandidate

__all__ = ["CandidateSelection", "result_preview"]

STAGE = "candidate_selection"


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
    """Select one executed candidate: the largest result cluster, or a pairwise LM knockout when clusters tie."""

    def __init__(self) -> None:
        super().__init__()
        self.choose = dspy.Predict(ChooseCandidate)

    def forward(self, question: str, knowledge: str, candidates: list[Candidate]) -> dspy.Prediction:
        """Select a candidate.

        Args:
            question: The astronomer's question.
            knowledge: Knowledge text (may be empty).
            candidates: The executed candidates (at least one).

        Returns:
            A prediction with ``candidate`` (the selected one), ``vote`` and ``reasons`` (one per LM comparison).
        """
        result = vote(candidates)
        by_id = {candidate.id: candidate for candidate in candidates}
        champion = by_id[result.winners[0]]
        reasons: list[str] = []
        for cluster in result.tied[1:]:
            challenger = by_id[cluster[0]]
            choice = self.choose(
                question=question,
                knowledge=knowledge,
                first_sql=champion.sql,
                first_result=result_preview(champion.frame),
                second_sql=challenger.sql,
                second_result=result_preview(challenger.frame),
            )
            reasons.append(choice.reason)
            if choice.choice == "second":
                champion = challenger
        return dspy.Prediction(candidate=champion, vote=result, reasons=reasons)
