"""Probability rows: ranked, summing to 1 per classifier and version, and hierarchical where the classifier is."""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from catalog import Classifier
from replica.engine.draws import distinct_probabilities, ranks
from replica.ztf import vocab

__all__ = ["Hierarchy", "flat_rows", "hierarchical_matrix", "hierarchy_rows"]


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


def _fixed(n_classes: int, cls: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities, mask) of rows whose class ``cls`` has probability ``p``, the other classes still 0."""
    fixed = np.eye(n_classes, dtype=bool)[cls]  # one-hot: True at each row's class
    return np.where(fixed, p[:, None], 0.0), fixed


def flat_rows(rng, oids, names, p, classifier: Classifier, version: str | None = None) -> pd.DataFrame:
    """Rows of a classifier without hierarchy (its first version unless ``version`` names another): each object's
    class (``names``) gets ``p``, the rest is spread at random."""
    classes = classifier.classes
    p_fixed, fixed = _fixed(len(classes), pd.Index(classes).get_indexer(names), p)
    w = rng.gamma(1.0, 1.0, p_fixed.shape)
    w[fixed] = 0.0
    w /= w.sum(axis=1, keepdims=True)
    rest = 1.0 - p_fixed.sum(axis=1, keepdims=True)
    return _block(oids, np.where(fixed, p_fixed, w * rest), classes, classifier.name, version or classifier.versions[0])


@dataclass(frozen=True)
class Hierarchy:
    """A hierarchical light-curve classifier and its parts.

    `name` ranks all classes, `name`_top the three branches, and `name`_transient, _stochastic and _periodic the
    classes within their branch (conditional probabilities).
    """

    name: str
    branches: tuple[tuple[str, ...], ...]

    @property
    def classes(self) -> tuple[str, ...]:
        """Every class, branch after branch (the taxonomy's order)."""
        return tuple(c for branch in self.branches for c in branch)

    @property
    def branch_of(self) -> np.ndarray:
        """Branch index (0 transient, 1 stochastic, 2 periodic) of each class, in `classes` order."""
        return np.array([b for b, branch in enumerate(self.branches) for _ in branch])

    def part(self, branch: int) -> str:
        """Name of the classifier of one branch."""
        return f"{self.name}_{vocab.BRANCH_PARTS[branch]}"


def hierarchical_matrix(rng: np.random.Generator, hierarchy: Hierarchy, classes, p, second=None, p2=None):
    """Probabilities over `hierarchy.classes`, one row per object: its class (``classes``) has probability ``p``, and
    its optional second class (``second``, "" for none) ``p2``."""
    index, branch_of = pd.Index(hierarchy.classes), hierarchy.branch_of
    m, cls = len(classes), index.get_indexer(classes)
    p_fixed, fixed = _fixed(len(index), cls, p)
    cls2 = np.full(m, -1) if second is None else index.get_indexer(second)
    has_second = cls2 >= 0
    if has_second.any():
        p_fixed[has_second, cls2[has_second]] = p2[has_second]
        fixed[has_second, cls2[has_second]] = True
    # hierarchical like the real classifier (p_lc = p_top * p_branch): the remaining mass stays mostly in the
    # class's own branch, and only a small share (mean 1/6) leaks to the classes of the other two branches
    same = branch_of[None, :] == branch_of[cls][:, None]
    alpha = np.where(has_second[:, None], 4.0, 0.8)
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


def hierarchy_rows(oids: np.ndarray, p: np.ndarray, hierarchy: Hierarchy, version: str) -> list[pd.DataFrame]:
    """Rows of the classifier, its top level and its branches, from the probabilities over all classes."""
    branch_of = hierarchy.branch_of
    top = np.stack([p[:, branch_of == b].sum(axis=1) for b in range(3)], axis=1)
    out = [
        _block(oids, p, hierarchy.classes, hierarchy.name, version),
        _block(oids, top, vocab.TOP, f"{hierarchy.name}_top", version),
    ]
    for b, classes in enumerate(hierarchy.branches):
        out.append(_block(oids, p[:, branch_of == b] / top[:, [b]], classes, hierarchy.part(b), version))
    return out
