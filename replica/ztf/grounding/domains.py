"""Value domains of the ZTF catalog's columns, for the grounding engine (``replica.engine.grounding.domains``).

Example:
    >>> domain("detection", "magpsf"), domain("object", "ndet")
    ((12.5, 21.5, 0.1, 0.5), (1, 1500, 1, 8))
    >>> categories("class_name", "stamp_classifier")
    ('SN', 'AGN', 'VS', 'asteroid', 'bogus')
"""

from __future__ import annotations

from replica.engine.grounding.domains import described_column
from replica.engine.grounding.profile import Domain
from replica.ztf import CATALOG, vocab

__all__ = ["categories", "domain"]

# table.column -> (lowest, highest, step, typical gap above a lower bound)
_NUMERIC = {
    "probability.probability": (0.0, 1.0, 0.02, 0.1),
    "probability.ranking": (1, 15, 1, 0),
    "object.ndet": (1, 1500, 1, 8),
    "magstat.ndet": (1, 1500, 1, 8),
    "magstat.ndubious": (0, 50, 1, 1),
    "object.firstmjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 40, 1.0, 15.0),
    "magstat.firstmjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 40, 1.0, 15.0),
    "object.lastmjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 5, 1.0, 15.0),
    "magstat.lastmjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 5, 1.0, 15.0),
    "non_detection.mjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 5, 1.0, 15.0),
    "detection.mjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 5, 1.0, 15.0),
    "forced_photometry.mjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 5, 1.0, 15.0),
    "object.deltajd": (0.0, 2300.0, 1.0, 40.0),
    "object.meanra": (0.0, 360.0, 0.01, 5.0),
    "object.meandec": (-30.0, 89.0, 0.01, 5.0),
    "allwise.ra": (0.0, 360.0, 0.01, 5.0),
    "detection.ra": (0.0, 360.0, 0.01, 5.0),
    "forced_photometry.ra": (0.0, 360.0, 0.01, 5.0),
    "allwise.dec": (-30.0, 89.0, 0.01, 5.0),
    "detection.dec": (-30.0, 89.0, 0.01, 5.0),
    "forced_photometry.dec": (-30.0, 89.0, 0.01, 5.0),
    "magstat.dmdt_first": (-3.0, 3.0, 0.05, 0.3),
    "ps1_ztf.sgscore1": (0.0, 1.0, 0.02, 0.1),
    "ps1_ztf.distpsnr1": (0.0, 30.0, 0.1, 0.5),
    "dataquality.chipsf": (0.1, 100.0, 0.05, 1.0),
    "dataquality.classtar": (0.0, 1.0, 0.02, 0.1),
    "ss_ztf.ssdistnr": (0.0, 30.0, 0.5, 1.0),
    "ss_ztf.ssmagnr": (12.0, 22.0, 0.1, 0.5),
    "allwise.w1mpro": (5.0, 17.5, 0.1, 0.5),
    "gaia_ztf.neargaia": (0.0, 90.0, 0.1, 1.0),
    "xmatch.dist": (0.0, 1.0, 0.02, 0.1),
}
_MAGNITUDE = (12.5, 21.5, 0.1, 0.5)
_OTHER = (-1e6, 1e6, 0.01, 1.0)
# the benchmark's classifiers first (a near miss takes the first that fits), then the others of the catalog
_CLASSIFIER_NAMES = ("lc_classifier", "stamp_classifier", *vocab.BRANCH_CLASSIFIERS, "lc_classifier_top")
_CLASSIFIER_NAMES += tuple(c.name for c in vocab.CLASSIFIERS if c.name not in _CLASSIFIER_NAMES)
_CATEGORIES = {
    "classifier_name": _CLASSIFIER_NAMES,
    "fid": (1, 2),
    "catid": ("allwise",),
    "procstatus": ("0", "57", "56", "58", "255"),
    "version": vocab.FEATURE_VERSIONS,
}
_CLASSES_OF = {c.name: c.classes for c in vocab.CLASSIFIERS}
_VERSIONS_OF = {c.name: c.versions for c in vocab.CLASSIFIERS}


def categories(column: str, classifier: str | None = None) -> tuple | None:
    """The known values of a categorical column (class names follow the classifier), or None."""
    if column == "class_name":
        return _CLASSES_OF.get(classifier or "lc_classifier", vocab.LC_CLASSES)
    if column == "classifier_version":
        return _VERSIONS_OF.get(classifier or "", (vocab.LC_VERSION,))
    return _CATEGORIES.get(column)


def domain(table: str, column: str) -> Domain:
    """The numeric domain of a table's column: known columns, then magnitudes (by name), then a wide default."""
    key, _ = described_column(table, column, CATALOG)
    if key in _NUMERIC:
        return _NUMERIC[key]
    if column.startswith(("mag", "sigma")) or column.endswith("mag1") or "mag" in column:
        return _MAGNITUDE
    return _OTHER
