"""Candidate paths: the diverse ways the program writes several SQL candidates, and running them concurrently.

Examples:
    >>> [path.name for path in candidate_paths(5)]
    ['default', 'without_plan', 'step_by_step', 'other_demos', 'default']
    >>> [path.config for path in candidate_paths(2)]
    [{}, {'temperature': 0.7, 'rollout_id': 1}]
"""

import contextvars
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal, TypeVar

__all__ = ["SAMPLING_TEMPERATURE", "CandidatePath", "candidate_paths", "run_concurrently"]

SAMPLING_TEMPERATURE = 0.7
"""Temperature of every candidate but the first, so that paths that coincide still differ."""

T = TypeVar("T")


@dataclass(frozen=True)
class CandidatePath:
    """How one candidate is written.

    Attributes:
        name: The path's name, recorded with the candidate.
        use_plan: Follow the decomposition's plan when there is one.
        step_by_step: Reason in a few steps before writing the SQL.
        demos: "default": per-question (MQS) demos when the program retrieves them, else the compiled ones;
            "other": the compiled demos when the default retrieves, else none.
        config: LM settings of the call: empty for the first candidate; a temperature above 0 and a distinct
            ``rollout_id`` for the others, so that DSPy's cache does not return one answer for all.
    """

    name: str
    use_plan: bool = True
    step_by_step: bool = False
    demos: Literal["default", "other"] = "default"
    config: dict[str, object] = field(default_factory=dict)


_VARIANTS = (
    CandidatePath("default"),
    CandidatePath("without_plan", use_plan=False),
    CandidatePath("step_by_step", step_by_step=True),
    CandidatePath("other_demos", demos="other"),
)


def candidate_paths(count: int) -> list[CandidatePath]:
    """Return ``count`` paths: the program's own first, then without plan, step by step, other demos, repeating.

    Args:
        count: Candidates per question (at least 1).

    Returns:
        The paths; all but the first sample at `SAMPLING_TEMPERATURE` with rollout ids 1, 2, ...
    """
    paths = []
    for index in range(count):
        variant = _VARIANTS[index % len(_VARIANTS)]
        config = {"temperature": SAMPLING_TEMPERATURE, "rollout_id": index} if index else {}
        paths.append(CandidatePath(variant.name, variant.use_plan, variant.step_by_step, variant.demos, config))
    return paths


def run_concurrently(tasks: Sequence[Callable[[], T]]) -> list[T]:
    """Run the tasks in threads of their own and return their results in order; one task runs inline.

    Each thread runs in a copy of the caller's context, so ``dspy.context`` settings (LM, adapter, trace, usage
    tracking) reach it as they would reach a call in the caller's thread.
    """
    if len(tasks) == 1:
        return [tasks[0]()]
    contexts = [contextvars.copy_context() for _ in tasks]
    with ThreadPoolExecutor(max_workers=len(tasks), thread_name_prefix="candidate") as pool:
        futures = [pool.submit(context.run, task) for context, task in zip(contexts, tasks, strict=True)]
        return [future.result() for future in futures]
