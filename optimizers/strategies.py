"""Compile strategies: one function per ``--optimizer`` name, all with the same contract.

A strategy takes the uncompiled student, the train split (demo source) and the validation split (selection; empty
for strategies outside ``SELECTING``), and returns a new program; it never mutates the student (DSPY_GUIDE.md §7
gives costs and pitfalls). The held-out split that scores the result is never shown to a strategy.
"""

from __future__ import annotations

import importlib.util
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dspy

from modules.generation.demo_retriever import DemoRetriever
from modules.run.knowledge import format_knowledge
from optimizers.errors import CompileError
from optimizers.settings import CompileSettings

__all__ = ["SELECTING", "STRATEGIES", "CompileContext", "Strategy", "as_demo_source", "split_examples"]


@dataclass(frozen=True)
class CompileContext:
    """What a strategy needs besides the data.

    Attributes:
        settings: The compile settings (budget, demos, seed, threads, k).
        metric: ``pm_metric(example, pred, trace=None)``.
        feedback_metric: GEPA's five-argument metric.
        reflection_lm: The LM that rewrites instructions: GEPA's reflection LM (required) and MIPROv2's proposer
            (optional; the task LM proposes when it is None).
    """

    settings: CompileSettings
    metric: Callable[..., Any]
    feedback_metric: Callable[..., Any] | None = None
    reflection_lm: dspy.LM | None = None


Strategy = Callable[[dspy.Module, list[dspy.Example], list[dspy.Example], CompileContext], dspy.Module]


SELECTING = frozenset({"random-search", "mipro", "gepa"})
"""Strategies that choose among candidate programs by their score on the validation part."""


def split_examples(
    examples: list[dspy.Example], train_fraction: float, seed: int, *, selects: bool = True
) -> tuple[list[dspy.Example], list[dspy.Example], list[dspy.Example]]:
    """Split into train (demo source), validation (selection) and held-out (the reported score), per difficulty.

    Each difficulty gives ``round(n * train_fraction)`` examples to train, and when it has two or more, at least
    one to train and one to the rest. Of the rest, a strategy that selects gets half (rounded down) for validation; the
    others, and one that does not select, are held out: no demo comes from them and nothing is chosen on them.

    Returns:
        ``(train, validation, heldout)``, each in the examples' original order.

    Raises:
        CompileError: Nothing would be held out, or nothing validates a strategy that selects.
    """
    by_difficulty: dict[str, list[int]] = defaultdict(list)
    for index, example in enumerate(examples):
        by_difficulty[str(example.get("difficulty", ""))].append(index)
    rng = random.Random(seed)
    part_of: dict[int, int] = {}
    for difficulty in sorted(by_difficulty):
        indices = by_difficulty[difficulty]
        rng.shuffle(indices)
        n_train = round(len(indices) * train_fraction)
        if len(indices) >= 2:
            n_train = min(max(n_train, 1), len(indices) - 1)
        n_validation = (len(indices) - n_train) // 2 if selects else 0
        for position, index in enumerate(indices):
            part_of[index] = 0 if position < n_train else 1 if position < n_train + n_validation else 2
    parts: tuple[list[dspy.Example], ...] = ([], [], [])
    for index, example in enumerate(examples):
        parts[part_of[index]].append(example)
    train, validation, heldout = parts
    if not heldout or (selects and not validation):
        raise CompileError(
            f"{len(examples)} examples with --train-fraction {train_fraction} leave no "
            f"{'held-out' if not heldout else 'validation'} questions; use more examples or a smaller fraction."
        )
    return train, validation, heldout


def as_demo_source(examples: list[dspy.Example]) -> list[dspy.Example]:
    """Add the predictor field names to labelled examples (``knowledge``, ``sql``) so they can serve as demos."""
    return [
        example.copy(
            knowledge=format_knowledge(example.get("external_knowledge", ""), example.get("domain_knowledge", "")),
            sql=example.gold_sql,
        )
        for example in examples
    ]


def _none(student: dspy.Module, train: list, validation: list, context: CompileContext) -> dspy.Module:
    return student.deepcopy()


def _labeled(student: dspy.Module, train: list, validation: list, context: CompileContext) -> dspy.Module:
    return dspy.LabeledFewShot(k=context.settings.k).compile(student, trainset=train)


def _candidates(context: CompileContext, n_validation: int) -> int:
    """Candidate programs of random search: ``trials``, else from the budget ((N + 3) runs over validation)."""
    settings = context.settings
    if settings.trials is not None:
        return settings.trials
    return max(1, settings.runs_budget(default=7 * max(n_validation, 1)) // max(n_validation, 1) - 3)


def _random_search(student: dspy.Module, train: list, validation: list, context: CompileContext) -> dspy.Module:
    settings = context.settings
    optimizer = dspy.BootstrapFewShotWithRandomSearch(
        metric=context.metric,
        max_bootstrapped_demos=settings.max_bootstrapped_demos,
        max_labeled_demos=settings.max_labeled_demos,
        num_candidate_programs=_candidates(context, len(validation)),
        num_threads=settings.num_threads,
    )
    return optimizer.compile(student, trainset=train, valset=validation)


def _mipro(student: dspy.Module, train: list, validation: list, context: CompileContext) -> dspy.Module:
    """MIPROv2 in manual mode (DSPY_GUIDE.md §7): 4 candidates per predictor, full-validation trials.

    The proposer (dataset summary, program description, instruction candidates) runs on the reflection LM when
    one is given, else on the task LM (MIPROv2's ``prompt_model`` default).
    """
    if importlib.util.find_spec("optuna") is None:
        raise CompileError("The mipro optimizer needs optuna: pip install optuna.")
    settings = context.settings
    trials = settings.trials or max(1, settings.runs_budget(default=12 * len(validation)) // max(len(validation), 1))
    optimizer = dspy.MIPROv2(
        metric=context.metric,
        prompt_model=context.reflection_lm,
        auto=None,
        num_candidates=4,
        max_bootstrapped_demos=settings.max_bootstrapped_demos,
        max_labeled_demos=settings.max_labeled_demos,
        num_threads=settings.num_threads,
        seed=settings.seed,
    )
    return optimizer.compile(student, trainset=train, valset=validation, num_trials=trials, minibatch=False)


def _gepa(student: dspy.Module, train: list, validation: list, context: CompileContext) -> dspy.Module:
    if context.reflection_lm is None or context.feedback_metric is None:
        raise CompileError("The gepa optimizer needs a reflection model: add --reflection-model PROVIDER/MODEL.")
    settings = context.settings
    calls = settings.trials * len(validation) if settings.trials else settings.runs_budget(default=300)
    optimizer = dspy.GEPA(
        metric=context.feedback_metric,
        reflection_lm=context.reflection_lm,
        max_metric_calls=calls,
        num_threads=settings.num_threads,
        seed=settings.seed,
    )
    return optimizer.compile(student, trainset=train, valset=validation)


def _mqs(student: dspy.Module, train: list, validation: list, context: CompileContext) -> dspy.Module:
    program = student.deepcopy()
    program.demo_retriever = DemoRetriever.fit(train, k=context.settings.k)
    return program


STRATEGIES: dict[str, Strategy] = {
    "random-search": _random_search,
    "mipro": _mipro,
    "gepa": _gepa,
    "labeled": _labeled,
    "none": _none,
    "mqs": _mqs,
}
"""Strategy per ``--optimizer`` name; ``random-search`` is the default (DSPY_GUIDE.md §7, "With 58 dev examples")."""
