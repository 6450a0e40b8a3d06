"""The ZTF catalog's recipe: deterministic synthetic objects, light curves, classifications, features, cross-matches."""

CATALOG = "ztf"
"""The catalog (``catalog/ztf.yaml``) whose tables the recipe fills."""
