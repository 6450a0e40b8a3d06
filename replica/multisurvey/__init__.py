"""The multi-survey catalog's recipe (LSST + ZTF): its generator, scales and grounding profile."""

CATALOG = "multisurvey"
"""The catalog (``catalog/multisurvey.yaml``) whose tables the recipe fills."""
