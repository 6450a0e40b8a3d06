"""Constants in gold queries: literal values, and the rows of catalogs written as ``VALUES`` tables."""

from __future__ import annotations

import operator

from sqlglot import exp

__all__ = ["literal", "values_catalogs"]

_ARITHMETIC = {exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul, exp.Div: operator.truediv}


def literal(node: exp.Expression | None) -> object:
    """The Python value of a constant expression, or None when it is not a constant."""
    if node is None:
        return None
    if isinstance(node, exp.Paren):
        return literal(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        try:
            return float(node.this)
        except ValueError:
            return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Neg):
        value = literal(node.this)
        return -value if isinstance(value, float) else None
    if isinstance(node, exp.Cast):
        return literal(node.this)
    for kind, apply in _ARITHMETIC.items():
        if type(node) is kind:
            left, right = literal(node.this), literal(node.expression)
            if isinstance(left, float) and isinstance(right, float) and not (kind is exp.Div and right == 0):
                return apply(left, right)
    return None


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
