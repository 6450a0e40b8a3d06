"""Value domains of the ZTF catalog's columns, for the grounding engine (``replica.engine.grounding.domains``).

Example:
    >>> domain("detection", "magpsf"), domain("object", "meanra")
    ((12.5, 21.5, 0.1, 0.5), (-1000000.0, 1000000.0, 0.01, 1.0))
    >>> categories("class_name", "stamp_classifier")
    ('SN', 'AGN', 'VS', 'asteroid', 'bogus')
"""

from replica.engine.grounding.profile import Domain
from replica.ztf import vocab

__all__ = ["categories", "domain"]

_MAGNITUDE = (12.5, 21.5, 0.1, 0.5)
_OTHER = (-1e6, 1e6, 0.01, 1.0)
_CATEGORIES = {
    # the catalog's order, the benchmark's classifiers first: a near miss takes the first that fits
    "classifier_name": tuple(c.name for c in vocab.CLASSIFIERS),
    "fid": (1, 2),
    "catid": ("allwise",),
    "procstatus": tuple(vocab.PROCSTATUS_WEIGHTS),
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
    """The numeric domain of a column the catalog gives none: magnitudes (by name), else a wide default."""
    return _MAGNITUDE if "mag" in column or column.startswith("sigma") else _OTHER
