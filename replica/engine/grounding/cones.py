"""Cone searches in gold queries: q3c calls and distance bounds, around literal positions or a VALUES catalog."""

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from engines.sql_constants import literal
from replica.engine.grounding.worlds import Cone, Link, World

__all__ = ["ConeReader", "values_catalogs"]

_CONE_FUNCTIONS = {"q3c_radial_query", "q3c_join", "q3c_ellipse_query", "q3c_ellipse_join"}


def values_catalogs(tree: exp.Expression) -> dict[str, list[dict[str, object]]]:
    """CTEs written as ``name (cols) AS (VALUES ...)``: name -> rows as dicts (qualify renames their columns)."""
    out = {}
    for cte in tree.find_all(exp.CTE):
        values = cte.this.find(exp.Values)  # the CTE's body itself, or a VALUES inside it
        names = [c.name for c in cte.args["alias"].columns] if cte.args.get("alias") else []
        if values is not None and names:
            out[cte.alias_or_name] = [
                dict(zip(names, map(literal, row.expressions), strict=False)) for row in values.expressions
            ]
    return out


class ConeReader:
    """The cone part of the query reader; the reader provides ``_column`` and ``catalogs``."""

    catalogs: dict[str, list[dict[str, object]]]

    def _cone(self, node: exp.Expression, scope: Scope, world: World) -> None:
        args = list(node.expressions) if isinstance(node, exp.Anonymous) else list(node.args.values())
        if node.name.lower() in _CONE_FUNCTIONS and len(args) >= 5:
            self._cone_from(args[:4], args[4], scope, world)

    def _distance(self, node: exp.Expression, radius: float, scope: Scope, world: World) -> None:
        args = list(node.expressions) if isinstance(node, exp.Anonymous) else []
        if len(args) == 4:
            self._cone_from(args, exp.Literal.number(radius), scope, world)

    def _cone_from(self, coords: list, radius_node, scope: Scope, world: World) -> None:
        for pos, centre in ((slice(0, 2), slice(2, 4)), (slice(2, 4), slice(0, 2))):
            table_side = [self._column(c, scope) for c in coords[pos]]
            if not all(table_side) or table_side[0][0] != table_side[1][0]:
                continue
            centres = self._centres(coords[centre], scope)
            radius = self._radius(radius_node, scope)
            if centres and radius:
                world.cones.append(Cone(table_side[0][0], (table_side[0][1], table_side[1][1]), tuple(centres), radius))
                return
        self._near(coords, radius_node, scope, world)

    def _near(self, coords: list, radius_node, scope: Scope, world: World) -> None:
        """Positions of two tables within a literal radius of each other: a Link between their ra columns."""
        columns = [self._column(c, scope) for c in coords]
        radius = literal(radius_node)
        if not all(columns) or not isinstance(radius, float) or radius <= 0:
            return
        (ra1, dec1), (ra2, dec2) = columns[:2], columns[2:]
        if ra1[0] == dec1[0] and ra2[0] == dec2[0] and ra1[0] != ra2[0]:
            world.links.append(Link(ra1, "near", ra2, radius))

    def _centres(self, pair: list, scope: Scope) -> list[tuple[float, float]]:
        values = [literal(node) for node in pair]
        if all(isinstance(v, float) for v in values):
            return [(values[0], values[1])]
        columns = [self._catalog_column(node, scope) for node in pair]
        if not all(columns) or columns[0][0] is not columns[1][0]:
            return []
        rows, (ra, dec) = columns[0][0], (columns[0][1], columns[1][1])
        return [(float(r[ra]), float(r[dec])) for r in rows if isinstance(r.get(ra), float | int)]

    def _radius(self, node, scope: Scope) -> float | None:
        value = literal(node)
        if isinstance(value, float) and value > 0:
            return value
        found = self._catalog_column(node, scope)
        if found is None:
            return None
        rows, name = found
        radii = [float(r[name]) for r in rows if isinstance(r.get(name), float | int) and r[name] > 0]
        return min(radii, default=None)

    def _catalog_column(self, node, scope: Scope) -> tuple[list[dict], str] | None:
        if not isinstance(node, exp.Column) or not node.table:
            return None
        while scope.parent is not None and node.table not in scope.sources:  # a LATERAL subquery names outer tables
            scope = scope.parent
        source = scope.sources.get(node.table)
        if isinstance(source, Scope):
            parent = source.expression.parent
            name = parent.alias_or_name if isinstance(parent, exp.CTE) else None
            if name in self.catalogs:
                return self.catalogs[name], node.name
        return None
