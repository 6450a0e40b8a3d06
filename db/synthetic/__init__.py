"""Deterministic synthetic ALeRCE data: `build(conn, scale=..., seed=...)` fills schema alerce via COPY."""

from db.synthetic.build import build
from db.synthetic.scales import SCALES, get_scale

__all__ = ["SCALES", "build", "get_scale"]
