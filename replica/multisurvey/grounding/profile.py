"""The multi-survey catalog as the grounding engine sees it: ``MULTISURVEY_PROFILE``.

Objects are named by integer ids (oid; ssobjectid for solar-system rows), classes and classifiers by id, and the
lookup tables (bands, classes, feature names, catalogues, surveys) have the published content: a condition on
a lookup is a condition on the ids it joins.
"""

from catalog import load_catalog
from replica.engine.grounding.profile import Profile
from replica.multisurvey import CATALOG
from replica.multisurvey.grounding.bind import PER_ROW, bind_values
from replica.multisurvey.grounding.bodies import IDENTITY
from replica.multisurvey.grounding.domains import categories, domain

__all__ = ["MULTISURVEY_PROFILE"]


def _object_id(column: str, value) -> int | None:
    """An object is named by a positive bigint (the notebooks also quote ids: '313853496686280764')."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    is_integer = isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer()
    return int(value) if is_integer and 0 < value < 2**63 else None


MULTISURVEY_PROFILE = Profile(
    catalog=CATALOG,
    identity=IDENTITY,
    per_row=PER_ROW,
    classifier_column="classifier_id",
    class_column="class_id",
    domain=domain,
    categories=categories,
    bind=bind_values,
    object_id=_object_id,
    row_count_keys=("n_det", "n_forced"),
    lookups=load_catalog(CATALOG).rows,
)
