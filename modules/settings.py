"""The pipeline's settings: stage switches, correction budget, timeout, reasoning, schema detail."""

from dataclasses import dataclass
from typing import Literal

from modules.errors import UnknownStageError
from modules.stages import STAGES

__all__ = ["SCHEMA_DETAILS", "PipelineSettings"]

SCHEMA_DETAILS = ("full", "brief", "names")


@dataclass(frozen=True, kw_only=True)
class PipelineSettings:
    """How `AlerceText2SQL` runs; `dataclasses.asdict` of it belongs in the artifact manifest.

    Attributes:
        stages: Stages switched on, normalised to `STAGES` order; generation always runs. Off means: no
            schema_linking -> full schema; no classification -> no routing (decomposition, if on, runs for
            every question); no decomposition -> direct generation; no self_correction -> a single attempt.
        max_corrections: Self-correction rounds after execution errors.
        timeout_s: Statement timeout for the pipeline's own executions (None: the executor's default).
        reasoning: Give every predictor a `reasoning` output first (fixed at construction).
        schema_detail: How much of the full schema the stages see when schema linking is off: "full" (every
            column described), "brief" (short descriptions) or "names" (names and types only, for small models).
    """

    stages: tuple[str, ...] = STAGES
    max_corrections: int = 2
    timeout_s: float | None = None
    reasoning: bool = False
    schema_detail: Literal["full", "brief", "names"] = "full"

    def __post_init__(self) -> None:
        """Validate and normalise the switches.

        Raises:
            UnknownStageError: A stage name is not in `STAGES`.
            ValueError: `max_corrections` is negative.
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

    def is_on(self, stage: str) -> bool:
        """Tell whether `stage` runs."""
        return stage in self.stages
