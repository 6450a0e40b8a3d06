"""What the multi-survey catalog's tables hold, read from their keys: a table ALeRCE adds with the same keys takes
the same part in grounding.

Example:
    >>> MEASUREMENTS, MEASUREMENT_EXTENSIONS["lsst_forced_photometry"]
    (('detection', 'forced_photometry'), 'forced_photometry')
    >>> SOURCE_TABLES, SOLAR_SYSTEM_TABLES
    (('allwise', 'gaiadr3_source'), ('lsst_ss_detection', 'lsst_mpc_orbits'))
"""

from catalog import load_catalog
from replica.multisurvey import CATALOG

__all__ = ["MEASUREMENTS", "MEASUREMENT_EXTENSIONS", "SOLAR_SYSTEM_TABLES", "SOURCE_TABLES"]

_TABLES = load_catalog(CATALOG).tables


def _referenced(table) -> set[str]:
    return {key.ref_table for key in table.foreign_keys}


MEASUREMENTS = tuple(t.name for t in _TABLES if "measurement_id" in t.primary_key and "object" in _referenced(t))
"""The measurement tables every survey shares: rows of one object, one per measurement."""
MEASUREMENT_EXTENSIONS = {t.name: parent for t in _TABLES for parent in _referenced(t) if parent in MEASUREMENTS}
"""A survey's own columns of a shared measurement table: extension -> the table it extends, row for row."""
SOURCE_TABLES = tuple(t.name for t in _TABLES if t.primary_key == ["oid_catalog"])
"""Cross-match catalogues: their rows belong to the objects whose xmatch rows name them."""
SOLAR_SYSTEM_TABLES = tuple(t.name for t in _TABLES if t.primary_key[:1] == ["ssobjectid"])
"""Tables whose rows belong to a solar-system object, named by its ssobjectid."""
