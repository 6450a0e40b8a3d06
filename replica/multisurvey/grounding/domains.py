"""Value domains of the multi-survey catalog's columns, for the grounding engine (``replica.engine.grounding.domains``).

Example:
    >>> domain("lsst_dia_object", "r_psffluxmean"), domain("object", "firstmjd")[:2]
    ((-5000.0, 10000000.0, 1.0, 500.0), (60975.0, 61400.0))
    >>> categories("class_id", 3), categories("sid", None)
    ((0, 1, 2, 3, 4), (0, 1, 2))
"""

from catalog import load_catalog
from replica.engine.grounding.profile import Domain
from replica.multisurvey import CATALOG
from replica.multisurvey.lookups import STAMP_CLASSIFIERS, TID_OF_SID, classifier_version_code
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD

__all__ = ["categories", "domain"]

_CATALOG = load_catalog(CATALOG)
_CATEGORIES = {
    # a column that references a lookup table takes its keys (sid, band, classifier_id, class_id, feature_id, ...)
    column: tuple(sorted({row[key] for row in _CATALOG.rows[fk.ref_table]}))
    for table in _CATALOG.tables
    for fk in table.foreign_keys
    if fk.ref_table in _CATALOG.rows
    for column, key in zip(fk.columns, fk.ref_columns, strict=True)
} | {
    "tid": tuple(sorted(set(TID_OF_SID.values()))),
    "classifier_version": tuple(classifier_version_code(c) for c in STAMP_CLASSIFIERS),
    "phot_variable_flag": ("VARIABLE", "NOT_AVAILABLE"),
}


def categories(column: str, classifier: object = None) -> tuple | None:
    """The known values of a categorical column (the stamp classifiers share their classes), or None."""
    return _CATEGORIES.get(column)


def domain(table: str, column: str) -> Domain:
    """The numeric domain of a column the catalog gives none: MJDs, fluxes, counts and magnitudes (by name)."""
    if "mjd" in column:
        return (LSST_START_MJD, LSST_END_MJD - 5.0, 1.0, 15.0)
    if "flux" in column and column.endswith(("err", "sigma")):
        return (1.0, 1e4, 1.0, 20.0)
    if "flux" in column and not column.endswith(("ndata", "flag")):
        return (-5e3, 1e7, 1.0, 500.0)
    if column.endswith("ndata") or column.startswith("n_"):
        return (0, 500, 1, 3)
    if "mag" in column or column.endswith("mpro"):
        return (3.0, 24.0, 0.1, 0.5)
    return (-1e6, 1e6, 0.01, 1.0)
