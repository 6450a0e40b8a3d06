"""The choice of a value that meets, or just misses, a set of conditions on a column, within its domain; and of the
two values of a difference condition (``a - b op c``), for every catalog's binder.

The domains themselves (ranges, steps, categories) come from the catalog file, else from its grounding profile.

Example:
    >>> from replica.engine.grounding.profile import Profile
    >>> profile = Profile(
    ...     catalog="ztf", identity=("oid",), per_row=frozenset(),
    ...     classifier_column="classifier_name", class_column="class_name",
    ...     domain=lambda table, column: (0.0, 1.0, 0.02, 0.1), categories=lambda column, classifier: ("SNIa", "SNIbc"),
    ...     bind=None, object_id=lambda column, value: None, row_count_keys=())
    >>> satisfying("probability", "probability", [(">", (0.7,))], profile=profile)
    0.8
    >>> violating("probability", "probability", [(">", (0.7,))], 0, profile=profile)
    0.69
    >>> violating("probability", "class_name", [("=", ("SNIa",))], 0, profile=profile)
    'SNIbc'
    >>> meets(7, [(">", (10.0,)), ("<", (5.0,))])
    False
"""

import math
import operator
from collections.abc import Callable

from replica.engine.grounding.constraints import catalog_column, is_integer
from replica.engine.grounding.profile import Domain, Profile
from replica.engine.grounding.worlds import Diff, RowRef

__all__ = ["apply_diffs", "meets", "satisfying", "violating"]

_DATE_MISS_DAYS = 1.2
_ORDER = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def _numeric(conditions) -> list[tuple[str, float]]:
    """(op, number) of the conditions whose first value is a number."""
    firsts = [(op, values[0]) for op, values in conditions if values and not isinstance(values[0], bool)]
    return [(op, float(value)) for op, value in firsts if isinstance(value, int | float)]


def _bounds(conditions) -> tuple[float, float]:
    """The tightest lower and upper numeric bounds of the conditions (infinite when absent)."""
    numeric = _numeric(conditions)
    lower = max([-math.inf] + [bound for op, bound in numeric if op in (">", ">=")])
    return lower, min([math.inf] + [bound for op, bound in numeric if op in ("<", "<=")])


def satisfying(
    table: str, column: str, conditions, *, profile: Profile, variant: int = 0, classifier: str | None = None
):
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
    known = profile.categories(column, classifier)
    if known and (excluded or ops <= {"notnull"}):
        allowed = [v for v in known if v not in excluded]
        return allowed[variant % len(allowed)] if allowed else ...
    lo, hi = _bounds(conditions)
    if lo == -math.inf and hi == math.inf:
        return ...
    low, high, step, gap = _domain(table, column, profile)
    if lo > -math.inf and hi < math.inf:
        value = lo + (hi - lo) * (0.5 + 0.15 * (variant % 2))
    else:  # one bound: a typical gap past it, at most half the room left to the far end of the domain
        bound, room, sign = (lo, high - lo, 1) if lo > -math.inf else (hi, hi - low, -1)
        value = bound + sign * min(max(gap, 2 * step), max(room, step * 4) / 2) * (1 + 0.3 * (variant % 2))
    if is_integer(table, column, profile.catalog):
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
    for op, bound in _numeric(conditions):
        if op == ">":
            low = max(low, math.floor(bound) + 1)
        elif op == ">=":
            low = max(low, math.ceil(bound))
        elif op == "<":
            high = min(high, math.ceil(bound) - 1)
        elif op == "<=":
            high = min(high, math.floor(bound))
    return int(max(min(round(value), high), low))


def violating(
    table: str,
    column: str,
    conditions,
    index: int,
    *,
    profile: Profile,
    classifier: str | None = None,
    dense: bool = True,
):
    """A value just outside condition ``index`` (and inside the others where possible), or ``...`` if none.

    ``dense`` says the query's answers are many: a real database then holds objects on an integer threshold
    itself, so the near miss sits there; for a rare population it sits one unit outside the closed bound.
    """
    op, values = conditions[index]
    _, high, step, _ = _domain(table, column, profile)
    value = values[0] if values else None
    # dates miss by more than a day, so that an inclusive bound or a window one day longer (the usual reading
    # of "the first week") still agrees; other columns miss by half a step
    miss = _DATE_MISS_DAYS if "mjd" in column else step / 2
    if is_integer(table, column, profile.catalog) and op in (">", ">=", "<", "<="):
        past = 0 if dense and op in (">", "<") else 1  # dense: the threshold misses an open bound (`ndet > 30`: 30)
        return int(value) - past if op in (">", ">=") else int(value) + past
    if op in (">", ">="):
        return _rounded(float(value) - miss, step / 2)
    if op in ("<", "<="):
        return _rounded(float(value) + miss, step / 2)
    if op in ("!=", "notin"):
        return value
    if op in ("=", "in") and isinstance(value, bool):
        return not value
    if op in ("=", "in"):
        known = profile.categories(column, classifier)
        if known:
            others = [v for v in _neighbours(known, value) if v not in values]
            return others[0] if others else ...
        if isinstance(value, float):
            return value + step if value + step <= high else value - step
        return ...
    return None if op == "notnull" else ...


def apply_diffs(
    by_ref: dict[RowRef, dict],
    diffs: list[Diff],
    *,
    is_span: Callable[[str, str], bool],
    default: Callable[[str], float],
) -> None:
    """Choose both columns of each ``a - b op c``: b from a (a's chosen value, else ``default(a)``), just past c.

    A diff of two MJD columns (``is_span(a, b)``) becomes the entity's ``_span`` instead, left to the binders.

    Examples:
        >>> a, b = RowRef("object", 0), RowRef("object", 0)
        >>> by_ref = {}
        >>> apply_diffs(by_ref, [Diff((a, "g"), (b, "r"), ">", 0.4)], is_span=lambda *_: False, default=lambda _: 15.0)
        >>> by_ref[a]
        {'g': 15.0, 'r': 14.4}
    """
    for diff in diffs:
        (ref_a, col_a), (ref_b, col_b) = diff.left, diff.right
        if is_span(col_a, col_b):
            by_ref.setdefault(ref_a, {})["_span"] = diff.value * 1.5 + 10 if diff.op in (">", ">=") else None
            continue
        a = by_ref.setdefault(ref_a, {}).get(col_a, default(col_a))
        if not isinstance(a, int | float):
            continue
        margin = max(abs(diff.value) * 0.5, 0.05)
        target = diff.value - margin if diff.op in ("<", "<=") else diff.value + margin
        by_ref[ref_a][col_a] = a
        by_ref.setdefault(ref_b, {})[col_b] = round(a - target, 4)


def _domain(table: str, column: str, profile: Profile) -> Domain:
    """The column's numeric domain: the catalog file's, else the profile's."""
    described = catalog_column(table, column, profile.catalog)
    return described.domain if described is not None and described.domain is not None else profile.domain(table, column)


def _neighbours(known: tuple, value) -> list:
    """Known values ordered by closeness to ``value`` in the domain's order (next one first)."""
    if value not in known:
        return list(known)
    i = known.index(value)
    return [known[(i + d) % len(known)] for d in range(1, len(known))]


def _rounded(value: float, step: float) -> float:
    """Round to a hundredth of the step: readable values that stay strictly between close bounds."""
    return round(value, max(0, -math.floor(math.log10(step))) + 2)
