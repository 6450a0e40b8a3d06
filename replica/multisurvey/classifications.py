"""probability rows of the two LSST stamp classifiers: five classes, summing to 1, ranked, version codes.

Both classifiers see every Rubin object (ALeRCE_LSST_Tables c65). The newest one finds the true class more often;
the older one agrees with it most of the time. Known solar-system objects get asteroid = 1 from both.
"""

import numpy as np
import pandas as pd

from replica.engine.draws import distinct_probabilities, ranks
from replica.multisurvey.lookups import CLASS_NAMES, STAMP_CLASSIFIERS, class_id, classifier_version_code

__all__ = ["TRUE_CLASS", "probability_block", "probability_rows", "solar_system_probability_rows"]

TRUE_CLASS = {"SN": "SN", "AGN": "AGN", "VS": "VS", "moving": "asteroid", "bogus": "bogus"}
# Which wrong class a stamp classifier picks instead of the true one, per true class (CLASS_NAMES order).
_CONFUSION = {
    "SN": (0.0, 0.35, 0.25, 0.0, 0.40),
    "AGN": (0.6, 0.0, 0.3, 0.0, 0.1),
    "VS": (0.3, 0.3, 0.0, 0.0, 0.4),
    "asteroid": (0.4, 0.0, 0.0, 0.0, 0.6),
    "bogus": (0.5, 0.0, 0.2, 0.3, 0.0),
}


def _top_class(rng: np.random.Generator, truth: np.ndarray, hit_rate: float) -> np.ndarray:
    top = truth.copy()
    miss = rng.random(len(truth)) > hit_rate
    for k, name in enumerate(CLASS_NAMES):
        m = miss & (truth == k)
        top[m] = rng.choice(len(CLASS_NAMES), size=m.sum(), p=np.array(_CONFUSION[name]))
    return top


def _matrix(rng: np.random.Generator, top: np.ndarray) -> np.ndarray:
    n, k = len(top), len(CLASS_NAMES)
    p_top = 0.35 + 0.64 * rng.beta(2.5, 1.5, n)
    rest = rng.gamma(0.7, 1.0, (n, k))
    rest[np.arange(n), top] = 0.0
    rest = rest / rest.sum(axis=1, keepdims=True) * (1.0 - p_top)[:, None]
    rest[np.arange(n), top] = p_top
    return distinct_probabilities(rest)


def probability_block(objects: pd.DataFrame, classifier: int, p: np.ndarray) -> pd.DataFrame:
    """Return one classifier's rows for objects (object rows) whose class probabilities are the rows of `p`."""
    n, k = p.shape
    return pd.DataFrame(
        {
            "oid": np.repeat(objects["oid"].to_numpy(), k),
            "sid": np.repeat(objects["sid"].to_numpy(), k),
            "classifier_id": classifier,
            "classifier_version": classifier_version_code(classifier),
            "class_id": np.tile([class_id(classifier, name) for name in CLASS_NAMES], n),
            "probability": p.astype(np.float32).ravel(),
            "ranking": ranks(p).ravel(),
            "lastmjd": np.repeat(objects["lastmjd"].to_numpy(), k),
        }
    )


def probability_rows(rng: np.random.Generator, objects: pd.DataFrame, spec: pd.DataFrame) -> pd.DataFrame:
    """Return the rows of both stamp classifiers for diaObjects (object rows and their spec, same order)."""
    truth = spec["kind"].map(TRUE_CLASS).map({name: k for k, name in enumerate(CLASS_NAMES)}).to_numpy()
    newest = _top_class(rng, truth, hit_rate=0.85)
    older = np.where(rng.random(len(truth)) < 0.8, newest, _top_class(rng, truth, hit_rate=0.75))
    tops = dict(zip(STAMP_CLASSIFIERS, (older, newest), strict=True))
    return pd.concat([probability_block(objects, c, _matrix(rng, top)) for c, top in tops.items()], ignore_index=True)


def solar_system_probability_rows(objects: pd.DataFrame) -> pd.DataFrame:
    """Return asteroid = 1 (ranking 1; the other classes 0, ranked in class order) from both classifiers."""
    p = np.zeros((len(objects), len(CLASS_NAMES)))
    p[:, CLASS_NAMES.index("asteroid")] = 1.0
    return pd.concat([probability_block(objects, c, p) for c in STAMP_CLASSIFIERS], ignore_index=True)
