"""What a gold query asks of the data, per way of satisfying it: the records the grounding reads and builds on."""

from dataclasses import dataclass, field

__all__ = ["Atom", "Cone", "Diff", "Link", "RowRef", "World"]

_ARCSEC = 1 / 3600


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

    def position(self, outside: bool, variant: int) -> tuple[float, float]:
        """(ra, dec) half a radius from the centre ``variant`` picks, or just outside the cone for a near miss."""
        ra, dec = self.centres[variant % len(self.centres)]
        r = self.radius_deg
        offset = r * (1 + max(0.15, 2 * _ARCSEC / r)) if outside else r * 0.5  # a near miss: 2 arcsec out at least
        return ra % 360.0, dec + offset if dec + offset <= 89.0 else dec - offset


@dataclass(frozen=True)
class Link:
    """``left op right`` between columns of two references.

    Op '=' is a join key; any other comparison orders two columns; 'near' says that the positions whose ra columns
    are ``left`` and ``right`` lie within ``value`` degrees of each other (a q3c join of two tables).
    """

    left: tuple[RowRef, str]
    op: str
    right: tuple[RowRef, str]
    value: float = 0.0


@dataclass
class World:
    """The conditions of one way to satisfy a query."""

    refs: list[RowRef] = field(default_factory=list)
    atoms: list[Atom] = field(default_factory=list)
    diffs: list[Diff] = field(default_factory=list)
    cones: list[Cone] = field(default_factory=list)
    counts: list[tuple[RowRef, str, float]] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    whole: set[tuple[RowRef, str]] = field(default_factory=set)
    """Columns read through an aggregate (``HAVING max(x) < c``): every row of an answer must meet their conditions."""
