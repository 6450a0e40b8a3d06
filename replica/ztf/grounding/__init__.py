"""Grounding of the ZTF replica: its profile for the grounding engine, and the rows of grounded entities."""

from replica.ztf.grounding.profile import ZTF_PROFILE
from replica.ztf.grounding.rows import grounded_tables

__all__ = ["ZTF_PROFILE", "grounded_tables"]
