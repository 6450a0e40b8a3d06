"""probability rows of the benchmark's classifiers: the hierarchical light-curve classifier and the stamp classifier.

Probabilities of one (oid, classifier, version) sum to 1, ranking 1 is the largest, and
p_lc(c) = p_top(branch(c)) * p_branch(c) holds exactly (before rounding to float4). The lc classifier's second version
(lc_classifier_1.1.13) is the first one's probabilities slightly moved, for the objects whose spec sets bit 2 of
``lc_ver`` (see `today`); today's other classifiers are in `today`.
"""

import numpy as np
import pandas as pd

from replica.ztf import today, vocab
from replica.ztf.probabilities import Hierarchy, flat_rows, hierarchical_matrix, hierarchy_rows

__all__ = ["probability_rows"]

_LC = Hierarchy("lc_classifier", vocab.BRANCHES)
_VERSION_SPREAD = 0.1  # log-normal scatter between the two lc versions' probabilities of a class


def _lc_rows(rng: np.random.Generator, spec: pd.DataFrame, today_rng: np.random.Generator) -> list[pd.DataFrame]:
    lc = spec[spec["lc_class"] != ""]
    oids, versions = lc["oid"].to_numpy(), lc["lc_ver"].to_numpy()
    classes, second = lc["lc_class"].to_numpy(), lc["lc_second"].to_numpy()
    p = hierarchical_matrix(rng, _LC, classes, lc["lc_p"].to_numpy(), second, lc["lc_p2"].to_numpy())
    first, again = (versions & 1) > 0, (versions & 2) > 0
    moved = p[again] * today_rng.lognormal(0.0, _VERSION_SPREAD, p[again].shape)
    moved /= moved.sum(axis=1, keepdims=True)
    rows = hierarchy_rows(oids[first], p[first], _LC, vocab.LC_VERSION)
    return rows + hierarchy_rows(oids[again], moved, _LC, vocab.LC_VERSION_TODAY)


def _stamp_rows(rng: np.random.Generator, spec: pd.DataFrame) -> list[pd.DataFrame]:
    out = []
    ver = spec["stamp_ver"].to_numpy()
    for bit, version in zip((1, 2), vocab.STAMP_VERSIONS, strict=True):
        sel = (ver & bit) > 0
        p1 = spec["stamp_p"].to_numpy()[sel].copy()
        if bit == 2:
            both = ver[sel] == 3
            p1[both] = np.clip(p1[both] + rng.normal(0.0, 0.03, both.sum()), 0.25, 0.98)
        oids, classes = spec["oid"].to_numpy()[sel], spec["stamp_class"].to_numpy()[sel]
        out.append(flat_rows(rng, oids, classes, p1, vocab.STAMP, version))
    return out


def probability_rows(rng: np.random.Generator, spec: pd.DataFrame, today_rng: np.random.Generator) -> pd.DataFrame:
    """All probability rows for the objects of a spec that `today.complete_spec` completed; today's classifiers draw
    from ``today_rng``, apart, so that they leave the others' rows as they were."""
    rows = _lc_rows(rng, spec, today_rng) + _stamp_rows(rng, spec) + today.probability_rows(today_rng, spec)
    return pd.concat([r for r in rows if len(r)] or rows, ignore_index=True)  # empty frames would make oid an object
