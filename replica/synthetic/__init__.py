"""Deterministic synthetic ALeRCE data: `build(conn, scale=..., seed=...)` fills schema alerce via COPY."""

from replica.synthetic.build import build
from replica.synthetic.scales import SCALES, get_scale

__all__ = ["SCALES", "build", "get_scale"]
