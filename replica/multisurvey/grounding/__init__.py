"""Grounding of the multi-survey replica: its profile for the grounding engine, and the rows of grounded entities."""

from replica.multisurvey.grounding.generate import grounded_tables
from replica.multisurvey.grounding.profile import MULTISURVEY_PROFILE

__all__ = ["MULTISURVEY_PROFILE", "grounded_tables"]
