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
    ver, p = spec["stamp_ver"].to_numpy(), spec["stamp_p"].to_numpy()
    oids, classes = spec["oid"].to_numpy(), spec["stamp_class"].to_numpy()
    first, again = (ver & 1) > 0, (ver & 2) > 0
    first_version, second_version = vocab.STAMP_VERSIONS
    first_rows = flat_rows(rng, oids[first], classes[first], p[first], vocab.STAMP, first_version)
    moved = p[again]  # a copy: the second version moves the probability of the objects both versions classified
    both = ver[again] == 3
    moved[both] = np.clip(moved[both] + rng.normal(0.0, 0.03, both.sum()), 0.25, 0.98)
    return [first_rows, flat_rows(rng, oids[again], classes[again], moved, vocab.STAMP, second_version)]


def probability_rows(rng: np.random.Generator, spec: pd.DataFrame, today_rng: np.random.Generator) -> pd.DataFrame:
    """All probability rows for the objects of a spec that `today.complete_spec` completed; today's classifiers draw
    from ``today_rng``, apart, so that they leave the others' rows as they were."""
    rows = _lc_rows(rng, spec, today_rng) + _stamp_rows(rng, spec) + today.probability_rows(today_rng, spec)
    return pd.concat([r for r in rows if len(r)] or rows, ignore_index=True)  # empty frames would make oid an object
