"""Compile settings: the only defaults of ``python -m compile``."""

from dataclasses import dataclass, field

from modules.predictors.adapter import ADAPTERS, default_adapter
from modules.settings import PipelineSettings

__all__ = ["LM_CALLS_PER_RUN", "CompileSettings"]

LM_CALLS_PER_RUN = 5
"""Rough LM calls of one program run (linking x2, classification, generation, maybe more): converts budgets."""


@dataclass(frozen=True, kw_only=True)
class CompileSettings:
    """How one compile runs; ``dataclasses.asdict`` of it is stored in the manifest.

    Attributes:
        model: The task model string (``lms.resolve_lm``).
        optimizer: Strategy name from ``optimizers.strategies.STRATEGIES``.
        stages: Stages switched on in the compiled program.
        adapter: A name of ``ADAPTERS``, applied around compile and recorded for inference (None:
            ``default_adapter`` of the model).
        seed: Seed of the train/validation split and of the optimiser.
        train_fraction: Share of each difficulty that goes to the train (demo source) split; of the rest, half
            validates (strategies that select among candidates) and the others are held out for the reported score.
        num_threads: Threads for optimiser evaluations.
        max_lm_calls: Task-LM call budget (None: the strategy's default); converted with ``LM_CALLS_PER_RUN``.
        trials: Trials or candidate programs instead of a call budget (None: the strategy's default).
        reflection_model: Model that GEPA uses to rewrite instructions (required by gepa).
        k: Demos per question (mqs) or labelled demos per predictor (labeled).
        max_bootstrapped_demos: Bootstrapped demos per predictor (random-search, mipro).
        max_labeled_demos: Labelled demos per predictor (random-search, mipro).
        pipeline: The compiled program's settings: stages, candidates (None: ``default_candidates`` of the model,
            resolved before compiling), correction budget, reasoning, schema detail.
    """

    model: str
    optimizer: str = "random-search"
    pipeline: PipelineSettings = field(default_factory=PipelineSettings)
    adapter: str | None = None
    seed: int = 0
    train_fraction: float = 0.4
    num_threads: int = 2
    max_lm_calls: int | None = None
    trials: int | None = None
    reflection_model: str | None = None
    k: int = 3
    max_bootstrapped_demos: int = 2
    max_labeled_demos: int = 1

    def __post_init__(self) -> None:
        """Check the values.

        Raises:
            ValueError: A value is out of range (the message names it).
        """
        if self.adapter is None:
            object.__setattr__(self, "adapter", default_adapter(self.model))
        if self.adapter not in ADAPTERS:
            raise ValueError(f"Unknown adapter {self.adapter!r}; choose from {', '.join(ADAPTERS)}.")
        if not 0.0 < self.train_fraction < 1.0:
            raise ValueError(f"train_fraction must be between 0 and 1, got {self.train_fraction}.")
        for name in ("num_threads", "k", "max_lm_calls", "trials"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be 1 or more, got {value}.")

    def runs_budget(self, default: int) -> int:
        """Return the number of program runs allowed: from ``max_lm_calls``, else ``default``."""
        if self.max_lm_calls is None:
            return default
        return max(1, self.max_lm_calls // LM_CALLS_PER_RUN)
