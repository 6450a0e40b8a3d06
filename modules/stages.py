"""The stage names: one vocabulary for predictor attributes, artifact keys, ablation switches and report rows."""

__all__ = ["OPTIONAL_STAGES", "STAGES"]

STAGES = ("schema_linking", "classification", "decomposition", "generation", "self_correction")
"""Every stage of `AlerceText2SQL`, in execution order."""

OPTIONAL_STAGES = tuple(stage for stage in STAGES if stage != "generation")
"""Stages that an ablation may switch off; generation always runs."""
