"""The ZTF catalog as the grounding engine sees it: ``ZTF_PROFILE``."""

from replica.engine.grounding.profile import Profile
from replica.ztf import CATALOG
from replica.ztf.grounding.bind import PER_ROW, bind_values
from replica.ztf.grounding.domains import categories, domain

__all__ = ["ZTF_PROFILE"]


def _object_id(column: str, value) -> str | None:
    """A ZTF object is named by its oid string."""
    return str(value) if column == "oid" and isinstance(value, str) else None


ZTF_PROFILE = Profile(
    catalog=CATALOG,
    identity=("oid",),
    per_row=PER_ROW,
    classifier_column="classifier_name",
    class_column="class_name",
    domain=domain,
    categories=categories,
    bind=bind_values,
    object_id=_object_id,
    row_count_keys=("_ndet", "_ndet_g", "_ndet_r"),
)
