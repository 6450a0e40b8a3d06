"""The value of a constant in a parsed SQL statement: a literal, or arithmetic, signs and casts on literals.

Example:
    >>> from engines.sql_tree import read_tree
    >>> literal(read_tree("SELECT -(30 / 3600.0)").expressions[0]), literal(read_tree("SELECT 'SNIa'").expressions[0])
    (-0.008333333333333333, 'SNIa')
    >>> literal(read_tree("SELECT 1 / 0").expressions[0]) is None, literal(read_tree("SELECT ra").expressions[0])
    (True, None)
"""

from __future__ import annotations

import math
import operator

from sqlglot import exp

__all__ = ["literal"]

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
