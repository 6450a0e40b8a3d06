"""Value domains of ALeRCE columns, and the choice of a value that meets, or just misses, a set of conditions.

Example:
    >>> satisfying("probability", "probability", [(">", (0.7,))])
    0.8
    >>> violating("probability", "probability", [(">", (0.7,))], 0)
    0.69
    >>> violating("probability", "class_name", [("=", ("SNIa",))], 0)
    'SNIbc'
    >>> meets(7, [(">", (10.0,)), ("<", (5.0,))])
    False
"""

from __future__ import annotations

import math
import operator

from replica.grounding.predicates import schema
from replica.synthetic import vocab

__all__ = ["categories", "is_integer", "meets", "satisfying", "violating"]

# column -> (lowest, highest, step, typical gap above a lower bound)
_NUMERIC = {
    "probability": (0.0, 1.0, 0.02, 0.1),
    "ranking": (1, 15, 1, 0),
    "ndet": (1, 1500, 1, 8),
    "ndubious": (0, 50, 1, 1),
    "firstmjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 40, 1.0, 15.0),
    "lastmjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 5, 1.0, 15.0),
    "mjd": (vocab.MJD_FIRST_ALERT, vocab.MJD_END - 5, 1.0, 15.0),
    "deltajd": (0.0, 2300.0, 1.0, 40.0),
    "meanra": (0.0, 360.0, 0.01, 5.0),
    "meandec": (-30.0, 89.0, 0.01, 5.0),
    "ra": (0.0, 360.0, 0.01, 5.0),
    "dec": (-30.0, 89.0, 0.01, 5.0),
    "dmdt_first": (-3.0, 3.0, 0.05, 0.3),
    "sgscore1": (0.0, 1.0, 0.02, 0.1),
    "distpsnr1": (0.0, 30.0, 0.1, 0.5),
    "chipsf": (0.1, 100.0, 0.05, 1.0),
    "classtar": (0.0, 1.0, 0.02, 0.1),
    "ssdistnr": (0.0, 30.0, 0.5, 1.0),
    "ssmagnr": (12.0, 22.0, 0.1, 0.5),
    "w1mpro": (5.0, 17.5, 0.1, 0.5),
    "neargaia": (0.0, 90.0, 0.1, 1.0),
    "dist": (0.0, 1.0, 0.02, 0.1),
}
_MAGNITUDE = (12.5, 21.5, 0.1, 0.5)
_DATE_MISS_DAYS = 1.2
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
_ORDER = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def categories(column: str, classifier: str | None = None) -> tuple | None:
    """The known values of a categorical column (class names follow the classifier), or None."""
    if column == "class_name":
        return _CLASSES_OF.get(classifier or "lc_classifier", vocab.LC_CLASSES)
    if column == "classifier_version":
        return _VERSIONS_OF.get(classifier or "", (vocab.LC_VERSION,))
    return _CATEGORIES.get(column)


def _domain(column: str) -> tuple[float, float, float, float]:
    if column in _NUMERIC:
        return _NUMERIC[column]
    if column.startswith(("mag", "sigma")) or column.endswith("mag1") or "mag" in column:
        return _MAGNITUDE
    return (-1e6, 1e6, 0.01, 1.0)


def _bounds(conditions) -> tuple[float, float]:
    """The tightest lower and upper numeric bounds of the conditions (infinite when absent)."""
    lo, hi = -math.inf, math.inf
    for op, values in conditions:
        if not values or not isinstance(values[0], int | float) or isinstance(values[0], bool):
            continue
        if op in (">", ">="):
            lo = max(lo, float(values[0]))
        if op in ("<", "<="):
            hi = min(hi, float(values[0]))
    return lo, hi


def satisfying(table: str, column: str, conditions, variant: int = 0, classifier: str | None = None):
    """A value of ``table.column`` meeting every (op, values) condition; ``variant`` picks among equal choices.

    Returns None for a column that must be NULL, and ``...`` when no value is known to meet the conditions.
    """
    ops = {op for op, _ in conditions}
    if "null" in ops:
        return None
    for op, values in conditions:
        if op == "=":
            return values[0]
        if op == "in":
            return values[variant % len(values)]
        if op == "like":
            return str(values[0]).replace("%", "x").replace("_", "a")
    excluded = {v for op, values in conditions if op in ("!=", "notin") for v in values}
    known = categories(column, classifier)
    if known and (excluded or all(op in ("notnull",) for op in ops)):
        allowed = [v for v in known if v not in excluded]
        return allowed[variant % len(allowed)] if allowed else ...
    lo, hi = _bounds(conditions)
    if lo == -math.inf and hi == math.inf:
        return ...
    low, high, step, gap = _domain(column)
    if lo > -math.inf and hi < math.inf:
        value = lo + (hi - lo) * (0.5 + 0.15 * (variant % 2))
    elif lo > -math.inf:
        room = max(high - lo, step * 4)
        value = lo + min(max(gap, 2 * step), room / 2) * (1 + 0.3 * (variant % 2))
    else:
        room = max(hi - low, step * 4)
        value = hi - min(max(gap, 2 * step), room / 2) * (1 + 0.3 * (variant % 2))
    if is_integer(table, column):
        return _whole_within(value, conditions)
    return _rounded(value, step)


def meets(value, conditions) -> bool:
    """Whether ``value`` meets every (op, values) condition.

    A pattern (``like``), or an order between text and a number, is taken as met: only a contradiction that is
    certain counts.
    """
    return all(_meets_one(value, op, values) for op, values in conditions)


def _meets_one(value, op: str, values: tuple) -> bool:
    if op in ("null", "notnull"):
        return (value is None) == (op == "null")
    if value is None:
        return False
    if op in ("=", "in"):
        return value in values
    if op in ("!=", "notin"):
        return value not in values
    if op in _ORDER:
        try:
            return _ORDER[op](value, values[0])
        except TypeError:
            return True
    return True


def _whole_within(value: float, conditions) -> int:
    """The whole number nearest ``value`` that meets the conditions' bounds (an integer column takes no 36.3)."""
    low, high = -math.inf, math.inf
    for op, values in conditions:
        if not values or not isinstance(values[0], int | float) or isinstance(values[0], bool):
            continue
        bound = float(values[0])
        if op == ">":
            low = max(low, math.floor(bound) + 1)
        elif op == ">=":
            low = max(low, math.ceil(bound))
        elif op == "<":
            high = min(high, math.ceil(bound) - 1)
        elif op == "<=":
            high = min(high, math.floor(bound))
    return int(max(min(round(value), high), low))


def violating(table: str, column: str, conditions, index: int, classifier: str | None = None, *, dense: bool = True):
    """A value just outside condition ``index`` (and inside the others where possible), or ``...`` if none.

    ``dense`` says the query's answers are many: a real database then holds objects on an integer threshold
    itself, so the near miss sits there; for a rare population it sits one unit outside the closed bound.
    """
    op, values = conditions[index]
    _, high, step, _ = _domain(column)
    value = values[0] if values else None
    # dates miss by more than a day, so that an inclusive bound or a window one day longer (the usual reading
    # of "the first week") still agrees; other columns miss by half a step
    miss = _DATE_MISS_DAYS if "mjd" in column else step / 2
    if is_integer(table, column) and op in (">", ">=", "<", "<="):
        # dense: on the threshold itself (`ndet > 30` against 30); rare: one unit outside (29 for `> 30`)
        below, above = (int(value) - (op == ">=" or not dense), int(value) + (op == "<=" or not dense))
        return below if op in (">", ">=") else above
    if op in (">", ">="):
        return _rounded(float(value) - miss, step / 2)
    if op in ("<", "<="):
        return _rounded(float(value) + miss, step / 2)
    if op in ("=", "in", "!=", "notin") and isinstance(value, bool):
        return not value if op in ("=", "in") else value
    if op in ("!=", "notin"):
        return values[0]
    if op in ("=", "in"):
        known = categories(column, classifier)
        if known:
            others = [v for v in _neighbours(known, value) if v not in values]
            return others[0] if others else ...
        if isinstance(value, float):
            return value + step if value + step <= high else value - step
        return ...
    if op == "null":
        return ...
    if op == "notnull":
        return None
    return ...


def is_integer(table: str, column: str) -> bool:
    """Whether the catalog types the column as a whole number."""
    return schema().get(table, {}).get(column, "") in ("integer", "smallint", "bigint", "int")


def _neighbours(known: tuple, value) -> list:
    """Known values ordered by closeness to ``value`` in the domain's order (next one first)."""
    if value not in known:
        return list(known)
    i = known.index(value)
    order = [known[(i + d) % len(known)] for d in range(1, len(known))]
    return order


def _rounded(value: float, step: float) -> float:
    """Round to a hundredth of the step: readable values that stay strictly between close bounds."""
    return round(value, max(0, -math.floor(math.log10(step))) + 2)
