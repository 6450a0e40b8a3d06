"""probability rows: the hierarchical light-curve classifier and the stamp classifier.

Probabilities of one (oid, classifier, version) sum to 1, ranking 1 is the largest, and
p_lc(c) = p_top(branch(c)) * p_branch(c) holds exactly (before rounding to float4).
"""

import numpy as np
import pandas as pd

from replica.synthetic import vocab

__all__ = ["distinct_probabilities", "probability_rows", "ranks"]

_LC_INDEX = {c: i for i, c in enumerate(vocab.LC_CLASSES)}
_STAMP_INDEX = {c: i for i, c in enumerate(vocab.STAMP_CLASSES)}
_BRANCH = np.array(vocab.LC_BRANCH)
_GRID = 1e-6  # probabilities are written with 6 decimals


def ranks(p: np.ndarray) -> np.ndarray:
    """Rank of each probability within its row, 1 = largest (ties keep column order)."""
    order = np.argsort(-p, axis=1, kind="stable")
    result = np.empty_like(order)
    rows = np.arange(p.shape[0])[:, None]
    result[rows, order] = np.arange(1, p.shape[1] + 1)
    return result


def distinct_probabilities(p: np.ndarray) -> np.ndarray:
    """Probabilities on the stored grid (1e-6), strictly decreasing in rank order, so that no two tie."""
    order = np.argsort(-p, axis=1, kind="stable")
    ranked = np.round(np.take_along_axis(p, order, axis=1), 6)
    ranked[:, -1] = np.maximum(ranked[:, -1], _GRID)
    for j in range(ranked.shape[1] - 2, 0, -1):
        ranked[:, j] = np.maximum(ranked[:, j], np.round(ranked[:, j + 1] + _GRID, 6))
    ranked[:, 0] = np.round(ranked[:, 0] - (ranked.sum(axis=1) - p.sum(axis=1)), 6)  # the top keeps the sum
    out = np.empty_like(ranked)
    np.put_along_axis(out, order, ranked, axis=1)
    return out


def _block(oids: np.ndarray, p: np.ndarray, classes, name: str, version: str) -> pd.DataFrame:
    m, k = p.shape
    return pd.DataFrame(
        {
            "oid": np.repeat(oids, k),
            "class_name": np.tile(np.array(classes, dtype=object), m),
            "classifier_name": name,
            "classifier_version": version,
            "probability": distinct_probabilities(p).astype(np.float32).ravel(),
            "ranking": ranks(p).ravel(),
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
    # hierarchical like the real classifier (p_lc = p_top * p_branch): the remaining mass stays mostly in the
    # class's own branch, and only a small share (mean 1/6) leaks to the classes of the other two branches
    same = _BRANCH[None, :] == _BRANCH[cls][:, None]
    alpha = np.where(second[:, None], 4.0, 0.8)
    w = rng.gamma(alpha * np.ones_like(p_fixed), 1.0)
    w[fixed] = 0.0
    rest = 1.0 - p_fixed.sum(axis=1)
    leak = rest * rng.beta(1.2, 6.0, m)
    inside, outside = np.where(same, w, 0.0), np.where(same, 0.0, w)
    inside_sum, outside_sum = inside.sum(axis=1), outside.sum(axis=1)
    leak = np.where(inside_sum > 0, leak, rest)
    share_in = np.divide(inside, inside_sum[:, None], out=np.zeros_like(w), where=inside_sum[:, None] > 0)
    share_out = np.divide(outside, outside_sum[:, None], out=np.zeros_like(w), where=outside_sum[:, None] > 0)
    spread = share_in * (rest - leak)[:, None] + share_out * leak[:, None]
    return np.where(fixed, p_fixed, spread)


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
