"""Turn the worlds of gold queries into entities: synthetic objects that answer them, and near misses that do not.

An entity is a set of spec overrides (the generator derives every table from the spec, so invariants hold) plus
patches for values the spec does not model (a feature value, a data-quality column, a PS1 magnitude). For each
world there are two answering entities and, per condition, one entity that breaks exactly that condition.
Literal oids (``oid IN (...)``) name the entities instead; when there are three or more, some of them break one
condition each, so that the condition decides which of the named objects are returned. What the spec holds, and
which columns name objects, is the catalog's (its grounding ``Profile``).
"""

import itertools
import logging
import math
from collections import defaultdict
from collections.abc import Callable

from engines.errors import GuardError
from engines.guard import check_sql
from replica.engine.grounding.constraints import fitting, is_integer
from replica.engine.grounding.domains import meets, satisfying, violating
from replica.engine.grounding.entity import Entity, EntityPlan, Skipped
from replica.engine.grounding.lookups import resolve_lookups
from replica.engine.grounding.predicates import read_worlds
from replica.engine.grounding.profile import Profile
from replica.engine.grounding.worlds import RowRef, World

__all__ = ["Entity", "EntityPlan", "Skipped", "entities_for_queries", "literal_oids"]

logger = logging.getLogger(__name__)

_MAX_LITERAL_OIDS = 60
_MAX_ROWS = 5000
"""The most rows of one table a generator makes for an object (a build must not run out of memory)."""


def entities_for_queries(
    queries: list[str], profile: Profile, is_dense: Callable[[str], bool] | None = None
) -> EntityPlan:
    """Entities answering (and nearly answering) each query; entities naming the same oid are merged.

    A query no object can answer (the guard refuses it, it cannot be read, its conditions contradict each other or
    ask for a value its column cannot hold, or it needs more than the generator makes) adds no entity: it is logged
    in one line and listed in the plan's ``skipped``. ``is_dense`` says whether a query has many answers already
    (see ``domains.violating``); without it every query is dense.
    """
    out: list[Entity] = []
    skipped: list[Skipped] = []
    for sql in queries:
        try:
            out.extend(_query_entities(sql, profile, is_dense))
        except (ValueError, TypeError) as err:  # the reasons above, or a literal its column cannot take
            skipped.append(Skipped(sql, str(err)))
            logger.warning("not grounding a query (%s): %.80s", err, " ".join(sql.split()))
    return EntityPlan(_merge_by_oid(out), skipped)


def _query_entities(sql: str, profile: Profile, is_dense: Callable[[str], bool] | None) -> list[Entity]:
    try:
        check_sql(sql)
    except GuardError as err:
        raise ValueError(f"the SQL guard refuses it: {err.message}") from err
    read = read_worlds(sql, profile.catalog)
    if not read:
        raise ValueError("it cannot be read as SQL on the catalog")
    worlds = [resolve_lookups(world, profile.lookups) for world in read]  # or why no lookup row fits
    contradictions = [world if isinstance(world, str) else _contradiction(world, profile) for world in worlds]
    if all(contradictions):
        raise ValueError(contradictions[0])
    consistent = [world for world, why in zip(worlds, contradictions, strict=True) if not why]
    dense = is_dense(sql) if is_dense is not None and any(_has_integer_bound(w, profile) for w in consistent) else True
    out = [entity for world in consistent for entity in _world_entities(world, profile, dense)]
    for entity in out:
        why = _unmakeable(entity, profile)
        if why:
            raise ValueError(why)
    return out


def _unmakeable(entity: Entity, profile: Profile) -> str | None:
    """Why the generator cannot make the entity (a non-finite spec value, too many rows of one object), or None."""
    for key, value in entity.spec.items():
        if isinstance(value, float) and not math.isfinite(value):
            return f"it needs a {key.lstrip('_')} of {value}, which no object has"
    rows = max((int(entity.spec.get(key, 0)) for key in profile.row_count_keys), default=0)
    if rows > _MAX_ROWS:
        return f"it needs {rows} measurements of one object; the generator makes at most {_MAX_ROWS}"
    return None


def _contradiction(world: World, profile: Profile) -> str | None:
    """Why no value meets the conditions of one column of the world, or fits the column (None if all do)."""
    conditions = _conditions(world)
    for (ref, column), value in _choose(conditions, 0, profile).items():
        if fitting(ref.table, column, value, profile.catalog) is ...:
            return f"{ref.table}.{column} cannot hold {_shown(value)}"
        conds = conditions[(ref, column)]
        if not meets(value, conds):
            said = ", ".join(f"{op} {', '.join(map(_shown, values))}".strip() for op, values in conds)
            return f"no value meets its conditions on {ref.table}.{column} ({said})"
    return None


def _shown(value) -> str:
    return "NULL" if value is None else repr(value)


def _has_integer_bound(world: World, profile: Profile) -> bool:
    """Whether density matters: only near misses of integer bounds depend on it."""
    bounds = (a for a in world.atoms if a.op in (">", ">=", "<", "<="))
    return any(is_integer(a.ref.table, a.column, profile.catalog) for a in bounds)


def literal_oids(queries: list[str], profile: Profile) -> set:
    """Every object the queries name (``oid = '...'``, ``oid IN (...)``)."""
    return {
        oid for sql in queries for world in read_worlds(sql, profile.catalog) for oid in _literal_oids(world, profile)
    }


def _conditions(world: World) -> dict[tuple[RowRef, str], list[tuple[str, tuple]]]:
    grouped: dict[tuple[RowRef, str], list[tuple[str, tuple]]] = defaultdict(list)
    for atom in world.atoms:
        grouped[(atom.ref, atom.column)].append((atom.op, atom.values))
    return grouped


def _classifier(conditions: dict, ref: RowRef, profile: Profile) -> str | None:
    for op, values in conditions.get((ref, profile.classifier_column), []):
        if op in ("=", "in") and values:
            return str(values[0])
    return None


def _choose(conditions: dict, variant: int, profile: Profile) -> dict[tuple[RowRef, str], object]:
    chosen = {}
    for (ref, column), conds in conditions.items():
        if column in profile.identity:
            continue
        classifier = _classifier(conditions, ref, profile)
        value = satisfying(ref.table, column, conds, profile=profile, variant=variant, classifier=classifier)
        if value is not ...:
            chosen[(ref, column)] = value
    return chosen


def _literal_oids(world: World, profile: Profile) -> list:
    atoms = [atom for atom in world.atoms if atom.column in profile.identity and atom.op in ("=", "in")]
    named = (profile.object_id(atom.column, value) for atom in atoms for value in atom.values)
    return list(dict.fromkeys(oid for oid in named if oid is not None))[:_MAX_LITERAL_OIDS]


def _flippable(conditions: dict, profile: Profile) -> list[tuple[tuple[RowRef, str], int]]:
    flips = [(key, i) for key, conds in conditions.items() for i, (op, _) in enumerate(conds) if op != "notnull"]
    return [(key, i) for key, i in flips if key[1] not in profile.identity]


def _violated(conditions: dict, chosen: dict, key, index: int, *, profile: Profile, dense: bool) -> dict | None:
    ref, column = key
    if column == profile.classifier_column:
        value = _other_classifier(conditions[key], chosen.get((ref, profile.class_column)), profile)
    else:
        value = _missed(conditions, key, index, profile, dense)
    return None if value is ... else {**chosen, key: value}


def _missed(conditions: dict, key: tuple[RowRef, str], index: int, profile: Profile, dense: bool):
    """``violating`` for condition ``index`` of one column, among the classes of the classifier the reference names."""
    classifier = _classifier(conditions, key[0], profile)
    return violating(key[0].table, key[1], conditions[key], index, profile=profile, classifier=classifier, dense=dense)


def _other_classifier(conds: list, class_name, profile: Profile) -> object:
    """A classifier outside the condition that also has the class (the usual confusion), else the next one."""
    named = {v for op, values in conds if op in ("=", "in") for v in values}
    others = [c for c in profile.categories(profile.classifier_column, None) or () if c not in named]
    if class_name is not None:
        others = [c for c in others if class_name in (profile.categories(profile.class_column, c) or ())]
    return others[0] if others else ...


def _world_entities(world: World, profile: Profile, dense: bool) -> list[Entity]:
    """Two answers and one near miss per condition and cone; or the named oids, the later half of them near misses.

    With fewer than three oids, or no condition to break, every named oid is an answer.
    """
    if not world.refs:
        return []
    conditions = _conditions(world)
    flips = _flippable(conditions, profile)
    oids = _literal_oids(world, profile)
    base = _choose(conditions, 0, profile)
    rows_violate = _row_violations(world, conditions, base, profile, dense)
    if oids:
        keep = len(oids) if len(oids) < 3 or not flips else (len(oids) + 1) // 2
        out = [_entity(world, profile, base, oid, variant=i, violate=rows_violate) for i, oid in enumerate(oids[:keep])]
        for i, (oid, flip) in enumerate(zip(oids[keep:], itertools.cycle(flips)), start=keep):
            missed = _violated(conditions, base, *flip, profile=profile, dense=dense)
            out.append(_entity(world, profile, missed or base, oid, variant=i))
        return out
    out = [_entity(world, profile, _choose(conditions, v, profile), variant=v, violate=rows_violate) for v in (0, 1)]
    for key, index in flips:
        values = _violated(conditions, base, key, index, profile=profile, dense=dense)
        if values is not None:
            out.append(_entity(world, profile, values))
    return out + [_entity(world, profile, base, outside=k) for k in range(len(world.cones))]


def _entity(world: World, profile: Profile, values: dict, oid=None, *, variant=0, outside=None, violate=None) -> Entity:
    """One entity of the world, made by the profile's binder from chosen values (cone ``outside`` is missed).

    ``violate`` holds the values that half the rows of a per-row table get instead.
    """
    entity = Entity(oid=oid)
    by_ref: dict[RowRef, dict[str, object]] = defaultdict(dict)
    for (ref, column), value in values.items():
        by_ref[ref][column] = value
    for (ref, column), value in (violate or {}).items():
        by_ref[ref].setdefault("_violate", {})[column] = value
    for ref in world.refs:
        by_ref.setdefault(ref, {})
    profile.bind(entity, dict(by_ref), world, [(cone, k == outside) for k, cone in enumerate(world.cones)], variant)
    return entity


def _row_violations(world: World, conditions: dict, chosen: dict, profile: Profile, dense: bool) -> dict:
    """A value breaking the first condition of each per-row column no aggregate reads: half an answer's rows get it."""
    per_row = [key for key in chosen if key[0].table in profile.per_row and key not in world.whole]
    return {key: value for key in per_row if (value := _missed(conditions, key, 0, profile, dense)) is not ...}


def _merge_by_oid(entities: list[Entity]) -> list[Entity]:
    """The entities, each later one naming the oid of an earlier one merged into it (the earlier spec wins)."""
    merged: dict[str, Entity] = {}
    out = []
    for entity in entities:
        first = merged.setdefault(entity.oid, entity) if entity.oid is not None else entity
        if first is entity:
            out.append(entity)
            continue
        first.spec |= {key: value for key, value in entity.spec.items() if key not in first.spec}
        first.patches += entity.patches
        first.alternating += entity.alternating
        first.allwise += entity.allwise
        first.needs_object = first.needs_object or entity.needs_object
    return out
