"""The lookup tables' published values (lookups.yaml beside this file) as rows and as name -> id maps.

Example:
    >>> LSST_BANDS["u"], LSST_BANDS["y"]
    (6, 5)
    >>> class_id(3, "SN"), version_code("2.0.2")
    (0, 202)
    >>> feature_names()[27]
    'Multiband_period'
"""

import functools
from pathlib import Path

import pandas as pd
import yaml

__all__ = [
    "CLASS_NAMES",
    "LOOKUPS_PATH",
    "LSST_BANDS",
    "STAMP_CLASSIFIERS",
    "ZTF_BANDS",
    "class_id",
    "classifier_version_code",
    "feature_names",
    "lookup_frames",
    "version_code",
]

LOOKUPS_PATH = Path(__file__).with_name("lookups.yaml")
LOOKUP_TABLES = (
    "sid_lut",
    "band",
    "catalog_id_lut",
    "feature_name_lut",
    "feature_version_lut",
    "classifier",
    "taxonomy",
)


@functools.cache
def _raw() -> dict:
    return yaml.safe_load(LOOKUPS_PATH.read_text(encoding="utf-8"))


def lookup_frames() -> dict[str, pd.DataFrame]:
    """Return the rows of every lookup table, keyed by table name."""
    raw = _raw()
    frames = {name: pd.DataFrame(raw[name]) for name in LOOKUP_TABLES if name != "feature_name_lut"}
    names = raw["feature_name_lut"]
    frames["feature_name_lut"] = pd.DataFrame(
        {
            "feature_id": range(len(names["names"])),
            "feature_name": names["names"],
            "created_date": names["created_date"],
            "sid": names["sid"],
            "tid": names["tid"],
        }
    )
    return frames


def _bands(sid: int) -> dict[str, int]:
    return {row["band_name"]: row["band"] for row in _raw()["band"] if row["sid"] == sid}


def feature_names() -> tuple[str, ...]:
    """Return the feature names in feature_id order."""
    return tuple(_raw()["feature_name_lut"]["names"])


def version_code(version: str) -> int:
    """Return the smallint code probability.classifier_version stores for a version string ('2.0.2' -> 202)."""
    return int(version.replace(".", ""))


def class_id(classifier: int, name: str) -> int:
    """Return the class_id of class `name` in classifier `classifier` (class ids repeat across classifiers)."""
    rows = _raw()["taxonomy"]
    return next(r["class_id"] for r in rows if r["classifier_id"] == classifier and r["class_name"] == name)


def classifier_version_code(classifier: int) -> int:
    """Return the version code of a classifier's rows in probability."""
    return version_code(next(r["classifier_version"] for r in _raw()["classifier"] if r["classifier_id"] == classifier))


LSST_BANDS = _bands(1)
ZTF_BANDS = _bands(0)
STAMP_CLASSIFIERS = tuple(row["classifier_id"] for row in _raw()["classifier"])
CLASS_NAMES = tuple(r["class_name"] for r in _raw()["taxonomy"] if r["classifier_id"] == STAMP_CLASSIFIERS[-1])
