"""The names of the scales each catalog's replica is built at, smallest first (a leaf, for the command line).

``replica.replicas.replica_scales`` gives the same from the scale tables (tests/test_startup.py checks both agree).
"""

__all__ = ["MULTISURVEY_SCALES", "ZTF_SCALES"]

ZTF_SCALES = ("tiny", "default", "large")
MULTISURVEY_SCALES = ("tiny", "default")
