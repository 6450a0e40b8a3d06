"""Catalogs written in gold queries as ``VALUES`` tables, as rows of constants."""

from __future__ import annotations

from sqlglot import exp

from engines.sql_constants import literal

__all__ = ["values_catalogs"]


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
