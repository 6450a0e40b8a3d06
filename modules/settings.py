"""The program's settings: stage switches, candidates, correction budget, timeout, reasoning, reference date, and
which program."""

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal

import dspy

from catalog import CATALOG_NAMES
from defaults.catalog import DEFAULT_CATALOG
from modules.errors import UnknownStageError
from modules.options import SCHEMA_DETAILS
from modules.stages import OPTIONAL_STAGES, STAGES

__all__ = [
    "PROVIDER_CANDIDATES",
    "SCHEMA_DETAILS",
    "PipelineSettings",
    "ProgramSettings",
    "default_candidates",
    "today_utc",
]

PROVIDER_CANDIDATES = 4
"""Candidates per question for a model served by a provider, when `PipelineSettings.candidates` is None."""


def today_utc() -> date:
    """Return today's date in UTC: the date stage's reference date unless one is given."""
    return datetime.now(UTC).date()


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
        stages: Stages switched on, normalised to `STAGES` order; generation always runs. Off means: no dates ->
            no MJD ranges of the question's dates in the knowledge; no schema_linking -> full schema; no
            classification -> no routing (decomposition, if on, runs for every question); no decomposition ->
            direct generation; no self_correction -> a single attempt;
            no value_check -> no vocabulary in the prompt and no literal check; no selection -> one candidate;
            no result_check -> no retry after a result that contradicts the question; no explanation -> no plain
            words on what the SQL returns.
        candidates: SQL candidates per question, written by diverse paths and run concurrently; the selection
            stage picks one (switched off: one candidate). None: `default_candidates` of the generation LM.
        min_agreement: Share of the candidates the largest result cluster needs to win the vote alone; below it
            (or on a tie) the pairwise selector compares the clusters.
        max_corrections: Self-correction rounds after execution errors.
        timeout_s: Statement timeout for the pipeline's own executions (None: the executor's default).
        reasoning: Give every predictor a `reasoning` output first (fixed at construction).
        schema_detail: How much of the full schema the stages see when schema linking is off: "full" (every
            column described), "brief" (short descriptions) or "names" (names and types only, for small models).
        catalog: The catalog the program writes SQL for (``catalog.CATALOG_NAMES``): its schema and prompt rules.
        as_of: The reference date ("today") of the date stage, for relative dates and for months or days given
            without a year; None: the UTC date when each question is asked. An ISO text is read as a date.
    """

    stages: tuple[str, ...] = STAGES
    candidates: int | None = None
    min_agreement: float = 0.5
    max_corrections: int = 2
    timeout_s: float | None = None
    reasoning: bool = False
    schema_detail: Literal["full", "brief", "names"] = "full"
    catalog: str = DEFAULT_CATALOG
    as_of: date | None = None

    def __post_init__(self) -> None:
        """Validate and normalise the switches (an ``as_of`` read from a manifest is ISO text).

        Raises:
            UnknownStageError: A stage name is not in `STAGES`.
            ValueError: `max_corrections` is negative, `candidates` below 1, `min_agreement` outside [0, 1], the
                catalog is unknown, or `as_of` is text that is not an ISO date.
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
        if self.catalog not in CATALOG_NAMES:
            raise ValueError(f"Unknown catalog {self.catalog!r}; choose one of {', '.join(CATALOG_NAMES)}.")
        if isinstance(self.as_of, str):
            object.__setattr__(self, "as_of", date.fromisoformat(self.as_of))

    def reference_date(self) -> date:
        """Return `as_of`, or today's UTC date when it is None."""
        return self.as_of or today_utc()

    def is_on(self, stage: str) -> bool:
        """Tell whether `stage` runs."""
        return stage in self.stages


@dataclass(frozen=True, kw_only=True)
class ProgramSettings:
    """Which program answers, and the switches that adjust a compiled one before it is built.

    Attributes:
        artifact: An artifact folder or program.json to load instead of the model's
            (``artifacts/<model slug>/<catalog>``).
        uncompiled: Ignore any artifact and run the code-defined prompts.
        direct: Run the one-call ``DirectText2SQL`` baseline instead (no artifact, no stages).
        stages: Stages switched on; None keeps the artifact's (all stages when uncompiled).
        without: Optional stages switched off on top of that (``OPTIONAL_STAGES``).
        candidates: SQL candidates per question; None keeps the artifact's (else the model's default).
        as_of: The date stage's reference date; None: the UTC date of each question (never the artifact's, which
            only records when it was compiled).
    """

    artifact: Path | None = None
    uncompiled: bool = False
    direct: bool = False
    stages: tuple[str, ...] | None = None
    without: tuple[str, ...] = ()
    candidates: int | None = None
    as_of: date | None = None

    def __post_init__(self) -> None:
        """Validate the switches.

        Raises:
            UnknownStageError: ``stages`` names an unknown stage, or ``without`` one that is not optional.
            ValueError: ``candidates`` is below 1.
        """
        for name in self.without:
            if name not in OPTIONAL_STAGES:
                raise UnknownStageError(name, OPTIONAL_STAGES)
        for name in self.stages or ():
            if name not in STAGES:
                raise UnknownStageError(name, STAGES)
        if self.candidates is not None and self.candidates < 1:
            raise ValueError(f"candidates must be 1 or more (or None for the model's default), got {self.candidates}.")
        object.__setattr__(self, "without", tuple(self.without))
        if self.stages is not None:
            object.__setattr__(self, "stages", tuple(self.stages))
        if self.artifact is not None:
            object.__setattr__(self, "artifact", Path(self.artifact))

    def pipeline(self, saved: PipelineSettings) -> PipelineSettings:
        """Return `saved` (an artifact's settings, or the defaults) with these switches applied."""
        stages = self.stages if self.stages is not None else saved.stages
        return replace(
            saved,
            stages=tuple(stage for stage in stages if stage not in self.without),
            candidates=self.candidates if self.candidates is not None else saved.candidates,
            as_of=self.as_of,
        )
