"""Today's classifications (ztf.taxonomy and ztf.probability on ALeRCE's TAP service): each object's class in
today's taxonomy, and the probability rows of the classifiers the service added since the benchmark: the
forced-photometry BHRF, two light-curve betas, a stamp beta.

Spec columns this module completes (a grounded entity may preset them):
    lc_ver: the lc classifier versions of the object's rows, bits 1 (the benchmark's) and 2 (lc_classifier_1.1.13,
        for the objects whose features the older pipeline also computed and those seen since 2025, which today's
        pipeline classifies as the betas do); 0: derive.
    today_class: the object's class among lc_classifier_BHRF_forced_phot's ("" when it has no lc class); the
        forced-photometry classifiers classify the objects that have forced photometry.
    today_p: their probability of that class (NaN: drawn).
    lc_beta: whether the two light-curve betas (ATAT and BHRF) classified it (objects seen since 2025).
    beta_class: the class they give it (today's class, a stripped-envelope SN split into SNIbc or SNIIb).
    stamp_beta: the class stamp_classifier_2025_beta gives it ("" for objects first seen before 2025).
"""

import numpy as np
import pandas as pd

from replica.ztf import vocab
from replica.ztf.probabilities import Hierarchy, flat_rows, hierarchical_matrix, hierarchy_rows

__all__ = ["BHRF", "complete_spec", "lc_class_of", "probability_rows", "today_class_of"]

BHRF = Hierarchy(vocab.BHRF, vocab.BHRF_BRANCHES)
# today's classes an lc class splits into, with their shares (classes not listed keep their name)
_SPLITS = {
    "SNIbc": {"SESN": 1.0},
    "SNII": {"SNII": 0.8, "SNIIn": 0.2},
    "E": {"EA": 0.4, "EB/EW": 0.6},
    "RRL": {"RRLab": 0.7, "RRLc": 0.3},
    "Periodic-Other": {"Periodic-Other": 0.7, "RSCVn": 0.3},
}
_BETA_SPLITS = {"SESN": {"SNIbc": 0.85, "SNIIb": 0.15}}  # the betas' taxonomy splits stripped-envelope SNe
# the lc class an object of today's class had, for the classes the old taxonomy lacks
_LC_CLASS_OF = {part: lc for lc, shares in _SPLITS.items() for part in shares} | {"TDE": "SLSN", "Microlensing": "YSO"}
_TDE_SHARE = 0.03  # of SN-like transients: the old taxonomy had no TDE, so the lc classifier gave them a SN class
_MICROLENSING_SHARE = 0.05  # of stochastic variables: one symmetric brightening (see photometry)
_SATELLITE_SHARE = 0.3  # of bogus alerts, which the 2025 stamp beta calls satellite
_NOISE = 0.03  # how far a beta's probability of the object's class moves from its stable sibling's


def _split(rng: np.random.Generator, classes: np.ndarray, splits: dict) -> np.ndarray:
    """Each class of `splits` replaced by one of its parts, drawn with their shares."""
    out = classes.astype(object).copy()
    u = rng.random(len(classes))
    for name, shares in splits.items():
        m = classes == name
        drawn = np.searchsorted(np.cumsum(list(shares.values())), u[m], side="right")
        out[m] = np.array(list(shares), dtype=object)[np.minimum(drawn, len(shares) - 1)]
    return out


def lc_class_of(today_class: str) -> str:
    """The benchmark's lc class of an object whose class in today's taxonomy is `today_class`."""
    return _LC_CLASS_OF.get(today_class, today_class)


def today_class_of(beta_class: str) -> str:
    """Today's class (lc_classifier_BHRF_forced_phot's) of an object a beta gives `beta_class`."""
    return next((name for name, shares in _BETA_SPLITS.items() if beta_class in shares), beta_class)


def complete_spec(rng: np.random.Generator, spec: pd.DataFrame) -> None:
    """Fill today's columns where the spec leaves them open (see the module docstring)."""
    kind, lc_class = spec["kind"].to_numpy(), spec["lc_class"].to_numpy()
    last = spec["firstmjd"].to_numpy() + spec["span"].to_numpy()
    today_lc = spec["feat_old"].to_numpy(dtype=bool) | (last >= vocab.MJD_2025)
    spec["lc_ver"] = spec["lc_ver"].mask(spec["lc_ver"] == 0, 1 + 2 * today_lc).astype(np.int64)
    u = rng.random(len(spec))
    today = _split(rng, lc_class, _SPLITS)
    today[(kind == "SN") & np.isin(lc_class, vocab.TRANSIENT) & (u < _TDE_SHARE)] = "TDE"
    today[(kind == "var") & np.isin(lc_class, vocab.STOCHASTIC) & (u < _MICROLENSING_SHARE)] = "Microlensing"
    spec["today_class"] = spec["today_class"].mask(spec["today_class"] == "", today)
    drawn = 0.2 + 0.78 * rng.beta(1.8, 2.6, len(spec))
    spec["today_p"] = spec["today_p"].fillna(pd.Series(drawn, index=spec.index))
    recent = spec["forced"].to_numpy(dtype=bool) & (last >= vocab.MJD_2025)
    spec["lc_beta"] = (spec["lc_beta"].to_numpy(dtype=bool) | recent) & (spec["today_class"].to_numpy() != "")
    beta = _split(rng, spec["today_class"].to_numpy(), _BETA_SPLITS)
    spec["beta_class"] = spec["beta_class"].mask(spec["beta_class"] == "", beta)
    stamp = spec["stamp_class"].to_numpy().astype(object)
    stamp[(kind == "bogus") & (rng.random(len(spec)) < _SATELLITE_SHARE)] = "satellite"
    open_ = (spec["stamp_beta"] == "") & (spec["firstmjd"] >= vocab.MJD_2025)
    spec["stamp_beta"] = spec["stamp_beta"].mask(open_, stamp)


def _moved(rng: np.random.Generator, p: np.ndarray) -> np.ndarray:
    return np.clip(p + rng.normal(0.0, _NOISE, len(p)), 0.2, 0.98)


def probability_rows(rng: np.random.Generator, spec: pd.DataFrame) -> list[pd.DataFrame]:
    """Probability rows of today's classifiers for the objects of a completed spec (see `complete_spec`)."""
    bhrf = spec[(spec["today_class"] != "") & spec["forced"].astype(bool)]
    bhrf_p = hierarchical_matrix(rng, BHRF, bhrf["today_class"].to_numpy(), bhrf["today_p"].to_numpy())
    rows = hierarchy_rows(bhrf["oid"].to_numpy(), bhrf_p, BHRF, vocab.BHRF_VERSION)
    lc_beta = spec[spec["lc_beta"].astype(bool)]
    oids, classes, beta_p = lc_beta["oid"].to_numpy(), lc_beta["beta_class"].to_numpy(), lc_beta["today_p"].to_numpy()
    rows += [flat_rows(rng, oids, classes, _moved(rng, beta_p), beta) for beta in vocab.LC_BETAS]
    stamp = spec[spec["stamp_beta"] != ""]
    stamp_p = _moved(rng, stamp["stamp_p"].to_numpy())
    return [*rows, flat_rows(rng, stamp["oid"].to_numpy(), stamp["stamp_beta"].to_numpy(), stamp_p, vocab.STAMP_BETA)]
