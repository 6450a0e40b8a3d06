"""Bind chosen column values to a ZTF entity: spec overrides where the generator derives the value, patches elsewhere.

Spec overrides keep the generator's invariants (ndet is the detection count, first/last MJD are the detection
extremes, probabilities sum to 1 with rankings by probability, candids are shared by the per-alert tables).
"""

from catalog import load_catalog
from replica.engine.grounding.domains import apply_diffs
from replica.engine.grounding.worlds import Cone, RowRef, World
from replica.ztf import CATALOG
from replica.ztf.binders import bind_detection, bind_per_row
from replica.ztf.grounding.bind_probabilities import bind_probabilities
from replica.ztf.tables import TABLES

__all__ = ["PER_ROW", "bind_values"]

_DEFAULTS = {"sgscore1": 0.6, "firstmjd": 59500.0}  # value of a diff column nothing chose (others: 0.5)


def bind_values(entity, by_ref: dict[RowRef, dict], world: World, cones: list[tuple[Cone, bool]], variant: int):
    """Fill ``entity`` (spec, patches, AllWISE sources) from per-reference column values and the world's diffs."""
    apply_diffs(by_ref, world.diffs, is_span=_is_span, default=lambda column: _DEFAULTS.get(column, 0.5))
    _apply_counts(entity, world.counts)
    state = {"mjd_hint": None, "features": False, "band": set()}
    for ref, values in by_ref.items():
        if ref.table in TABLES and TABLES[ref.table].bind:
            TABLES[ref.table].bind(entity, ref.table, values, state)
    probabilities = [
        {"classifier_name": r.table, **v} if r.table in _PARTITIONS else v
        for r, v in by_ref.items()
        if r.table == "probability" or r.table in _PARTITIONS
    ]
    bind_probabilities(entity.spec, probabilities, variant)
    if {ref.table for ref in by_ref} <= {"allwise"}:
        entity.needs_object = False
    for cone, outside in cones:
        ra, dec = cone.position(outside, variant)
        if cone.ref.table == "allwise" and not entity.needs_object:
            entity.allwise.append({"ra": ra, "dec": dec})
        else:
            entity.spec.update(ra=ra, dec=dec)
    _finish(entity, state)


def _is_span(left: str, right: str) -> bool:
    """``lastmjd - firstmjd`` (or of detection MJDs): a time span."""
    return left in ("lastmjd", "mjd") and right in ("firstmjd", "mjd")


def _apply_counts(entity, counts: list[tuple[RowRef, str, float]]) -> None:
    """``GROUP BY oid HAVING count(*) > n`` over detections: the object gets enough detections."""
    for ref, op, value in counts:
        if ref.table == "detection" and op in (">", ">="):
            entity.spec["_ndet"] = max(entity.spec.get("_ndet", 0), int(value) + (op == ">") + 2)


PER_ROW = frozenset(name for name, table in TABLES.items() if table.bind in (bind_detection, bind_per_row))
"""The measurement tables: many rows per object, half of an answer's rows miss a condition."""
_PARTITIONS = frozenset(t.name for t in load_catalog(CATALOG).tables if t.partition_of == "probability")
"""Partitions of probability by classifier_name: a row of one is a probability row of that classifier."""


def _finish(entity, state: dict) -> None:
    spec = entity.spec
    if not entity.needs_object:
        if not entity.allwise:
            entity.allwise.append({"ra": 150.0, "dec": 20.0})
        for table, _, columns in entity.patches:
            if table == "allwise":
                entity.allwise[0].update(columns)
        magnitudes = {"w1mpro": spec.get("w1mpro"), "w2mpro": spec.get("_w2mpro")}
        entity.allwise[0].update({column: value for column, value in magnitudes.items() if value is not None})
        return
    if state["features"] and not spec.get("lc_class"):
        spec["lc_class"], spec["lc_p"] = "SNIa", 0.6
    if "_lastmjd" in spec:
        last = spec.pop("_lastmjd")
        if "firstmjd" in spec and spec["firstmjd"] <= last:
            spec["span"] = last - spec["firstmjd"]
        else:
            spec["firstmjd"] = last - spec.setdefault("span", 30.0)
    if state["mjd_hint"] is not None and "firstmjd" not in spec:
        spec["firstmjd"] = state["mjd_hint"] - 0.3 * min(spec.setdefault("span", 10.0), 30.0)
    if spec.get("forced") and "firstmjd" not in spec:
        spec["firstmjd"] = 60300.0
    if "_w2mpro" in spec:
        w2 = spec.pop("_w2mpro")
        spec["w1w2"] = spec.get("w1mpro", w2 + 0.3) - w2
    for band in state["band"]:
        spec[f"_need_band_{band}"] = True
