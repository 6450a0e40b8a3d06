"""What grounding did with a set of gold queries, in the one line the builder logs."""

from __future__ import annotations

from dataclasses import dataclass, field

from replica.engine.grounding.entities import Skipped

__all__ = ["GroundingReport"]


@dataclass
class GroundingReport:
    """The queries grounded on, those skipped (with why), those still without rows, and the time per stage.

    Example:
        >>> report = GroundingReport(["q1", "q2", "q3"], [Skipped("q2", "it cannot be read")], entities=9)
        >>> report.grounded
        ['q1', 'q3']
        >>> report.unanswered = ["q3"]
        >>> report.summary()
        'grounded 2 of 3 queries (1 skipped, 1 without rows): 9 entities, 0 base objects thinned, 0.0 s'
    """

    queries: list[str]
    skipped: list[Skipped]
    entities: int = 0
    thinned: int = 0
    unanswered: list[str] = field(default_factory=list)
    stages_s: dict[str, float] = field(default_factory=dict)

    @property
    def grounded(self) -> list[str]:
        """The queries that were not skipped, in order."""
        skipped = {s.query for s in self.skipped}
        return [query for query in self.queries if query not in skipped]

    def summary(self) -> str:
        """One line: how many queries were grounded, skipped and left without rows, and what it took."""
        return (
            f"grounded {len(self.grounded)} of {len(self.queries)} queries ({len(self.skipped)} skipped, "
            f"{len(self.unanswered)} without rows): {self.entities} entities, {self.thinned} base objects thinned, "
            f"{sum(self.stages_s.values()):.1f} s"
        )
