"""Read what a gold query demands of the data: per base-table reference, the conditions its rows must meet.

A query is parsed and qualified with sqlglot, then read as one or more *worlds*: a UNION offers one world per
branch (an entity satisfying any branch is an answer), INTERSECT joins its branches into one world, an OR
contributes its first branch. Inside a world every base-table reference (``object AS o``, each ``probability``
of a self-join, the tables of subqueries and CTEs) is a ``RowRef``; comparisons of its columns with literals
become ``Atom``s, comparisons of two columns ``Diff``s, and q3c calls ``Cone``s. All references of a world are
taken to describe one astronomical object (ALeRCE tables join on oid), which is what the entity builder makes.

Example:
    >>> worlds = read_worlds("SELECT oid FROM probability WHERE class_name = 'SNIa' AND probability > 0.7")
    >>> [(a.ref.table, a.column, a.op, a.values) for a in worlds[0].atoms]
    [('probability', 'class_name', '=', ('SNIa',)), ('probability', 'probability', '>', (0.7,))]
"""

from __future__ import annotations

import functools
import logging
import operator
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope

from db.catalog import load_catalog

__all__ = ["Atom", "Cone", "Diff", "RowRef", "World", "read_worlds"]

logger = logging.getLogger(__name__)

_COMPARISONS = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_MIRROR = {"=": "=", "!=": "!=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}
_ARITHMETIC = {exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul, exp.Div: operator.truediv}
_CONE_FUNCTIONS = {"q3c_radial_query", "q3c_join", "q3c_ellipse_query", "q3c_ellipse_join"}
_AGGREGATES = (exp.Max, exp.Min, exp.Avg, exp.Sum)


@dataclass(frozen=True)
class RowRef:
    """One reference to a base table in the query: its rows must exist for the entity."""

    table: str
    key: int


@dataclass(frozen=True)
class Atom:
    """``ref.column op values``; op is one of = != < <= > >= in notin null notnull like."""

    ref: RowRef
    column: str
    op: str
    values: tuple = ()


@dataclass(frozen=True)
class Diff:
    """``left.column - right.column op value``."""

    left: tuple[RowRef, str]
    right: tuple[RowRef, str]
    op: str
    value: float


@dataclass(frozen=True)
class Cone:
    """The position columns of ``ref`` lie within ``radius_deg`` of one of ``centres`` (ra, dec in degrees)."""

    ref: RowRef
    columns: tuple[str, str]
    centres: tuple[tuple[float, float], ...]
    radius_deg: float


@dataclass
class World:
    """The conditions of one way to satisfy a query."""

    refs: list[RowRef] = field(default_factory=list)
    atoms: list[Atom] = field(default_factory=list)
    diffs: list[Diff] = field(default_factory=list)
    cones: list[Cone] = field(default_factory=list)
    counts: list[tuple[RowRef, str, float]] = field(default_factory=list)


@functools.cache
def schema() -> dict[str, dict[str, str]]:
    """Table -> column -> type of the ALeRCE catalog (loaded once)."""
    return {t.name: {c.name: c.sql_type for c in t.columns} for t in load_catalog().tables}


@functools.lru_cache(maxsize=1024)
def read_worlds(sql: str) -> tuple[World, ...]:
    """Return the worlds of one gold query; an unparseable query gives no world (logged at debug level).

    Cached, since a build reads each query twice (its literal oids first, its entities later): treat the worlds
    as read-only.
    """
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
        catalogs = _values_catalogs(tree)
        tree = qualify(
            tree,
            schema=schema(),
            dialect="postgres",
            validate_qualify_columns=False,
            expand_stars=False,
            quote_identifiers=False,
            identify=False,
        )
        reader = _Reader(tree, catalogs)
        return tuple(reader.world(choice) for choice in reader.choices())
    except (SqlglotError, RecursionError, ValueError, KeyError) as err:
        logger.debug("cannot read gold query (%s): %.80s", err, sql)
        return ()


def _values_catalogs(tree: exp.Expression) -> dict[str, list[dict[str, object]]]:
    """CTEs written as ``name (cols) AS (VALUES ...)``: name -> rows as dicts (qualify renames their columns)."""
    out = {}
    for cte in tree.find_all(exp.CTE):
        values = cte.this if isinstance(cte.this, exp.Values) else cte.this.find(exp.Values)
        names = [c.name for c in cte.args["alias"].columns] if cte.args.get("alias") else []
        if values is None or not names:
            continue
        rows = []
        for row in values.expressions:
            cells = [_literal(cell) for cell in row.expressions]
            rows.append(dict(zip(names, cells, strict=False)))
        out[cte.alias_or_name] = rows
    return out


def _literal(node: exp.Expression | None) -> object:
    """The Python value of a constant expression, or None when it is not a constant."""
    if node is None:
        return None
    if isinstance(node, exp.Paren):
        return _literal(node.this)
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
        value = _literal(node.this)
        return -value if isinstance(value, float) else None
    if isinstance(node, exp.Cast):
        return _literal(node.this)
    for kind, apply in _ARITHMETIC.items():
        if type(node) is kind:
            left, right = _literal(node.this), _literal(node.expression)
            if isinstance(left, float) and isinstance(right, float) and not (kind is exp.Div and right == 0):
                return apply(left, right)
    return None


class _Reader:
    """Walks the qualified tree of one query."""

    def __init__(self, tree: exp.Expression, catalogs: dict[str, list[dict[str, object]]]):
        self.tree = tree
        self.catalogs = catalogs
        self.scopes = traverse_scope(tree)
        self.scope_of = {id(s.expression): s for s in self.scopes}
        self.unions = [n for n in tree.find_all(exp.Union)]

    def choices(self) -> list[dict[int, int]]:
        """World choices: all left branches, then each union's right branch alone."""
        first = {id(u): 0 for u in self.unions}
        return [first] + [{**first, id(u): 1} for u in self.unions]

    def world(self, choice: dict[int, int]) -> World:
        world = World()
        for scope in self.scopes:
            select = scope.expression
            if not isinstance(select, exp.Select) or not self._active(select, choice):
                continue
            for alias, source in scope.sources.items():
                if isinstance(source, exp.Table) and source.name in schema() and alias == source.alias_or_name:
                    world.refs.append(RowRef(source.name, id(source)))
            for clause in (select.args.get("where"), select.args.get("having")):
                if clause is not None:
                    self._conditions(clause.this, scope, world)
            for join in select.args.get("joins") or []:
                if join.args.get("on") is not None:
                    self._conditions(join.args["on"], scope, world)
        return world

    def _active(self, node: exp.Expression, choice: dict[int, int]) -> bool:
        child = node
        for parent in _ancestors(node):
            if isinstance(parent, exp.Union) and choice.get(id(parent), 0) != (child is parent.expression):
                return False
            if isinstance(parent, exp.Except) and child is parent.expression:
                return False
            if isinstance(parent, exp.Not) and isinstance(parent.this, exp.In | exp.Exists):
                return False
            if isinstance(parent, exp.Or) and child is parent.expression:
                return False
            child = parent
        return True

    def _conditions(self, node: exp.Expression, scope: Scope, world: World) -> None:
        if isinstance(node, exp.Paren):
            self._conditions(node.this, scope, world)
        elif isinstance(node, exp.And):
            self._conditions(node.this, scope, world)
            self._conditions(node.expression, scope, world)
        elif isinstance(node, exp.Or):
            self._conditions(node.this, scope, world)
        else:
            self._atom(node, scope, world)

    def _atom(self, node: exp.Expression, scope: Scope, world: World) -> None:
        negate = False
        while isinstance(node, exp.Not):
            negate, node = not negate, node.this
        if isinstance(node, exp.Paren):
            node = node.this
        if type(node) in _COMPARISONS:
            self._comparison(node, _COMPARISONS[type(node)], scope, world, negate)
        elif isinstance(node, exp.Between):
            ref = self._column(node.this, scope)
            low, high = _literal(node.args.get("low")), _literal(node.args.get("high"))
            if ref and isinstance(low, float) and isinstance(high, float) and not negate:
                world.atoms += [Atom(ref[0], ref[1], ">=", (low,)), Atom(ref[0], ref[1], "<=", (high,))]
        elif isinstance(node, exp.In):
            ref = self._column(node.this, scope)
            values = tuple(v for v in (_literal(e) for e in node.expressions) if v is not None)
            if ref and values:
                world.atoms.append(Atom(ref[0], ref[1], "notin" if negate else "in", values))
        elif isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            ref = self._column(node.this, scope)
            if ref:
                is_null = not (negate ^ bool(node.args.get("negate")))
                world.atoms.append(Atom(ref[0], ref[1], "null" if is_null else "notnull"))
        elif isinstance(node, exp.Like | exp.ILike):
            ref, pattern = self._column(node.this, scope), _literal(node.expression)
            if ref and isinstance(pattern, str) and not negate:
                world.atoms.append(Atom(ref[0], ref[1], "like", (pattern,)))
        elif isinstance(node, exp.Column):
            ref = self._column(node, scope)
            if ref:
                world.atoms.append(Atom(ref[0], ref[1], "=", (not negate,)))
        elif isinstance(node, exp.Anonymous | exp.Func):
            self._cone(node, scope, world)

    def _comparison(self, node: exp.Expression, op: str, scope: Scope, world: World, negate: bool) -> None:
        if negate:
            op = {"=": "!=", "!=": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">"}[op]
        left, right = node.this, node.expression
        if _literal(left) is not None and _literal(right) is None:
            left, right, op = right, left, _MIRROR[op]
        value = _literal(right)
        if value is not None:
            if isinstance(left, exp.Count):
                self._count(left, op, value, scope, world)
                return
            ref = self._column(_unwrap_aggregate(left), scope)
            if ref:
                world.atoms.append(Atom(ref[0], ref[1], op, (value,)))
                return
            if isinstance(left, exp.Anonymous | exp.Func) and left.name.lower() == "q3c_dist" and op in ("<", "<="):
                self._distance(left, float(value), scope, world)
            elif isinstance(left, exp.Sub) and isinstance(value, float):
                self._diff(left.this, left.expression, op, value, scope, world)
            return
        self._linear(left, right, op, scope, world)

    def _linear(self, left, right, op: str, scope: Scope, world: World) -> None:
        """``a op c + b`` and ``a op b + c`` as ``a - b op c``."""
        if isinstance(right, exp.Add):
            for term, const in ((right.this, right.expression), (right.expression, right.this)):
                value = _literal(const)
                if isinstance(value, float) and self._column(term, scope):
                    self._diff(left, term, op, value, scope, world)
                    return

    def _diff(self, a, b, op: str, value: float, scope: Scope, world: World) -> None:
        ra, rb = self._column(a, scope), self._column(b, scope)
        if ra and rb and op != "=":
            world.diffs.append(Diff(ra, rb, op, value))

    def _count(self, node: exp.Expression, op: str, value: float, scope: Scope, world: World) -> None:
        refs = [RowRef(s.name, id(s)) for s in scope.sources.values() if isinstance(s, exp.Table)]
        if refs and scope.expression.args.get("group") is not None:
            world.counts.append((refs[-1], op, float(value)))

    def _cone(self, node: exp.Expression, scope: Scope, world: World) -> None:
        name = node.name.lower()
        if name not in _CONE_FUNCTIONS:
            return
        args = list(node.expressions) if isinstance(node, exp.Anonymous) else list(node.args.values())
        if len(args) < 5:
            return
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
                ref = table_side[0][0]
                world.cones.append(Cone(ref, (table_side[0][1], table_side[1][1]), tuple(centres), radius))
                return

    def _centres(self, pair: list, scope: Scope) -> list[tuple[float, float]]:
        values = [_literal(node) for node in pair]
        if all(isinstance(v, float) for v in values):
            return [(values[0], values[1])]
        columns = [self._catalog_column(node, scope) for node in pair]
        if not all(columns) or columns[0][0] is not columns[1][0]:
            return []
        rows, (ra, dec) = columns[0][0], (columns[0][1], columns[1][1])
        return [(float(r[ra]), float(r[dec])) for r in rows if isinstance(r.get(ra), float | int)]

    def _radius(self, node, scope: Scope) -> float | None:
        value = _literal(node)
        if isinstance(value, float) and value > 0:
            return value
        column = self._catalog_column(node, scope)
        if column:
            radii = [r.get(column[1]) for r in column[0]]
            radii = [float(r) for r in radii if isinstance(r, float | int)]
            return min(radii) if radii else None
        return None

    def _catalog_column(self, node, scope: Scope) -> tuple[list[dict], str] | None:
        if not isinstance(node, exp.Column) or not node.table:
            return None
        source = scope.sources.get(node.table)
        if isinstance(source, Scope):
            parent = source.expression.parent
            name = parent.alias_or_name if isinstance(parent, exp.CTE) else None
            if name in self.catalogs:
                return self.catalogs[name], node.name
        return None

    def _column(self, node, scope: Scope, depth: int = 0) -> tuple[RowRef, str] | None:
        """Resolve a column to (base-table reference, column name), following derived tables and CTEs."""
        while isinstance(node, exp.Paren | exp.Cast):
            node = node.this
        if not isinstance(node, exp.Column) or depth > 20:
            return None
        source = scope.sources.get(node.table) if node.table else None
        if source is None and not node.table:
            tables = [s for s in scope.sources.values() if isinstance(s, exp.Table)]
            source = next((t for t in tables if node.name in schema().get(t.name, {})), None)
        if isinstance(source, exp.Table):
            if source.name in schema() and node.name in schema()[source.name]:
                return RowRef(source.name, id(source)), node.name
            return None
        if isinstance(source, Scope):
            return self._projection(source, node.name, depth)
        return None

    def _projection(self, scope: Scope, name: str, depth: int) -> tuple[RowRef, str] | None:
        select = scope.expression
        while isinstance(select, exp.SetOperation):
            select = select.this
        if isinstance(select, exp.Subquery):
            select = select.this
        inner = self.scope_of.get(id(select), scope)
        if not isinstance(select, exp.Select):
            return None
        for projection in select.expressions:
            if isinstance(projection, exp.Star) or (
                isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
            ):
                found = self._star(inner, projection, name, depth)
                if found:
                    return found
            elif projection.alias_or_name == name:
                target = projection.this if isinstance(projection, exp.Alias) else projection
                return self._column(target, inner, depth + 1)
        return None

    def _star(self, scope: Scope, star: exp.Expression, name: str, depth: int) -> tuple[RowRef, str] | None:
        qualifier = star.table if isinstance(star, exp.Column) else ""
        for alias in scope.sources:
            if qualifier and alias != qualifier:
                continue
            found = self._column(exp.column(name, table=alias), scope, depth + 1)
            if found:
                return found
        return None


def _ancestors(node: exp.Expression):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _unwrap_aggregate(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, _AGGREGATES) else node
