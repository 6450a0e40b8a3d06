"""The pipeline's settings: stage switches, candidates, correction budget, timeout, reasoning, schema detail."""

from dataclasses import dataclass
from typing import Literal

import dspy

from modules.errors import UnknownStageError
from modules.stages import STAGES

__all__ = ["PROVIDER_CANDIDATES", "SCHEMA_DETAILS", "PipelineSettings", "default_candidates"]

SCHEMA_DETAILS = ("full", "brief", "names")
PROVIDER_CANDIDATES = 4
"""Candidates per question for a model served by a provider, when `PipelineSettings.candidates` is None."""


def default_candidates(lm: dspy.BaseLM | None) -> int:
    """Return how many candidates to write with `lm`: 4 from a provider, 1 from an in-process engine or no LM.

    An in-process engine (the embedded ``local/...`` models) answers one call at a time, so every extra candidate
    would add its full latency; a provider answers them concurrently.
    """
    engine = getattr(lm, "engine", None)
    return PROVIDER_CANDIDATES if isinstance(engine, str) else 1


@dataclass(frozen=True, kw_only=True)
class PipelineSettings:
    """How `AlerceText2SQL` runs; `dataclasses.asdict` of it belongs in the artifact manifest.

    Attributes:
        stages: Stages switched on, normalised to `STAGES` order; generation always runs. Off means: no
            schema_linking -> full schema; no classification -> no routing (decomposition, if on, runs for
            every question); no decomposition -> direct generation; no self_correction -> a single attempt;
            no value_check -> no vocabulary in the prompt and no literal check; no selection -> one candidate;
            no result_check -> no retry after a result that contradicts the question.
        candidates: SQL candidates per question, written by diverse paths and run concurrently; the selection
            stage picks one (switched off: one candidate). None: `default_candidates` of the generation LM.
        min_agreement: Share of the candidates the largest result cluster needs to win the vote alone; below it
            (or on a tie) the pairwise selector compares the clusters.
        max_corrections: Self-correction rounds after execution errors.
        timeout_s: Statement timeout for the pipeline's own executions (None: the executor's default).
        reasoning: Give every predictor a `reasoning` output first (fixed at construction).
        schema_detail: How much of the full schema the stages see when schema linking is off: "full" (every
            column described), "brief" (short descriptions) or "names" (names and types only, for small models).
    """

    stages: tuple[str, ...] = STAGES
    candidates: int | None = None
    min_agreement: float = 0.5
    max_corrections: int = 2
    timeout_s: float | None = None
    reasoning: bool = False
    schema_detail: Literal["full", "brief", "names"] = "full"

    def __post_init__(self) -> None:
        """Validate and normalise the switches.

        Raises:
            UnknownStageError: A stage name is not in `STAGES`.
            ValueError: `max_corrections` is negative, `candidates` below 1, or `min_agreement` outside [0, 1].
        """
        for name in self.stages:
            if name not in STAGES:
                raise UnknownStageError(name, STAGES)
        chosen = {*self.stages, "generation"}
        object.__setattr__(self, "stages", tuple(stage for stage in STAGES if stage in chosen))
        if self.schema_detail not in SCHEMA_DETAILS:
            raise ValueError(f"schema_detail must be one of {', '.join(SCHEMA_DETAILS)}, got {self.schema_detail!r}.")
        if self.max_corrections < 0:
            raise ValueError(f"max_corrections must be 0 or more, got {self.max_corrections}.")
        if self.candidates is not None and self.candidates < 1:
            raise ValueError(f"candidates must be 1 or more (or None for the model's default), got {self.candidates}.")
        if not 0.0 <= self.min_agreement <= 1.0:
            raise ValueError(f"min_agreement must be between 0 and 1, got {self.min_agreement}.")

    def is_on(self, stage: str) -> bool:
        """Tell whether `stage` runs."""
        return stage in self.stages
