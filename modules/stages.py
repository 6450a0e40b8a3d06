"""The stage names: one vocabulary for predictor attributes, artifact keys, ablation switches and report rows."""

__all__ = ["OPTIONAL_STAGES", "STAGES"]

STAGES = (
    "dates",
    "schema_linking",
    "classification",
    "decomposition",
    "generation",
    "value_check",
    "self_correction",
    "selection",
    "result_check",
    "explanation",
)
"""Every stage of `AlerceText2SQL`, in execution order (value check and self-correction run per candidate)."""

OPTIONAL_STAGES = tuple(stage for stage in STAGES if stage != "generation")
"""Stages that an ablation may switch off; generation always runs."""
