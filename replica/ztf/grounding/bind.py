"""Bind chosen column values to a ZTF entity: each table's binder (``replica.ztf.binders``), then the probabilities.

Probability rows set the spec's classes (stamp, light curve and its runner-up, today's) and their probabilities; the
generator derives every classifier's rows from them, so probabilities sum to 1 and rankings follow.
"""

from catalog import load_catalog
from replica.engine.grounding.domains import apply_diffs
from replica.engine.grounding.worlds import Cone, RowRef, World
from replica.ztf import CATALOG, vocab
from replica.ztf.binders import bind_detection, bind_per_row
from replica.ztf.grounding.domains import categories
from replica.ztf.tables import TABLES
from replica.ztf.today import BHRF, lc_class_of, today_class_of

__all__ = ["PER_ROW", "bind_values"]

_DEFAULTS = {"sgscore1": 0.6, "firstmjd": 59500.0}  # value of a diff column nothing chose (others: 0.5)
_LC_BETAS = tuple(beta.name for beta in vocab.LC_BETAS)
_LC_VERSIONS = (vocab.LC_VERSION, vocab.LC_VERSION_TODAY)


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
    _bind_probabilities(entity.spec, probabilities, variant)
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


def _classifier_of(values: dict) -> str:
    name = values.get("classifier_name")
    if isinstance(name, str) and name in categories("classifier_name"):
        return name
    cls = values.get("class_name")
    if cls in vocab.STAMP_CLASSES and cls not in vocab.LC_CLASSES:
        return "stamp_classifier"
    if cls in vocab.TOP:
        return "lc_classifier_top"
    return "lc_classifier"


def _bind_probabilities(spec: dict, refs: list[dict], variant: int) -> None:
    """Set the classes, probabilities and rankings the probability rows ask for in the generator's spec."""
    for values in refs:
        classifier = _classifier_of(values)
        cls, version = values.get("class_name"), values.get("classifier_version")
        rank = int(values["ranking"]) if isinstance(values.get("ranking"), int | float) else 1
        p = values.get("probability")
        p = float(p) if isinstance(p, int | float) and 0 < p < 1 else None
        if classifier == "stamp_classifier":
            _bind_stamp(spec, cls, p, version, rank)
        elif classifier == vocab.STAMP_BETA.name:
            _bind_stamp_beta(spec, cls, p, rank)
        elif classifier.startswith(vocab.BHRF) or classifier in _LC_BETAS:
            _bind_today(spec, classifier, cls, p, rank=rank, variant=variant)
        else:
            _bind_lc(spec, classifier, cls, p, rank, variant)
            if rank == 1 and version in _LC_VERSIONS and "lc_ver" not in spec:
                spec["lc_ver"] = 1 + _LC_VERSIONS.index(version)
    if spec.get("today_class"):
        spec.setdefault("lc_class", lc_class_of(spec["today_class"]))  # today's classifiers see lc-classified objects


def _bind_stamp(spec: dict, cls, p: float | None, version, rank: int) -> None:
    if rank != 1 or "stamp_class" in spec:
        return
    spec["stamp_class"] = cls if cls in vocab.STAMP_CLASSES else "SN"
    spec["stamp_p"] = p if p is not None else 0.7
    if version in vocab.STAMP_VERSIONS:
        spec["stamp_ver"] = 1 + vocab.STAMP_VERSIONS.index(version)


def _bind_lc(spec: dict, classifier: str, cls, p: float | None, rank: int, variant: int) -> None:
    if classifier == "lc_classifier_top":
        branch = vocab.BRANCHES[vocab.TOP.index(cls)] if cls in vocab.TOP else vocab.TRANSIENT
        lc_class = branch[variant % len(branch)]
    elif cls in vocab.LC_CLASSES:
        lc_class = cls
    else:
        lc_class = spec.get("lc_class") or ("SNIa" if classifier != "lc_classifier_periodic" else "RRL")
    if rank == 1:
        if "lc_class" not in spec:
            spec["lc_class"] = lc_class
            spec["lc_p"] = p if p is not None else 0.55 + 0.1 * (variant % 2)
        return
    if "lc_second" in spec:
        return
    p2 = p if p is not None else 0.3
    spec["lc_second"], spec["lc_p2"] = lc_class, p2
    if "lc_class" not in spec or spec["lc_class"] == lc_class:
        branch = next(b for b in vocab.BRANCHES if lc_class in b)
        spec["lc_class"] = next(c for c in branch if c != lc_class)
        spec["lc_p"] = min(max(p2 + 0.1, 0.5), 0.98 - p2)
    if spec.get("lc_p", 1.0) + p2 > 0.99 or spec.get("lc_p", 1.0) <= p2:
        spec["lc_p2"] = p2 = min(p2, 0.45)
        spec["lc_p"] = min(max(p2 + 0.05, spec.get("lc_p", 0.5)), 0.98 - p2)


def _bind_stamp_beta(spec: dict, cls, p: float | None, rank: int) -> None:
    if rank != 1 or "stamp_beta" in spec:
        return
    spec["stamp_beta"] = cls if cls in vocab.STAMP_BETA.classes else "SN"
    if p is not None:
        spec.setdefault("stamp_p", p)


def _bind_today(spec: dict, classifier: str, cls, p: float | None, *, rank: int, variant: int) -> None:
    """Bind a row of the forced-photometry classifiers (their second ranks are left to chance)."""
    if rank != 1 or "today_class" in spec:
        return
    if classifier == f"{vocab.BHRF}_top":
        branch = vocab.BHRF_BRANCHES[vocab.TOP.index(cls)] if cls in vocab.TOP else vocab.BHRF_BRANCHES[0]
        cls = branch[variant % len(branch)]
    today = today_class_of(cls) if isinstance(cls, str) else ""
    spec["today_class"] = today if today in BHRF.classes else today_class_of(categories("class_name", classifier)[0])
    spec["today_p"] = p if p is not None else 0.55 + 0.1 * (variant % 2)
    spec["forced"] = True
    if classifier in _LC_BETAS:
        spec["lc_beta"] = True
        spec["beta_class"] = cls if cls in categories("class_name", classifier) else ""
