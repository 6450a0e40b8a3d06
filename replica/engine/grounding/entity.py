"""The records grounding builds from gold queries: entities to add, and the queries it skipped."""

from dataclasses import dataclass, field

__all__ = ["Entity", "EntityPlan", "Skipped"]


@dataclass(frozen=True)
class Skipped:
    """A gold query that was not grounded, and why."""

    query: str
    reason: str


@dataclass
class Entity:
    """One synthetic object to add: spec overrides, per-table patches and extra AllWISE sources.

    ``oid`` is the object's identifier when a query names it (a ZTF name, or an integer in the multi-survey
    catalog), else None until the generator names it. The keys of ``spec`` belong to the catalog's profile.
    """

    oid: str | int | None
    spec: dict = field(default_factory=dict)
    patches: list[tuple[str, dict, dict]] = field(default_factory=list)
    alternating: list[tuple[str, dict, dict, dict]] = field(default_factory=list)
    allwise: list[dict] = field(default_factory=list)
    needs_object: bool = True


@dataclass
class EntityPlan:
    """The entities to add for a set of gold queries, and the queries skipped because none can be made."""

    entities: list[Entity]
    skipped: list[Skipped]
