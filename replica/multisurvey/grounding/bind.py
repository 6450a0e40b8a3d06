"""Bind chosen column values to a multi-survey entity: its generator spec, and patches for what the spec omits.

The spec says what the generator derives (so object and lsst_dia_object aggregates, probabilities and features stay
consistent with the detections): the survey (sid), the kind of source, position, number and span of detections,
bands, flux level, forced photometry, classes per classifier, cross-matches, a ZTF twin nearby, and for a
solar-system object its orbit and designation. Per-row values the spec does not derive (reliability, trail length,
orbit geometry) are patched into the rows, on half of an answer's rows when a near miss exists for them.
"""

import math

from catalog.ztf_names import is_ztf_oid
from replica.engine.grounding.domains import apply_diffs
from replica.engine.grounding.worlds import Cone, Link, RowRef, World
from replica.multisurvey.binders import bind_rows
from replica.multisurvey.classifications import TRUE_CLASS
from replica.multisurvey.grounding.bodies import bodies
from replica.multisurvey.ids import designation_of
from replica.multisurvey.lookups import STAMP_CLASSIFIERS, class_id
from replica.multisurvey.roles import SOLAR_SYSTEM_TABLES, SOURCE_TABLES
from replica.multisurvey.tables import TABLES

__all__ = ["PER_ROW", "bind_values"]

_KIND_OF_CLASS_ID = {class_id(STAMP_CLASSIFIERS[-1], name): kind for kind, name in TRUE_CLASS.items()}

PER_ROW = frozenset(name for name, table in TABLES.items() if table.bind is bind_rows)
"""The measurement tables: many rows per object, half of an answer's rows miss a condition."""


def bind_values(entity, by_ref: dict[RowRef, dict], world: World, cones: list[tuple[Cone, bool]], variant: int):
    """Fill ``entity`` (spec, patches, alternating rows) from per-reference values and the world's links."""
    primary, companions = bodies(world)
    # ``a - b`` of two MJD columns is a time span
    apply_diffs(by_ref, world.diffs, is_span=lambda a, b: "mjd" in a and "mjd" in b, default=lambda _column: 15.0)
    spec = entity.spec
    if primary and all(ref.table in SOURCE_TABLES for ref in primary):
        entity.needs_object = False
        spec["orphans"] = [
            (ref.table, {c: v for c, v in by_ref.get(ref, {}).items() if not c.startswith("_")}) for ref in primary
        ]
    else:
        spec["sid"] = _survey(primary, by_ref, entity.oid)
        for ref in (ref for ref in primary if ref.table in TABLES):
            TABLES[ref.table].bind(entity, ref.table, by_ref.get(ref, {}))
        _counts(spec, world.counts, set(primary))
        _precursors(spec, world.links)
        _twin(spec, companions, by_ref)
        _finish(spec)
    for cone, outside in cones:  # the object (or an orphan source) inside the cone, or just outside for a near miss
        spec.update(zip(("ra", "dec"), cone.position(outside, variant), strict=True))


def _survey(refs: list[RowRef], by_ref: dict[RowRef, dict], oid) -> int:
    """The sid of the primary object: asked for, else told by a literal id or by the tables the query reads."""
    for ref in refs:
        sid = by_ref.get(ref, {}).get("sid")
        if isinstance(sid, int | float) and int(sid) in (0, 1, 2):
            return int(sid)
    if isinstance(oid, int):
        if is_ztf_oid(oid):
            return 0
        return 2 if designation_of(oid) else 1
    return 2 if any(ref.table in SOLAR_SYSTEM_TABLES for ref in refs) else 1


def _counts(spec: dict, counts: list[tuple[RowRef, str, float]], refs: set[RowRef]) -> None:
    """``HAVING count(*) > n`` over measurements: enough rows, twice over (half an answer's rows may miss)."""
    for ref, op, value in counts:
        if ref not in refs or op not in (">", ">=", "="):
            continue
        needed = math.floor(value) + 1 if op == ">" else math.ceil(value)
        key = "n_forced" if "forced" in ref.table else "n_det"
        spec[key] = max(spec.get(key, 0), 2 * needed + 4)
        if spec.get("sid") == 2:
            spec["nights"] = max(spec.get("nights", 1), min(needed + 1, 8))


def _precursors(spec: dict, links: list[Link]) -> None:
    """Forced photometry before the first detection (``f.mjd < o.firstmjd``)."""
    for link in links:
        (a, column_a), column_b = link.left, link.right[1]
        if link.op in ("<", "<=") and "forced" in a.table and column_a == "mjd" and column_b == "firstmjd":
            spec["precursors"] = max(spec.get("precursors", 0), 6)


def _twin(spec: dict, companions: list[list[RowRef]], by_ref: dict[RowRef, dict]) -> None:
    """A ZTF object at the primary's position, when a companion asks for sid 0 (or for no survey)."""
    for refs in companions:
        values = [by_ref.get(ref, {}) for ref in refs]
        sids = [v["sid"] for v in values if isinstance(v.get("sid"), int | float)]
        if spec.get("sid") == 1 and (not sids or int(sids[0]) == 0):
            n_det = [int(v["n_det"]) for v in values if isinstance(v.get("n_det"), int | float)]
            spec["twin"] = {"n_det": max(n_det[0], 1)} if n_det else {}


def _finish(spec: dict) -> None:
    """The kind of source, from the class the newest classifier must give, else from the light curve asked for."""
    newest = spec.get("classes", {}).get(STAMP_CLASSIFIERS[-1]) or next(iter(spec.get("classes", {}).values()), None)
    if spec.get("sid") == 2:
        spec["kind"] = "moving"
    elif newest is not None and newest[0] is not None and newest[2] == 1:
        spec["kind"] = _KIND_OF_CLASS_ID.get(newest[0], "SN")
    elif spec.get("span", 0.0) > 120.0 or spec.get("n_det", 0) > 60 or spec.get("features"):
        spec["kind"] = "VS"
    else:
        spec["kind"] = "SN"
    if spec["kind"] in ("bogus", "moving") and spec.get("sid") != 2:
        spec["span"] = min(spec.get("span", 0.05), 0.2)
