"""Which references of a world describe one object, and which describe another object near it.

In the multi-survey catalog a query may name two objects: an LSST object and the ZTF object at its position
(``object l JOIN object z ON q3c_join(...)``). References joined on an object id (oid, ssobjectid) describe one
object; a cross-match source (AllWISE, Gaia) belongs to the object whose xmatch row names it. The first reference's
object is the primary one; objects a q3c join puts near it are its companions.

Example:
    >>> from replica.engine.grounding.worlds import Link, RowRef, World
    >>> l, p, z = RowRef("object", 1), RowRef("probability", 2), RowRef("object", 3)
    >>> joined, near = Link((p, "oid"), "=", (l, "oid")), Link((l, "meanra"), "near", (z, "meanra"), 1e-3)
    >>> world = World(refs=[l, p, z], links=[joined, near])
    >>> primary, companions = bodies(world)
    >>> [r.key for r in primary], [[r.key for r in c] for c in companions]
    ([1, 2], [[3]])
"""

from replica.engine.grounding.worlds import RowRef, World
from replica.multisurvey.roles import SOURCE_TABLES

__all__ = ["IDENTITY", "bodies"]

IDENTITY = ("oid", "ssobjectid")
"""Columns that name an object: a join on them joins rows of one object."""


def bodies(world: World) -> tuple[list[RowRef], list[list[RowRef]]]:
    """Group the world's references by the object they describe: the primary object's, and those of each near it."""
    parent = {ref: ref for ref in world.refs}

    def find(ref: RowRef) -> RowRef:
        while parent[ref] != ref:
            ref = parent[ref]
        return ref

    for link in world.links:
        (a, column_a), (b, column_b) = link.left, link.right
        if link.op == "=" and column_a in IDENTITY and column_b in IDENTITY:
            parent[find(a)] = find(b)
    for link in world.links:
        (a, column_a), (b, column_b) = link.left, link.right
        if link.op == "=" and column_a == column_b == "oid_catalog":
            source, xmatch = (a, b) if a.table in SOURCE_TABLES else (b, a)
            if source.table in SOURCE_TABLES and xmatch.table == "xmatch" and find(source) == source:
                parent[source] = find(xmatch)
    groups: dict[RowRef, list[RowRef]] = {}
    for ref in world.refs:
        groups.setdefault(find(ref), []).append(ref)
    if not groups:
        return [], []
    first = find(world.refs[0])
    near = {  # the objects a q3c join puts near the primary one
        find(link.left[0]) if find(link.right[0]) == first else find(link.right[0])
        for link in world.links
        if link.op == "near" and first in (find(link.left[0]), find(link.right[0]))
    }
    return groups[first], [groups[root] for root in groups if root in near and root != first]
