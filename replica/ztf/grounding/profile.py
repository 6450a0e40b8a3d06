"""The ZTF catalog as the grounding engine sees it: ``ZTF_PROFILE``."""

from __future__ import annotations

import math

from replica.engine.grounding.entity import Entity
from replica.engine.grounding.profile import Profile
from replica.ztf import CATALOG
from replica.ztf.grounding.bind import PER_ROW, bind_values
from replica.ztf.grounding.domains import categories, domain

__all__ = ["ZTF_PROFILE"]

_MAX_DETECTIONS = 5000
"""Detections the generator makes for one object at most, so that no query can make a build run out of memory."""
_DETECTION_COUNTS = ("_ndet", "_ndet_g", "_ndet_r")


def _object_id(column: str, value) -> str | None:
    """A ZTF object is named by its oid string."""
    return str(value) if column == "oid" and isinstance(value, str) else None


def _unmakeable(entity: Entity) -> str | None:
    """Why the generator cannot make the entity (a non-finite spec value, too many detections), or None."""
    for key, value in entity.spec.items():
        if isinstance(value, float) and not math.isfinite(value):
            return f"it needs a {key.lstrip('_')} of {value}, which no object has"
    detections = max(int(entity.spec.get(key, 0)) for key in _DETECTION_COUNTS)
    if detections > _MAX_DETECTIONS:
        return f"it needs {detections} detections of one object; the generator makes at most {_MAX_DETECTIONS}"
    return None


ZTF_PROFILE = Profile(
    catalog=CATALOG,
    identity=frozenset({"oid"}),
    per_row=PER_ROW,
    classifier_column="classifier_name",
    class_column="class_name",
    domain=domain,
    categories=categories,
    bind=bind_values,
    object_id=_object_id,
    unmakeable=_unmakeable,
)
