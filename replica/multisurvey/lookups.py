"""The lookup tables' published values (the catalog file's ``rows``) as name -> id maps.

Example:
    >>> LSST_BANDS["u"], LSST_BANDS["y"]
    (6, 5)
    >>> class_id(3, "SN"), classifier_version_code(3)
    (0, 202)
    >>> FEATURE_NAMES[27]
    'Multiband_period'
"""

from catalog import load_catalog
from replica.multisurvey import CATALOG

__all__ = [
    "CLASS_NAMES",
    "FEATURE_NAMES",
    "LSST_BANDS",
    "STAMP_CLASSIFIERS",
    "TID_OF_SID",
    "ZTF_BANDS",
    "class_id",
    "classifier_version_code",
]

_ROWS = load_catalog(CATALOG).rows


def _bands(sid: int) -> dict[str, int]:
    return {row["band_name"]: row["band"] for row in _ROWS["band"] if row["sid"] == sid}


def class_id(classifier: int, name: str) -> int:
    """Return the class_id of class `name` in classifier `classifier` (class ids repeat across classifiers)."""
    rows = _ROWS["taxonomy"]
    return next(r["class_id"] for r in rows if r["classifier_id"] == classifier and r["class_name"] == name)


def classifier_version_code(classifier: int) -> int:
    """Return the smallint code of a classifier's version in probability.classifier_version ('2.0.2' -> 202)."""
    version = next(r["classifier_version"] for r in _ROWS["classifier"] if r["classifier_id"] == classifier)
    return int(version.replace(".", ""))


FEATURE_NAMES = tuple(row["feature_name"] for row in _ROWS["feature_name_lut"])
"""The feature names in feature_id order (the catalog lists them so)."""
LSST_BANDS = _bands(1)
ZTF_BANDS = _bands(0)
TID_OF_SID = {row["sid"]: row["tid"] for row in _ROWS["sid_lut"]}
STAMP_CLASSIFIERS = tuple(row["classifier_id"] for row in _ROWS["classifier"])
CLASS_NAMES = tuple(r["class_name"] for r in _ROWS["taxonomy"] if r["classifier_id"] == STAMP_CLASSIFIERS[-1])
