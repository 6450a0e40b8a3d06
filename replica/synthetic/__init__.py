"""Deterministic synthetic ALeRCE data: objects, light curves, classifications, features, cross-matches.

`replica.build.build(conn, scale=..., seed=...)` fills schema alerce with them (grounded on gold queries).
"""
