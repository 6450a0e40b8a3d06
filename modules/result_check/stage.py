"""The result check stage: a result that contradicts the question gets one targeted retry per kind of finding."""

from collections.abc import Callable

from modules.result_check.findings import check_result
from modules.run.execution import Outcome, result_frame
from modules.run.findings import Finding, FindingKind, finding_record

__all__ = ["ResultCheck"]


def _severity(findings: list[Finding]) -> tuple[bool, int]:
    """Order results by their findings: an empty one is worst, then by the number of findings."""
    return any(finding.kind == FindingKind.EMPTY_RESULT for finding in findings), len(findings)


class ResultCheck:
    """Check a result against its question; retry once per finding kind, keep a retry only when it looks better."""

    def __call__(
        self, question: str, outcome: Outcome, retry: Callable[[Finding, str], Outcome | None]
    ) -> tuple[Outcome, list[dict]]:
        """Check `outcome`'s rows and retry after each kind of finding.

        Args:
            question: The question the rows should answer.
            outcome: The selected candidate's execution.
            retry: Revises the SQL after a finding and runs it; None when nothing new was written.

        Returns:
            The kept outcome and one record per finding (``retry_accepted`` says whether its retry was kept).
        """
        frame = result_frame(outcome)
        if frame is None:
            return outcome, []
        current, tried, checked = check_result(question, frame, outcome.sql), set(), []
        while pending := [finding for finding in current if finding.kind not in tried]:
            finding = pending[0]
            tried.add(finding.kind)
            retried = retry(finding, outcome.sql)
            retried_frame = result_frame(retried) if retried is not None else None
            found = check_result(question, retried_frame, retried.sql) if retried_frame is not None else None
            accepted = found is not None and _severity(found) < _severity(current)
            if accepted:
                current = found
                outcome = Outcome(retried.sql, [*outcome.attempts, *retried.attempts], retried.result)
            checked.append(finding_record("result_check", finding, retry_accepted=accepted))
        return outcome, checked

    def __deepcopy__(self, memo: dict) -> "ResultCheck":
        return self  # stateless, shared by every copy an optimizer makes
