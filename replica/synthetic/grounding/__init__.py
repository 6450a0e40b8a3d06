"""Grounding of the ZTF replica: its profile for the grounding engine, and the rows of grounded entities."""

from replica.synthetic.grounding.profile import ZTF_PROFILE
from replica.synthetic.grounding.rows import grounded_tables

__all__ = ["ZTF_PROFILE", "grounded_tables"]
