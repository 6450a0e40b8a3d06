"""Per-question bookkeeping: token usage, time and failures per stage (never stored on a module)."""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import dspy

from lms.usage import add_usage, tokens_of
from modules.run.execution import Outcome
from modules.run.failures import StageFailure

__all__ = ["RunRecord"]


@dataclass
class RunRecord:
    """What one `forward` call spent and what went wrong, keyed by stage name (times summed over candidates)."""

    usage: dict[str, dict[str, int]] = field(default_factory=dict)
    timings_s: dict[str, float] = field(default_factory=dict)
    failures: list[StageFailure] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Measure the LM tokens and wall time spent inside the block under stage `name`.

        DSPy callbacks with ``on_stage_start(name)`` and ``on_stage_end(name, exception)`` hear every stage by
        name, including the checks that are not modules (their ``on_module_*`` hooks never fire for those).
        """
        listeners = [cb for cb in dspy.settings.get("callbacks", None) or [] if hasattr(cb, "on_stage_start")]
        for listener in listeners:
            listener.on_stage_start(name)
        started = time.perf_counter()
        failure: BaseException | None = None
        with dspy.track_usage() as tracker:
            try:
                yield
            except BaseException as err:
                failure = err
                raise
            finally:
                self.timings_s[name] = self.timings_s.get(name, 0.0) + time.perf_counter() - started
                self._add_usage(name, tracker.usage_data)
                for listener in listeners:
                    listener.on_stage_end(name, failure)

    def prediction(self, outcome: Outcome, **linked: object) -> dspy.Prediction:
        """Build a program's prediction: the linked schema and plan (`linked`), the outcome, and this record."""
        return dspy.Prediction(
            **linked,
            sql=outcome.sql,
            attempts=outcome.attempts,
            result=outcome.result,
            error=outcome.error,
            failures=[failure.as_dict() for failure in self.failures],
            usage=self.usage,
            timings_s=self.timings_s,
        )

    def add_failures(self, failures: list[StageFailure]) -> None:
        """Record failures reported by a stage."""
        self.failures.extend(failures)

    def merge(self, other: "RunRecord") -> None:
        """Add what another record (one candidate's, run in its own thread) spent and found wrong."""
        add_usage(self.usage, other.usage)
        for name, seconds in other.timings_s.items():
            self.timings_s[name] = self.timings_s.get(name, 0.0) + seconds
        self.failures.extend(other.failures)

    def _add_usage(self, name: str, usage_data: dict[str, list[dict]]) -> None:
        tokens = tokens_of(usage_data)
        if tokens["calls"]:
            add_usage(self.usage, {name: tokens})
