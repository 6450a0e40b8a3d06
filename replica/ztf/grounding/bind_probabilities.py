"""Bind probability rows to the spec: the generator then writes every classifier's probabilities consistently.

The spec names a stamp class, a light-curve class and an optional second light-curve class; the generator
derives the rows of every classifier and version from them, so probabilities sum to 1 and rankings follow.
"""

from replica.ztf import vocab
from replica.ztf.grounding.domains import categories
from replica.ztf.today import lc_class_of, today_class_of

__all__ = ["bind_probabilities"]

_LC_BETAS = tuple(beta.name for beta in vocab.LC_BETAS)
_LC_VERSIONS = (vocab.LC_VERSION, vocab.LC_VERSION_TODAY)


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


def bind_probabilities(spec: dict, refs: list[dict], variant: int) -> None:
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
    spec["today_class"] = (
        today if today in vocab.BHRF_CLASSES else today_class_of(categories("class_name", classifier)[0])
    )
    spec["today_p"] = p if p is not None else 0.55 + 0.1 * (variant % 2)
    spec["forced"] = True
    if classifier in _LC_BETAS:
        spec["lc_beta"] = True
        spec["beta_class"] = cls if cls in categories("class_name", classifier) else ""
