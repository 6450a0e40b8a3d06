"""Values for ``a - b op c`` conditions, shared by every catalog's binder."""

from collections.abc import Callable

from replica.engine.grounding.worlds import Diff, RowRef

__all__ = ["apply_diffs"]


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
