"""probability rows: the hierarchical light-curve classifier and the stamp classifier.

Probabilities of one (oid, classifier, version) sum to 1, ranking 1 is the largest, and
p_lc(c) = p_top(branch(c)) * p_branch(c) holds exactly (before rounding to float4).
"""

import numpy as np
import pandas as pd

from db.synthetic import vocab

__all__ = ["probability_rows"]

_LC_INDEX = {c: i for i, c in enumerate(vocab.LC_CLASSES)}
_STAMP_INDEX = {c: i for i, c in enumerate(vocab.STAMP_CLASSES)}
_BRANCH = np.array(vocab.LC_BRANCH)


def _ranks(p: np.ndarray) -> np.ndarray:
    order = np.argsort(-p, axis=1, kind="stable")
    ranks = np.empty_like(order)
    rows = np.arange(p.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, p.shape[1] + 1)
    return ranks


def _block(oids: np.ndarray, p: np.ndarray, classes, name: str, version: str) -> pd.DataFrame:
    m, k = p.shape
    return pd.DataFrame(
        {
            "oid": np.repeat(oids, k),
            "class_name": np.tile(np.array(classes, dtype=object), m),
            "classifier_name": name,
            "classifier_version": version,
            "probability": p.astype(np.float32).ravel(),
            "ranking": _ranks(p).ravel(),
        }
    )


def _spread(rng, p_fixed: np.ndarray, fixed_mask: np.ndarray, weights: np.ndarray, alpha: float) -> np.ndarray:
    """Fill the non-fixed columns with the remaining mass, spread by random weights."""
    w = rng.gamma(alpha, 1.0, p_fixed.shape) * weights
    w[fixed_mask] = 0.0
    w /= w.sum(axis=1, keepdims=True)
    rest = 1.0 - p_fixed.sum(axis=1, keepdims=True)
    return np.where(fixed_mask, p_fixed, w * rest)


def lc_matrix(rng: np.random.Generator, spec: pd.DataFrame) -> np.ndarray:
    """15-class lc probabilities (rows follow spec, which must contain only lc-classified objects)."""
    m = len(spec)
    cls = spec["lc_class"].map(_LC_INDEX).to_numpy()
    p_fixed = np.zeros((m, len(vocab.LC_CLASSES)))
    fixed = np.zeros_like(p_fixed, dtype=bool)
    rows = np.arange(m)
    p_fixed[rows, cls] = spec["lc_p"].to_numpy()
    fixed[rows, cls] = True
    second = spec["lc_second"].to_numpy() != ""
    if second.any():
        idx2 = spec.loc[second, "lc_second"].map(_LC_INDEX).to_numpy()
        p_fixed[rows[second], idx2] = spec.loc[second, "lc_p2"].to_numpy()
        fixed[rows[second], idx2] = True
    weights = np.where(_BRANCH[None, :] == _BRANCH[cls][:, None], 3.0, 1.0)
    alpha = np.where(second[:, None], 4.0, 0.8)
    w = rng.gamma(alpha * np.ones_like(p_fixed), 1.0) * weights
    w[fixed] = 0.0
    w /= w.sum(axis=1, keepdims=True)
    rest = 1.0 - p_fixed.sum(axis=1, keepdims=True)
    return np.where(fixed, p_fixed, w * rest)


def _lc_rows(rng: np.random.Generator, spec: pd.DataFrame) -> list[pd.DataFrame]:
    lc = spec[spec["lc_class"] != ""]
    if lc.empty:
        return []
    oids = lc["oid"].to_numpy()
    p = lc_matrix(rng, lc)
    top = np.stack([p[:, _BRANCH == b].sum(axis=1) for b in range(3)], axis=1)
    out = [
        _block(oids, p, vocab.LC_CLASSES, "lc_classifier", vocab.LC_VERSION),
        _block(oids, top, vocab.TOP, "lc_classifier_top", vocab.LC_VERSION),
    ]
    for b, (classes, name) in enumerate(zip(vocab.BRANCHES, vocab.BRANCH_CLASSIFIERS, strict=True)):
        out.append(_block(oids, p[:, _BRANCH == b] / top[:, [b]], classes, name, vocab.LC_VERSION))
    return out


def _stamp_rows(rng: np.random.Generator, spec: pd.DataFrame) -> list[pd.DataFrame]:
    out = []
    cls = spec["stamp_class"].map(_STAMP_INDEX).to_numpy()
    ver = spec["stamp_ver"].to_numpy()
    for bit, version in ((1, vocab.STAMP_VERSIONS[0]), (2, vocab.STAMP_VERSIONS[1])):
        sel = (ver & bit) > 0
        if not sel.any():
            continue
        p1 = spec["stamp_p"].to_numpy()[sel].copy()
        if bit == 2:
            both = ver[sel] == 3
            p1[both] = np.clip(p1[both] + rng.normal(0.0, 0.03, both.sum()), 0.25, 0.98)
        m = sel.sum()
        p_fixed = np.zeros((m, len(vocab.STAMP_CLASSES)))
        fixed = np.zeros_like(p_fixed, dtype=bool)
        p_fixed[np.arange(m), cls[sel]] = p1
        fixed[np.arange(m), cls[sel]] = True
        p = _spread(rng, p_fixed, fixed, np.ones_like(p_fixed), 1.0)
        out.append(_block(spec["oid"].to_numpy()[sel], p, vocab.STAMP_CLASSES, "stamp_classifier", version))
    return out


def probability_rows(rng: np.random.Generator, spec: pd.DataFrame) -> pd.DataFrame:
    """All probability rows (6 classifiers) for the objects of `spec`."""
    return pd.concat(_lc_rows(rng, spec) + _stamp_rows(rng, spec), ignore_index=True)
