"""Constants in gold queries: literal values, and the rows of catalogs written as ``VALUES`` tables."""

from __future__ import annotations

import math
import operator

from sqlglot import exp

__all__ = ["literal", "values_catalogs"]

_EXACT_FLOAT_LIMIT = 2**53
_ARITHMETIC = {exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul, exp.Div: operator.truediv}


def literal(node: exp.Expression | None) -> object:
    """The Python value of a constant expression, or None when it is not a constant."""
    if node is None:
        return None
    if isinstance(node, exp.Paren):
        return literal(node.this)
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else _number(node.this)
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Neg):
        value = literal(node.this)
        return -value if isinstance(value, float | int) and not isinstance(value, bool) else None
    if isinstance(node, exp.Cast):
        return literal(node.this)
    for kind, apply in _ARITHMETIC.items():
        if type(node) is kind:
            left, right = literal(node.this), literal(node.expression)
            if isinstance(left, float) and isinstance(right, float) and not (kind is exp.Div and right == 0):
                return _finite(apply(left, right))
    return None


def _number(text: str) -> float | int | None:
    """A numeric literal as a float, or as an int when a float would lose digits (19-digit candids).

    A number no float holds (1e400) is not read as a constant: no column of the catalog holds it either.
    """
    try:
        value = float(text)
    except ValueError:
        return None
    return int(text) if abs(value) >= _EXACT_FLOAT_LIMIT and text.isdigit() else _finite(value)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def values_catalogs(tree: exp.Expression) -> dict[str, list[dict[str, object]]]:
    """CTEs written as ``name (cols) AS (VALUES ...)``: name -> rows as dicts (qualify renames their columns)."""
    out = {}
    for cte in tree.find_all(exp.CTE):
        values = cte.this if isinstance(cte.this, exp.Values) else cte.this.find(exp.Values)
        names = [c.name for c in cte.args["alias"].columns] if cte.args.get("alias") else []
        if values is None or not names:
            continue
        rows = []
        for row in values.expressions:
            cells = [literal(cell) for cell in row.expressions]
            rows.append(dict(zip(names, cells, strict=False)))
        out[cte.alias_or_name] = rows
    return out
