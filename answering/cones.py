"""Read the cones a query searches from its SQL or ADQL: ``q3c_radial_query`` and ``CIRCLE`` with constant centre
and radius, wherever they stand in the query."""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from engines.sql_constants import literal
from engines.sql_tree import UNREADABLE_SQL, read_tree

__all__ = ["Cone", "cones_of"]

_DIALECTS = ("postgres", "tsql")  # tsql reads ADQL's TOP


@dataclasses.dataclass(frozen=True)
class Cone:
    """A cone on the sky: its centre and radius, in degrees."""

    ra: float
    dec: float
    radius_deg: float


def cones_of(sql: str) -> list[Cone]:
    """Return the cones of `sql`: each ``q3c_radial_query(ra, dec, ra0, dec0, radius)`` (the centre on either side)
    and each ADQL ``CIRCLE([frame,] ra0, dec0, radius)`` whose centre and radius are numbers (or arithmetic on them).

    Examples:
        >>> cones_of("SELECT oid FROM object WHERE q3c_radial_query(meanra, meandec, 150.1, -2.5, 30 / 3600.0)")
        [Cone(ra=150.1, dec=-2.5, radius_deg=0.008333333333333333)]
        >>> cones_of("SELECT TOP 5 oid FROM object WHERE "
        ...          "CONTAINS(POINT('ICRS', meanra, meandec), CIRCLE('ICRS', 10, 20, 0.5)) = 1")
        [Cone(ra=10.0, dec=20.0, radius_deg=0.5)]
        >>> cones_of("SELECT oid FROM object WHERE q3c_radial_query(meanra, meandec, o.ra, o.dec, 0.1)")
        []
    """
    tree = next((found for dialect in _DIALECTS if (found := read_tree(sql, dialect)) is not None), None)
    if tree is None:
        return []
    cones = []
    try:
        for call in tree.find_all(exp.Anonymous):
            cone = _cone_of(call.name.lower(), [_number(arg) for arg in call.expressions])
            if cone is not None and cone not in cones:
                cones.append(cone)
    except UNREADABLE_SQL:
        return []
    return cones


def _cone_of(name: str, values: list[float | None]) -> Cone | None:
    if name == "q3c_radial_query" and len(values) == 5:
        centre = values[2:4] if None not in values[2:4] else values[0:2]
        ra, dec, radius = centre[0], centre[1], values[4]
    elif name == "circle" and len(values) in (3, 4):
        ra, dec, radius = values[-3:]
    else:
        return None
    if ra is None or dec is None or radius is None or radius <= 0 or not -90 <= dec <= 90:
        return None
    return Cone(ra % 360.0, dec, radius)


def _number(node: exp.Expression) -> float | None:
    """The value of a numeric literal or of arithmetic on literals, else None."""
    value = literal(node)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
