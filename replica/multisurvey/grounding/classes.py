"""Probability rows of grounded objects: the class, probability and rank a query asks of each stamp classifier.

Rows a query does not constrain are drawn like the base's; a constrained classifier's probabilities are built so
that the asked class has the asked probability and rank, the others share the rest, and they sum to one.

Example:
    >>> p = wished_vector(np.random.default_rng(0), 0, 0.9, 1)
    >>> int(p.argmax()), round(float(p[0]), 3), round(float(p.sum()), 6)
    (0, 0.9, 1.0)
    >>> int((wished_vector(np.random.default_rng(0), 2, 0.3, 2) > 0.3).sum())
    1
"""

import numpy as np
import pandas as pd

from replica.engine.draws import distinct_probabilities
from replica.multisurvey.classifications import probability_block, probability_rows
from replica.multisurvey.lookups import CLASS_NAMES

__all__ = ["grounded_probabilities", "wished_vector"]

Wish = tuple[int | None, float | None, int]
"""(class_id or None, probability or None, ranking) asked of one classifier."""


def wished_vector(rng: np.random.Generator, cls: int | None, p: float | None, rank: int) -> np.ndarray:
    """Class probabilities (CLASS_NAMES order) where class ``cls`` has probability ``p`` and rank ``rank``.

    A probability the rank cannot have (0.6 at rank 2) is moved to the nearest one it can.
    """
    k = len(CLASS_NAMES)
    cls = int(rng.integers(k)) if cls is None or not 0 <= cls < k else cls
    rank = int(min(max(rank, 1), k))
    if p is None:
        p = rng.uniform(0.55, 0.95) if rank == 1 else rng.uniform(0.3, 0.8) / (rank + 1)
    p = float(np.clip(p, 1.0 / k + 1e-3 if rank == 1 else 1e-4, 0.999 if rank == 1 else 0.95 / rank))
    others = [int(c) for c in rng.permutation(k) if c != cls]
    above, below = others[: rank - 1], others[rank - 1 :]
    out = np.zeros(k)
    out[cls] = p
    room_below = min(len(below) * p * rng.uniform(0.3, 0.8), 1.0 - p - len(above) * p * 1.02)
    below_total = 1.0 - p if not above else max(room_below, 0.0) if below else 0.0
    out[below] = _spread(rng, below_total, len(below), low=0.0, high=p * 0.98)
    out[above] = _spread(rng, 1.0 - p - below_total, len(above), low=p * 1.01, high=1.0)
    return distinct_probabilities(out[None, :])[0]


def _spread(rng: np.random.Generator, total: float, n: int, *, low: float, high: float) -> np.ndarray:
    """n values that sum to ``total``, each within (low, high) when the mean is, varied at random around it."""
    if n == 0:
        return np.zeros(0)
    mean = total / n
    values = total * (weights := rng.uniform(0.5, 1.5, n)) / weights.sum()
    spread = np.abs(values - mean).max()
    limit = min(mean - low, high - mean)
    if spread > 0 and limit < spread:
        values = mean + (values - mean) * max(limit, 0.0) / spread * 0.99
    return values


def grounded_probabilities(
    rng: np.random.Generator, objects: pd.DataFrame, spec: pd.DataFrame, wishes: list[dict[int, Wish]]
) -> pd.DataFrame:
    """Both stamp classifiers' rows of grounded diaObjects (object rows; spec and wishes in the same order)."""
    rows = probability_rows(rng, objects, spec)
    blocks, replaced = [], set()
    for k, wanted in enumerate(wishes):
        for classifier, (cls, p, rank) in wanted.items():
            vector = wished_vector(rng, cls, p, rank)
            blocks.append(probability_block(objects.iloc[k : k + 1], classifier, vector[None, :]))
            replaced.add((objects["oid"].iat[k], classifier))
    keys = pd.MultiIndex.from_arrays([rows["oid"], rows["classifier_id"]])
    return pd.concat([rows[~keys.isin(list(replaced))], *blocks], ignore_index=True)
