"""Value domains of the multi-survey catalog's columns, for the grounding engine (``replica.engine.grounding.domains``).

Example:
    >>> domain("r_psffluxmean"), domain("firstmjd")[:2]
    ((-5000.0, 10000000.0, 1.0, 500.0), (60975.0, 61400.0))
    >>> categories("class_id", 3), categories("sid", None)
    ((0, 1, 2, 3, 4), (0, 1, 2))
"""

from __future__ import annotations

from replica.engine.grounding.profile import Domain
from replica.multisurvey.lookups import LSST_BANDS, STAMP_CLASSIFIERS, class_id, classifier_version_code, feature_names
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD

__all__ = ["categories", "domain"]

# column -> (lowest, highest, step, typical gap above a lower bound)
_NUMERIC: dict[str, Domain] = {
    "probability": (0.0, 1.0, 0.02, 0.1),
    "ranking": (1, 5, 1, 0),
    "n_det": (1, 1500, 1, 8),
    "ndiasources": (1, 1500, 1, 8),
    "n_forced": (0, 1200, 1, 8),
    "n_non_det": (0, 500, 1, 5),
    "deltamjd": (0.0, LSST_END_MJD - LSST_START_MJD, 1.0, 20.0),
    "meanra": (0.0, 360.0, 0.01, 5.0),
    "ra": (0.0, 360.0, 0.01, 5.0),
    "meandec": (-75.0, 88.0, 0.01, 5.0),
    "dec": (-75.0, 88.0, 0.01, 5.0),
    "snr": (5.0, 2000.0, 0.1, 3.0),
    "reliability": (0.0, 1.0, 0.01, 0.05),
    "extendedness": (0.0, 1.0, 0.01, 0.05),
    "traillength": (0.0, 30.0, 0.1, 0.5),
    "dist": (0.0, 5.0, 0.02, 0.1),
    "a": (0.5, 100.0, 0.01, 0.3),
    "q": (0.1, 60.0, 0.01, 0.1),
    "e": (0.0, 0.99, 0.01, 0.05),
    "i": (0.0, 60.0, 0.1, 2.0),
    "h": (5.0, 25.0, 0.1, 0.5),
    "phaseangle": (0.0, 120.0, 0.1, 2.0),
    "elongation": (0.0, 180.0, 0.1, 5.0),
    "heliorange": (0.5, 60.0, 0.01, 0.2),
    "toporange": (0.01, 60.0, 0.01, 0.2),
    "parallax": (-5.0, 50.0, 0.01, 0.5),
    "ruwe": (0.5, 10.0, 0.01, 0.2),
}
_MJD = (LSST_START_MJD, LSST_END_MJD - 5.0, 1.0, 15.0)
_FLUX = (-5e3, 1e7, 1.0, 500.0)
_FLUX_ERROR = (1.0, 1e4, 1.0, 20.0)
_COUNT = (0, 500, 1, 3)
_MAGNITUDE = (3.0, 24.0, 0.1, 0.5)
_OTHER = (-1e6, 1e6, 0.01, 1.0)
_CATEGORIES = {
    "sid": (0, 1, 2),
    "tid": (0, 1),
    "band": tuple(sorted(LSST_BANDS.values())),
    "classifier_id": STAMP_CLASSIFIERS,
    "class_id": tuple(class_id(STAMP_CLASSIFIERS[-1], name) for name in ("SN", "AGN", "VS", "asteroid", "bogus")),
    "classifier_version": tuple(classifier_version_code(c) for c in STAMP_CLASSIFIERS),
    "catid": (0, 1),
    "version": (1,),
    "feature_id": tuple(range(len(feature_names()))),
    "phot_variable_flag": ("VARIABLE", "NOT_AVAILABLE"),
}


def categories(column: str, classifier: object = None) -> tuple | None:
    """The known values of a categorical column (the stamp classifiers share their classes), or None."""
    return _CATEGORIES.get(column)


def domain(column: str) -> Domain:
    """The numeric domain of a column: known columns, then MJDs, fluxes, counts and magnitudes."""
    if column in _NUMERIC:
        return _NUMERIC[column]
    if "mjd" in column:
        return _MJD
    if "flux" in column and column.endswith(("err", "sigma")):
        return _FLUX_ERROR
    if "flux" in column and not column.endswith(("ndata", "flag")):
        return _FLUX
    if column.endswith("ndata") or column.startswith("n_"):
        return _COUNT
    if "mag" in column or column.endswith("mpro"):
        return _MAGNITUDE
    return _OTHER
