"""Turn the worlds of gold queries into entities: synthetic objects that answer them, and near misses that do not.

An entity is a set of spec overrides (the generator derives every table from the spec, so invariants hold) plus
patches for values the spec does not model (a feature value, a data-quality column, a PS1 magnitude). For each
world there are two answering entities and, per condition, one entity that breaks exactly that condition.
Literal oids (``oid IN (...)``) name the entities instead; when there are three or more, some of them break one
condition each, so that the condition decides which of the named objects are returned.

A query no object can answer (the guard refuses it, it cannot be read, its conditions contradict each other or ask
for a value its column cannot hold, or it needs more than the generator makes) adds no entity and is reported.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from engines.errors import GuardError
from engines.guard import check_sql
from replica.grounding.bind import bind_values
from replica.grounding.constraints import fitting
from replica.grounding.domains import categories, is_integer, meets, satisfying, violating
from replica.grounding.predicates import read_worlds
from replica.grounding.worlds import RowRef, World

__all__ = ["Entity", "EntityPlan", "Skipped", "entities_for_queries", "literal_oids"]

logger = logging.getLogger(__name__)

_IDENTITY = {"oid"}
_PER_ROW = {"dataquality", "non_detection", "forced_photometry", "detection"}
_MAX_LITERAL_OIDS = 60
_MAX_DETECTIONS = 5000
"""Detections the generator makes for one object at most, so that no query can make a build run out of memory."""
_DETECTION_COUNTS = ("_ndet", "_ndet_g", "_ndet_r")


class _CannotGroundError(ValueError):
    """The generator cannot make an answer to a gold query; the message says why."""


@dataclass(frozen=True)
class Skipped:
    """A gold query that was not grounded, and why."""

    query: str
    reason: str


@dataclass
class EntityPlan:
    """The entities to add for a set of gold queries, and the queries skipped because none can be made."""

    entities: list[Entity]
    skipped: list[Skipped]


@dataclass
class Entity:
    """One synthetic object to add: spec overrides, per-table patches and extra AllWISE sources."""

    oid: str | None
    spec: dict = field(default_factory=dict)
    patches: list[tuple[str, dict, dict]] = field(default_factory=list)
    alternating: list[tuple[str, dict, dict, dict]] = field(default_factory=list)
    allwise: list[dict] = field(default_factory=list)
    needs_object: bool = True


def entities_for_queries(queries: list[str], is_dense: Callable[[str], bool] | None = None) -> EntityPlan:
    """Entities answering (and nearly answering) each query; entities naming the same oid are merged.

    A query that cannot be grounded (unreadable, contradictory, or asking for a value its column or the generator
    cannot take) adds no entity: it is logged in one line and listed in the plan's ``skipped``.

    Args:
        queries: Gold SQL.
        is_dense: Says whether a query has many answers already (see ``domains.violating``); default: all dense.
    """
    out: list[Entity] = []
    skipped: list[Skipped] = []
    for sql in queries:
        try:
            out.extend(_query_entities(sql, is_dense))
        except (ValueError, TypeError) as err:  # a literal that its column, or the generator, cannot take
            skipped.append(Skipped(sql, str(err)))
            logger.warning("not grounding a query (%s): %.80s", err, " ".join(sql.split()))
    return EntityPlan(_merge_by_oid(out), skipped)


def _query_entities(sql: str, is_dense: Callable[[str], bool] | None) -> list[Entity]:
    try:
        check_sql(sql)
    except GuardError as err:
        raise _CannotGroundError(f"the SQL guard refuses it: {err.message}") from err
    worlds = read_worlds(sql)
    if not worlds:
        raise _CannotGroundError("it cannot be read as SQL on the catalog")
    dense = is_dense(sql) if is_dense is not None and any(_has_integer_bound(w) for w in worlds) else True
    contradictions = [_contradiction(world) for world in worlds]
    if all(contradictions):
        raise _CannotGroundError(contradictions[0])
    consistent = [world for world, why in zip(worlds, contradictions, strict=True) if not why]
    out = [entity for world in consistent for entity in _world_entities(world, dense)]
    for entity in out:
        _check_makeable(entity)
    return out


def _contradiction(world: World) -> str | None:
    """Why no value meets the conditions of one column of the world, or fits the column (None if all do)."""
    conditions = _conditions(world)
    for (ref, column), value in _choose(conditions, 0).items():
        if fitting(ref.table, column, value) is ...:
            return f"{ref.table}.{column} cannot hold {_shown(value)}"
        conds = conditions[(ref, column)]
        if not meets(value, conds):
            said = ", ".join(f"{op} {', '.join(map(_shown, values))}".strip() for op, values in conds)
            return f"no value meets its conditions on {ref.table}.{column} ({said})"
    return None


def _shown(value) -> str:
    return "NULL" if value is None else repr(value)


def _check_makeable(entity: Entity) -> None:
    """Raise _CannotGroundError when the entity needs what the generator cannot make."""
    for key, value in entity.spec.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise _CannotGroundError(f"it needs a {key.lstrip('_')} of {value}, which no object has")
    detections = max(int(entity.spec.get(key, 0)) for key in _DETECTION_COUNTS)
    if detections > _MAX_DETECTIONS:
        raise _CannotGroundError(
            f"it needs {detections} detections of one object; the generator makes at most {_MAX_DETECTIONS}"
        )


def _has_integer_bound(world: World) -> bool:
    """Whether density matters: only near misses of integer bounds depend on it."""
    return any(a.op in (">", ">=", "<", "<=") and is_integer(a.ref.table, a.column) for a in world.atoms)


def literal_oids(queries: list[str]) -> set[str]:
    """Every oid the queries name (``oid = '...'``, ``oid IN (...)``)."""
    return {oid for sql in queries for world in read_worlds(sql) for oid in _literal_oids(world)}


def _conditions(world: World) -> dict[tuple[RowRef, str], list[tuple[str, tuple]]]:
    grouped: dict[tuple[RowRef, str], list[tuple[str, tuple]]] = defaultdict(list)
    for atom in world.atoms:
        grouped[(atom.ref, atom.column)].append((atom.op, atom.values))
    return grouped


def _classifier(conditions: dict, ref: RowRef) -> str | None:
    for op, values in conditions.get((ref, "classifier_name"), []):
        if op in ("=", "in") and values:
            return str(values[0])
    return None


def _choose(conditions: dict, variant: int) -> dict[tuple[RowRef, str], object]:
    chosen = {}
    for (ref, column), conds in conditions.items():
        if column in _IDENTITY:
            continue
        value = satisfying(ref.table, column, conds, variant, _classifier(conditions, ref))
        if value is not ...:
            chosen[(ref, column)] = value
    return chosen


def _literal_oids(world: World) -> list[str]:
    oids: list[str] = []
    for atom in world.atoms:
        if atom.column == "oid" and atom.op in ("=", "in"):
            oids.extend(str(v) for v in atom.values if isinstance(v, str))
    return list(dict.fromkeys(oids))[:_MAX_LITERAL_OIDS]


def _flippable(conditions: dict) -> list[tuple[tuple[RowRef, str], int]]:
    return [
        (key, i)
        for key, conds in conditions.items()
        if key[1] not in _IDENTITY
        for i in range(len(conds))
        if conds[i][0] not in ("notnull",)
    ]


def _violated(conditions: dict, chosen: dict, key, index: int, dense: bool) -> dict | None:
    ref, column = key
    if column == "classifier_name":
        value = _other_classifier(conditions[key], chosen.get((ref, "class_name")))
    else:
        value = violating(ref.table, column, conditions[key], index, _classifier(conditions, ref), dense=dense)
    if value is ...:
        return None
    return {**chosen, key: value}


def _other_classifier(conds: list, class_name) -> object:
    """A classifier outside the condition that also has the class (the usual confusion), else the next one."""
    named = {v for op, values in conds if op in ("=", "in") for v in values}
    others = [c for c in categories("classifier_name") if c not in named]
    if class_name is not None:
        sharing = [c for c in others if class_name in (categories("class_name", c) or ())]
        return sharing[0] if sharing else ...
    return others[0] if others else ...


def _world_entities(world: World, dense: bool) -> list[Entity]:
    if not world.refs:
        return []
    conditions = _conditions(world)
    flips = _flippable(conditions)
    oids = _literal_oids(world)
    if oids:
        return _literal_entities(world, conditions, flips, oids, dense)
    base = _choose(conditions, 0)
    rows_violate = _row_violations(conditions, base, dense)
    out = [_entity(world, _choose(conditions, v), None, variant=v, rows_violate=rows_violate) for v in (0, 1)]
    for key, index in flips:
        values = _violated(conditions, base, key, index, dense)
        if values is not None:
            out.append(_entity(world, values, None, variant=0))
    for k in range(len(world.cones)):
        out.append(_entity(world, base, None, variant=0, outside=k))
    return [e for e in out if e is not None]


def _literal_entities(world: World, conditions: dict, flips: list, oids: list[str], dense: bool) -> list[Entity]:
    keep = len(oids) if len(oids) < 3 or not flips else (len(oids) + 1) // 2
    base = _choose(conditions, 0)
    rows_violate = _row_violations(conditions, base, dense)
    out = []
    cycle = itertools.cycle(flips or [None])
    for i, oid in enumerate(oids):
        values = base
        if i >= keep:
            key_index = next(cycle)
            values = _violated(conditions, base, *key_index, dense) or base
        out.append(_entity(world, values, oid, variant=i, rows_violate=rows_violate if i < keep else None))
    return [e for e in out if e is not None]


def _entity(
    world: World, values: dict, oid: str | None, *, variant: int, outside: int | None = None, rows_violate=None
) -> Entity:
    entity = Entity(oid=oid)
    by_ref: dict[RowRef, dict[str, object]] = defaultdict(dict)
    for (ref, column), value in values.items():
        by_ref[ref][column] = value
    for (ref, column), value in (rows_violate or {}).items():
        by_ref[ref].setdefault("_violate", {})[column] = value
    for ref in world.refs:
        by_ref.setdefault(ref, {})
    cones = [(cone, k == outside) for k, cone in enumerate(world.cones)]
    bind_values(entity, dict(by_ref), world, cones, variant)
    return entity


def _row_violations(conditions: dict, chosen: dict, dense: bool) -> dict:
    """For per-row tables, a value breaking each column's first condition: half the rows of an answer get it."""
    out = {}
    for (ref, column), conds in conditions.items():
        if ref.table in _PER_ROW and column not in _IDENTITY and (ref, column) in chosen:
            value = violating(ref.table, column, conds, 0, _classifier(conditions, ref), dense=dense)
            if value is not ...:
                out[(ref, column)] = value
    return out


def _merge_by_oid(entities: list[Entity]) -> list[Entity]:
    merged: dict[str, Entity] = {}
    out = []
    for entity in entities:
        if entity.oid is None:
            out.append(entity)
            continue
        first = merged.get(entity.oid)
        if first is None:
            merged[entity.oid] = entity
            out.append(entity)
            continue
        for key, value in entity.spec.items():
            first.spec.setdefault(key, value)
        first.patches += entity.patches
        first.alternating += entity.alternating
        first.allwise += entity.allwise
        first.needs_object = first.needs_object or entity.needs_object
    return out
