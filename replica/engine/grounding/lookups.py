"""Conditions on lookup tables, read as conditions on the columns that join them.

A lookup table has fixed content (the band codes, the classes of each classifier, the feature names). A query that
names ``taxonomy.class_name = 'SN'`` and joins ``taxonomy`` to ``probability`` on (classifier_id, class_id) asks
``probability`` for the ids of the taxonomy rows named SN: the grounding makes probability rows with those ids,
and varies them for near misses. Conditions travel along join keys from lookup to lookup until they reach a table
the generator fills; the lookup references then leave the world.

Example:
    >>> from replica.engine.grounding.worlds import Atom, Link, RowRef, World
    >>> band, detection = RowRef("band", 1), RowRef("detection", 2)
    >>> world = World(refs=[detection, band], atoms=[Atom(band, "band_name", "=", ("r",))],
    ...               links=[Link((band, "band"), "=", (detection, "band"))])
    >>> rows = {"band": ({"band": 1, "band_name": "g"}, {"band": 2, "band_name": "r"})}
    >>> [(a.ref.table, a.column, a.op, a.values) for a in resolve_lookups(world, rows).atoms]
    [('detection', 'band', 'in', (2,))]
    >>> resolve_lookups(World(refs=[band], atoms=[Atom(band, "band_name", "=", ("w",))]), rows)
    'no row of band meets its conditions'
"""

import re
from collections.abc import Mapping
from dataclasses import replace

from replica.engine.grounding.domains import meets
from replica.engine.grounding.worlds import Atom, RowRef, World

__all__ = ["resolve_lookups"]

_MAX_ROUNDS = 4
"""Rounds of narrowing lookup rows through their joins (taxonomy -> classifier -> probability takes two)."""


def resolve_lookups(world: World, lookups: Mapping[str, tuple[dict, ...]]) -> World | str:
    """The world with its lookup references replaced by conditions on the references they join.

    Returns:
        The new world (the same one when it names no lookup table), or why no row of a lookup meets its conditions.
    """
    lookup_refs = [ref for ref in world.refs if ref.table in lookups]
    if not lookup_refs:
        return world
    rows = {ref: _matching(lookups[ref.table], [a for a in world.atoms if a.ref == ref]) for ref in lookup_refs}
    joins = [
        pair for link in world.links if link.op == "=" for pair in ((link.left, link.right), (link.right, link.left))
    ]
    for _ in range(_MAX_ROUNDS):
        if not _narrow(rows, joins, world.atoms):
            break
    empty = next((ref for ref in lookup_refs if not rows[ref]), None)
    if empty is not None:
        return f"no row of {empty.table} meets its conditions"
    derived = [
        Atom(theirs[0], theirs[1], "in", _values(rows[mine[0]], mine[1]))
        for mine, theirs in joins
        if mine[0] in rows and theirs[0] not in rows and _values(rows[mine[0]], mine[1])
    ]
    return replace(
        world,
        refs=[ref for ref in world.refs if ref not in rows],
        atoms=[atom for atom in world.atoms if atom.ref not in rows] + derived,
        diffs=[diff for diff in world.diffs if diff.left[0] not in rows and diff.right[0] not in rows],
        links=[link for link in world.links if link.left[0] not in rows and link.right[0] not in rows],
    )


def _values(rows: list[dict], column: str) -> tuple:
    return tuple(dict.fromkeys(row[column] for row in rows if column in row))


def _narrow(rows: dict[RowRef, list[dict]], joins: list, atoms: list[Atom]) -> bool:
    """Keep the lookup rows that the other side of each join can match; whether any row went."""
    changed = False
    for (ref, column), (other, other_column) in joins:
        if ref not in rows:
            continue
        if other in rows:
            allowed = [("in", _values(rows[other], other_column))]
        else:
            allowed = [(a.op, a.values) for a in atoms if a.ref == other and a.column == other_column]
        kept = [row for row in rows[ref] if _meets(row.get(column), allowed)]
        changed = changed or len(kept) < len(rows[ref])
        rows[ref] = kept
    return changed


def _matching(rows: tuple[dict, ...], atoms: list[Atom]) -> list[dict]:
    return [row for row in rows if all(_meets(row.get(atom.column), [(atom.op, atom.values)]) for atom in atoms)]


def _meets(value, conditions) -> bool:
    """``meets``, with LIKE patterns matched (case-insensitively, as ILIKE; LIKE differs only in case)."""
    return meets(value, conditions) and all(_like(value, values[0]) for op, values in conditions if op == "like")


def _like(value, pattern) -> bool:
    if not isinstance(value, str) or not isinstance(pattern, str):
        return False
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, value, flags=re.IGNORECASE | re.DOTALL) is not None
