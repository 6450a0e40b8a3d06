"""What the grounding engine needs to know about one catalog and its generator: a ``Profile``.

The engine (reading gold queries, choosing values that meet or just miss their conditions, keeping keys, thinning
limits) is the same for every catalog; a profile says the rest. Each generator package defines its profile beside
itself (``replica.ztf.grounding``, ``replica.multisurvey.grounding``).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from catalog import load_catalog
from replica.engine.grounding.entity import Entity
from replica.engine.grounding.worlds import Cone, RowRef, World

__all__ = ["Binder", "Domain", "Profile"]

Domain = tuple[float, float, float, float]
"""(lowest, highest, step, typical gap above a lower bound) of a numeric column."""
Binder = Callable[[Entity, dict[RowRef, dict], World, list[tuple[Cone, bool]], int], None]
"""Fills an entity from per-reference column values, the world, its cones (and whether to miss each) and a variant."""


@dataclass(frozen=True, kw_only=True)
class Profile:
    """One catalog as the grounding engine sees it.

    Attributes:
        catalog: Catalog name (``catalog.load_catalog``): tables, column types, keys.
        identity: Columns that name an object, in order of preference: conditions on them are never varied, and a
            row belongs to the object one of them names (a whole object is deleted through them).
        per_row: Tables with many rows per object (measurements): half the rows of an answer miss a condition.
        classifier_column: The column naming a classifier in probability rows.
        class_column: The column naming a class in probability rows.
        domain: (table, column) -> the column's numeric domain when the catalog file gives none.
        categories: (column, classifier) -> the known values of a categorical column, or None.
        bind: Turns chosen values into an entity's spec and patches.
        object_id: (column, literal) -> the object the literal names, or None when it names none.
        row_count_keys: Spec keys that count one object's rows of a table (detections, forced epochs).
        lookups: Tables of fixed content (table -> its rows): a condition on one is a condition on the columns it
            joins (``lookups.resolve_lookups``).
    """

    catalog: str
    identity: tuple[str, ...]
    per_row: frozenset[str]
    classifier_column: str
    class_column: str
    domain: Callable[[str, str], Domain]
    categories: Callable[[str, object], tuple | None]
    bind: Binder
    object_id: Callable[[str, object], object]
    row_count_keys: tuple[str, ...]
    lookups: Mapping[str, tuple[dict, ...]] = field(default_factory=dict)

    @property
    def schema(self) -> str:
        """The PostgreSQL schema the catalog's tables live in (the catalog file's ``schema``)."""
        return load_catalog(self.catalog).schema
