"""Value domains of the multi-survey catalog's columns, for the grounding engine (``replica.engine.grounding.domains``).

Example:
    >>> domain("lsst_dia_object", "r_psffluxmean"), domain("object", "firstmjd")[:2]
    ((-5000.0, 10000000.0, 1.0, 500.0), (60975.0, 61400.0))
    >>> categories("class_id", 3), categories("sid", None)
    ((0, 1, 2, 3, 4), (0, 1, 2))
"""

from __future__ import annotations

from replica.engine.grounding.domains import described_column
from replica.engine.grounding.profile import Domain
from replica.multisurvey import CATALOG
from replica.multisurvey.lookups import LSST_BANDS, STAMP_CLASSIFIERS, class_id, classifier_version_code, feature_names
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD

__all__ = ["categories", "domain"]

# table.column -> (lowest, highest, step, typical gap above a lower bound)
_NUMERIC: dict[str, Domain] = {
    "probability.probability": (0.0, 1.0, 0.02, 0.1),
    "probability.ranking": (1, 5, 1, 0),
    "object.n_det": (1, 1500, 1, 8),
    "lsst_dia_object.ndiasources": (1, 1500, 1, 8),
    "object.n_forced": (0, 1200, 1, 8),
    "object.n_non_det": (0, 500, 1, 5),
    "object.deltamjd": (0.0, LSST_END_MJD - LSST_START_MJD, 1.0, 20.0),
    "object.meanra": (0.0, 360.0, 0.01, 5.0),
    "detection.ra": (0.0, 360.0, 0.01, 5.0),
    "forced_photometry.ra": (0.0, 360.0, 0.01, 5.0),
    "lsst_dia_object.ra": (0.0, 360.0, 0.01, 5.0),
    "allwise.ra": (0.0, 360.0, 0.01, 5.0),
    "gaiadr3_source.ra": (0.0, 360.0, 0.01, 5.0),
    "object.meandec": (-75.0, 88.0, 0.01, 5.0),
    "detection.dec": (-75.0, 88.0, 0.01, 5.0),
    "forced_photometry.dec": (-75.0, 88.0, 0.01, 5.0),
    "lsst_dia_object.dec": (-75.0, 88.0, 0.01, 5.0),
    "allwise.dec": (-75.0, 88.0, 0.01, 5.0),
    "gaiadr3_source.dec": (-75.0, 88.0, 0.01, 5.0),
    "lsst_detection.snr": (5.0, 2000.0, 0.1, 3.0),
    "lsst_detection.reliability": (0.0, 1.0, 0.01, 0.05),
    "lsst_detection.extendedness": (0.0, 1.0, 0.01, 0.05),
    "lsst_detection.traillength": (0.0, 30.0, 0.1, 0.5),
    "xmatch.dist": (0.0, 5.0, 0.02, 0.1),
    "lsst_mpc_orbits.a": (0.5, 100.0, 0.01, 0.3),
    "lsst_mpc_orbits.q": (0.1, 60.0, 0.01, 0.1),
    "lsst_mpc_orbits.e": (0.0, 0.99, 0.01, 0.05),
    "lsst_mpc_orbits.i": (0.0, 60.0, 0.1, 2.0),
    "lsst_mpc_orbits.h": (5.0, 25.0, 0.1, 0.5),
    "lsst_ss_detection.phaseangle": (0.0, 120.0, 0.1, 2.0),
    "lsst_ss_detection.elongation": (0.0, 180.0, 0.1, 5.0),
    "lsst_ss_detection.heliorange": (0.5, 60.0, 0.01, 0.2),
    "lsst_ss_detection.toporange": (0.01, 60.0, 0.01, 0.2),
    "gaiadr3_source.parallax": (-5.0, 50.0, 0.01, 0.5),
    "gaiadr3_source.ruwe": (0.5, 10.0, 0.01, 0.2),
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


def domain(table: str, column: str) -> Domain:
    """The numeric domain of a table's column: known columns, then MJDs, fluxes, counts and magnitudes (by name)."""
    key, _ = described_column(table, column, CATALOG)
    if key in _NUMERIC:
        return _NUMERIC[key]
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
