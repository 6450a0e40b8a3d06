"""Bind chosen column values to a ZTF entity: spec overrides where the generator derives the value, patches elsewhere.

Spec overrides keep the generator's invariants (ndet is the detection count, first/last MJD are the detection
extremes, probabilities sum to 1 with rankings by probability, candids are shared by the per-alert tables).
"""

from __future__ import annotations

from collections import defaultdict

from catalog import load_catalog
from replica.engine.grounding.domains import apply_diffs
from replica.engine.grounding.worlds import Cone, RowRef, World
from replica.ztf import CATALOG, vocab
from replica.ztf.bookkeeping import bookkeeping_frames
from replica.ztf.grounding.bind_probabilities import bind_probabilities

__all__ = ["PER_ROW", "bind_values"]

_FEATURE_FIDS: dict[str, list[int]] = defaultdict(list)
for _name, _fid in vocab.FEATURE_KEYS:
    _FEATURE_FIDS[_name].append(_fid)
_DEFAULTS = {"probability": 0.5, "sgscore1": 0.6, "classtar": 0.5, "firstmjd": 59500.0}


def bind_values(entity, by_ref: dict[RowRef, dict], world: World, cones: list[tuple[Cone, bool]], variant: int):
    """Fill ``entity`` (spec, patches, AllWISE sources) from per-reference column values and the world's diffs."""
    apply_diffs(by_ref, world.diffs, is_span=_is_span, default=lambda column: _DEFAULTS.get(column, 0.5))
    _apply_counts(entity, world.counts)
    tables = {ref.table for ref in by_ref}
    state = {"mjd_hint": None, "features": False, "band": set()}
    for ref, values in by_ref.items():
        if ref.table not in _NOT_BOUND:
            _BINDERS.get(ref.table, _patch_all)(entity, ref.table, values, state)
    probabilities = [
        {"classifier_name": r.table, **v} if r.table in _PARTITIONS else v
        for r, v in by_ref.items()
        if r.table == "probability" or r.table in _PARTITIONS
    ]
    bind_probabilities(entity.spec, probabilities, variant)
    if tables <= {"allwise"}:
        entity.needs_object = False
    for cone, outside in cones:
        _place(entity, cone, outside, variant)
    _finish(entity, state)


def _is_span(left: str, right: str) -> bool:
    """``lastmjd - firstmjd`` (or of detection MJDs): a time span."""
    return left in ("lastmjd", "mjd") and right in ("firstmjd", "mjd")


def _apply_counts(entity, counts: list[tuple[RowRef, str, float]]) -> None:
    """``GROUP BY oid HAVING count(*) > n`` over detections: the object gets enough detections."""
    for ref, op, value in counts:
        if ref.table == "detection" and op in (">", ">="):
            entity.spec["_ndet"] = max(entity.spec.get("_ndet", 0), int(value) + (op == ">") + 2)


def _patch_all(entity, table: str, values: dict, state: dict) -> None:
    columns = {k: v for k, v in values.items() if not k.startswith("_")}
    if columns:
        entity.patches.append((table, {}, columns))


def _bind_object(entity, table: str, values: dict, state: dict) -> None:
    spec, rest = entity.spec, {}
    for column, value in values.items():
        if column == "ndet":
            spec["_ndet"] = max(1, int(value))
        elif column == "firstmjd":
            spec["firstmjd"] = float(value)
        elif column == "lastmjd":
            spec["_lastmjd"] = float(value)
        elif column == "deltajd":
            spec["span"] = max(0.0, float(value))
        elif column in ("meanra", "meandec"):
            spec["ra" if column == "meanra" else "dec"] = float(value)
        elif column == "_span":
            if value:
                spec["span"] = value
        elif column in ("corrected", "stellar") and isinstance(value, bool):
            spec["distnr"] = 0.3 if (value or column == "stellar") else 2.5
            if column == "stellar":
                spec.update(distpsnr1=0.4 if value else 3.0, sgscore1=0.9 if value else 0.1)
        elif column == "reference_change" and isinstance(value, bool):
            spec["ref_change"] = value
        else:
            rest[column] = value
    if rest:
        entity.patches.append(("object", {}, rest))


def _bind_magstat(entity, table: str, values: dict, state: dict) -> None:
    spec = entity.spec
    fid = values.get("fid")
    fids = [int(fid)] if isinstance(fid, int | float) and fid in (1, 2) else [1, 2]
    rest = {}
    for column, value in values.items():
        if column == "fid":
            continue
        if column == "dmdt_first" and isinstance(value, int | float):
            for f in fids:
                spec[f"dmdt{f}"] = float(value)
        elif column == "ndet" and isinstance(value, int | float):
            spec["_ndet_g" if fids == [1] else "_ndet_r"] = max(1, int(value))
        elif column == "_span":
            if value:
                spec["span"] = max(spec.get("span", 0.0), value)
        elif column == "corrected" and isinstance(value, bool):
            spec["distnr"] = 0.3 if value else 2.5
        else:
            rest[column] = value
    state["band"].update(fids)
    if rest:
        entity.patches.append(("magstat", {"fid": fids[0]} if len(fids) == 1 else {}, rest))


def _bind_feature(entity, table: str, values: dict, state: dict) -> None:
    state["features"] = True
    version = values.get("version")
    version = version if version in vocab.FEATURE_VERSIONS else vocab.FEATURE_VERSIONS[0]
    if version != vocab.FEATURE_VERSIONS[0]:
        entity.spec["feat_old"] = True
    name = values.get("name")
    if not isinstance(name, str) or name not in _FEATURE_FIDS:
        return
    fid = values.get("fid")
    fids = _FEATURE_FIDS[name]
    fid = int(fid) if isinstance(fid, int | float) and int(fid) in fids else fids[0]
    if isinstance(values.get("value"), int | float):
        entity.patches.append(("feature", {"name": name, "fid": fid, "version": version}, {"value": values["value"]}))


def _bind_detection(entity, table: str, values: dict, state: dict) -> None:
    spec, rest = entity.spec, {}
    fid = values.get("fid")
    fid = int(fid) if isinstance(fid, int | float) and fid in (1, 2, 3) else None
    if fid in (1, 2):
        state["band"].add(fid)
    for column, value in values.items():
        if column == "fid":
            continue
        if column == "mjd" and isinstance(value, int | float):
            state["mjd_hint"] = float(value)
        elif column == "magpsf" and isinstance(value, int | float):
            spec.update(mag_lo=float(value) - 0.4, mag_hi=float(value) + 0.2, color=0.0)
        elif not column.startswith("_"):
            rest[column] = value
    if rest:
        violate = {k: v for k, v in values.get("_violate", {}).items() if k in rest}
        entity.alternating.append((table, {"fid": fid} if fid else {}, rest, violate))


def _bind_per_row(entity, table: str, values: dict, state: dict) -> None:
    if table == "forced_photometry":
        entity.spec["forced"] = True
    fid = values.get("fid")
    filt = {"fid": int(fid)} if isinstance(fid, int | float) and table != "dataquality" else {}
    rest = {k: v for k, v in values.items() if k != "fid" and not k.startswith("_")}
    if table == "forced_photometry" and isinstance(rest.get("mjd"), int | float):
        state["mjd_hint"] = float(rest.pop("mjd"))
    if rest:
        violate = {k: v for k, v in values.get("_violate", {}).items() if k in rest}
        entity.alternating.append((table, filt, rest, violate))


def _bind_ps1(entity, table: str, values: dict, state: dict) -> None:
    entity.spec["ps1_both"] = True
    state["band"].update((1, 2))
    rest = {}
    for column, value in values.items():
        if column in ("sgscore1", "distpsnr1") and isinstance(value, int | float):
            entity.spec[column] = float(value)
        elif not column.startswith("_"):
            rest[column] = value
    if rest:
        entity.patches.append((table, {}, rest))


def _bind_gaia(entity, table: str, values: dict, state: dict) -> None:
    entity.spec["has_gaia"] = True
    rest = {}
    for column, value in values.items():
        if column == "unique1" and isinstance(value, bool):
            entity.spec["gaia_unique1"] = value
        elif not column.startswith("_"):
            rest[column] = value
    if rest:
        entity.patches.append((table, {}, rest))


def _bind_ss(entity, table: str, values: dict, state: dict) -> None:
    spec = entity.spec
    for column in ("ssnamenr", "ssdistnr", "ssmagnr"):
        if values.get(column) is not None:
            spec[column] = str(values[column]) if column == "ssnamenr" else float(values[column])
    name = spec.get("ssnamenr")
    if name == "null":
        spec.update(ssdistnr=-999.0, ssmagnr=-999.0)
    elif name or "ssdistnr" in spec or "ssmagnr" in spec:
        # a named solar-system body near the object: an asteroid detection
        spec.setdefault("kind", "asteroid")
        spec.setdefault("ssdistnr", 1.0)
        spec.setdefault("ssmagnr", 18.5)
        spec.setdefault("ssnamenr", str(100000 + round(spec["ssdistnr"] * 7919 + spec["ssmagnr"] * 104729) % 500000))
    rest = {k: v for k, v in values.items() if k not in ("ssnamenr", "ssdistnr", "ssmagnr") and not k.startswith("_")}
    if rest:
        entity.patches.append((table, {}, rest))


def _bind_xmatch(entity, table: str, values: dict, state: dict) -> None:
    _cross_matched(entity, table, {k: v for k, v in values.items() if k != "catid" and not k.startswith("_")})


def _bind_allwise(entity, table: str, values: dict, state: dict) -> None:
    rest = {}
    for column, value in values.items():
        if column == "w1mpro" and isinstance(value, int | float):
            entity.spec["w1mpro"] = float(value)
        elif column == "w2mpro" and isinstance(value, int | float):
            entity.spec["_w2mpro"] = float(value)
        elif not column.startswith("_"):
            rest[column] = value
    _cross_matched(entity, table, rest)


def _cross_matched(entity, table: str, rest: dict) -> None:
    """The object has a cross-match: a named oid_catalog goes to its xmatch row, the other values to the table."""
    entity.spec["has_xmatch"] = True
    if "oid_catalog" in rest:
        entity.patches.append(("xmatch_catalog", {}, {"oid_catalog": rest.pop("oid_catalog")}))
    if rest:
        entity.patches.append((table, {}, rest))


_BINDERS = {
    "object": _bind_object,
    "magstat": _bind_magstat,
    "feature": _bind_feature,
    "detection": _bind_detection,
    "dataquality": _bind_per_row,
    "non_detection": _bind_per_row,
    "forced_photometry": _bind_per_row,
    "ps1_ztf": _bind_ps1,
    "gaia_ztf": _bind_gaia,
    "ss_ztf": _bind_ss,
    "xmatch": _bind_xmatch,
    "allwise": _bind_allwise,
}
PER_ROW = frozenset(table for table, binder in _BINDERS.items() if binder in (_bind_detection, _bind_per_row))
"""The measurement tables: many rows per object, half of an answer's rows miss a condition."""
_PARTITIONS = frozenset(t.name for t in load_catalog(CATALOG).tables if t.partition_of == "probability")
"""Partitions of probability by classifier_name: a row of one is a probability row of that classifier."""
_NOT_BOUND = {"probability", *_PARTITIONS, *load_catalog(CATALOG).rows, *bookkeeping_frames()}
"""Probability rows are bound together (``bind_probabilities``); the catalog's and the recipe's fixed tables are
not bound."""


def _place(entity, cone: Cone, outside: bool, variant: int) -> None:
    ra, dec = cone.position(outside, variant)
    if cone.ref.table == "allwise" and not entity.needs_object:
        entity.allwise.append({"ra": ra, "dec": dec})
    else:
        entity.spec.update(ra=ra, dec=dec)


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
            span = spec.get("span", 30.0)
            spec["span"] = span
            spec["firstmjd"] = last - span
    if state["mjd_hint"] is not None and "firstmjd" not in spec:
        spec["firstmjd"] = state["mjd_hint"] - 0.3 * min(spec.get("span", 10.0), 30.0)
        spec.setdefault("span", min(spec.get("span", 10.0), 30.0))
    if spec.get("forced") and "firstmjd" not in spec:
        spec["firstmjd"] = 60300.0
    if "_w2mpro" in spec:
        w2 = spec.pop("_w2mpro")
        spec["w1w2"] = spec.get("w1mpro", w2 + 0.3) - w2
    for band in state["band"]:
        spec[f"_need_band_{band}"] = True
