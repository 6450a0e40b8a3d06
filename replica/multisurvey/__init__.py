"""Deterministic synthetic multi-survey data (LSST + ZTF, schema alerce_tap): `build(conn, scale=..., seed=...)`."""

from replica.multisurvey.build import SCHEMA, build
from replica.multisurvey.scales import SCALES, get_scale

__all__ = ["SCALES", "SCHEMA", "build", "get_scale"]
