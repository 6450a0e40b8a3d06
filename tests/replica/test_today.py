"""Today's classifiers in the generator: their classes fit the objects, their probabilities are well formed."""

import numpy as np
import pandas as pd
import pytest

from replica.ztf import vocab
from replica.ztf.objects import assign_oids, spec_for_kinds
from replica.ztf.tables import generate_chunk
from replica.ztf.today import BHRF

_N = 3000


@pytest.fixture(scope="module")
def chunk() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """A chunk of recent transients and variables (forced photometry, so today's classifiers see them all)."""
    rng = np.random.default_rng(7)
    kinds = np.array(["SN", "var", "bogus", "short"] * (_N // 4), dtype=object)
    spec = spec_for_kinds(rng, kinds, 0.3)
    spec["firstmjd"] = np.where(spec["kind"] == "var", spec["firstmjd"], rng.uniform(60700.0, 61000.0, _N))
    spec["span"] = np.minimum(spec["span"], vocab.MJD_END - 5.0 - spec["firstmjd"])
    spec["forced"] = ~spec["kind"].isin(["bogus"])
    assign_oids(spec, {}, rng, set())
    return spec, generate_chunk(rng, spec, 0, 40)


def _top_class(probability: pd.DataFrame, classifier: str) -> pd.Series:
    rows = probability[(probability["classifier_name"] == classifier) & (probability["ranking"] == 1)]
    return rows.set_index("oid")["class_name"]


def test_every_today_class_matches_the_kind_of_object(chunk):
    spec, _ = chunk
    by_kind = spec[spec["today_class"] != ""].groupby("today_class")["kind"].agg(set)
    transient, stochastic, periodic = vocab.BHRF_BRANCHES
    assert all(by_kind[name] <= {"SN", "short"} for name in transient if name in by_kind)
    assert all(by_kind[name] == {"var"} for name in stochastic + periodic if name in by_kind)
    assert {"TDE", "Microlensing", "SESN", "EA", "RRLc", "RSCVn"} <= set(by_kind.index)
    assert by_kind["TDE"] == {"SN"}


def test_a_microlensing_event_brightens_once_and_symmetrically(chunk):
    spec, tables = chunk
    lensed = spec.loc[spec["today_class"] == "Microlensing", "oid"]
    det = tables["detection"]
    assert len(lensed) >= 5
    for oid in lensed:
        curve = det[det["oid"] == oid].sort_values("mjd")
        u = (curve["mjd"] - curve["mjd"].min()) / (curve["mjd"].max() - curve["mjd"].min())
        peak = u.to_numpy()[curve["magpsf"].to_numpy().argmin()]
        assert 0.3 < peak < 0.7, oid
        early, late = curve["magpsf"][u < 0.3].mean(), curve["magpsf"][u > 0.7].mean()
        assert abs(early - late) < 0.5 * (curve["magpsf"].max() - curve["magpsf"].min()), oid
        assert (curve["isdiffpos"] > 0).mean() > 0.9, oid


def test_a_tde_is_a_transient_that_peaks_early(chunk):
    spec, tables = chunk
    tde = spec.loc[spec["today_class"] == "TDE", "oid"]
    det = tables["detection"]
    peaks = []
    for oid in tde:
        curve = det[det["oid"] == oid].sort_values("mjd")
        span = curve["mjd"].max() - curve["mjd"].min()
        peaks.append((curve["mjd"].to_numpy()[curve["magpsf"].to_numpy().argmin()] - curve["mjd"].min()) / span)
    assert len(peaks) >= 5 and np.median(peaks) < 0.35


def test_bhrf_is_hierarchical_and_each_classification_sums_to_one(chunk):
    _, tables = chunk
    p = tables["probability"]
    today = p[p["classifier_name"].str.startswith(vocab.BHRF)]
    sums = today.groupby(["oid", "classifier_name"])["probability"].sum()
    assert np.allclose(sums.to_numpy(), 1.0, atol=1e-5)
    whole = today[today["classifier_name"] == vocab.BHRF].set_index(["oid", "class_name"])["probability"]
    top = today[today["classifier_name"] == f"{vocab.BHRF}_top"].set_index(["oid", "class_name"])["probability"]
    for b, branch in enumerate(vocab.BHRF_BRANCHES):
        part = today[today["classifier_name"] == BHRF.part(b)].set_index(["oid", "class_name"])["probability"]
        top_b = top.xs(vocab.TOP[b], level="class_name")
        product = part * top_b.reindex(part.index.get_level_values("oid")).to_numpy()
        # stored on a 1e-6 grid with no two classes tied: each of 21 classes may move by a few grid steps
        assert np.allclose(product.to_numpy(), whole.reindex(part.index).to_numpy(), atol=1e-4), branch


def test_bhrf_ranks_first_the_objects_class_mostly(chunk):
    spec, tables = chunk
    top = _top_class(tables["probability"], vocab.BHRF)
    wanted = spec.set_index("oid")["today_class"].reindex(top.index)
    assert (top == wanted).mean() > 0.8


def test_the_older_lc_version_mostly_agrees_with_the_benchmarks(chunk):
    _, tables = chunk
    p = tables["probability"]
    lc = p[(p["classifier_name"] == "lc_classifier") & (p["ranking"] == 1)]
    versions = lc.pivot(index="oid", columns="classifier_version", values="class_name").dropna()
    assert len(versions) > 100
    assert (versions[vocab.LC_VERSION] == versions[vocab.LC_VERSION_TODAY]).mean() > 0.9


def test_the_stamp_beta_sees_objects_first_seen_since_2025_and_calls_some_bogus_satellites(chunk):
    spec, tables = chunk
    top = _top_class(tables["probability"], vocab.STAMP_BETA.name)
    first = spec.set_index("oid")["firstmjd"]
    assert set(top.index) == set(first.index[first >= vocab.MJD_2025])
    kinds = spec.set_index("oid")["kind"].reindex(top.index)
    assert (kinds[top == "satellite"] == "bogus").mean() > 0.8  # a low top probability may lose to the rest
    assert (top == "satellite").any()


@pytest.mark.parametrize("kind", ["asteroid", "bogus", "short"])
def test_a_chunk_some_classifiers_skip_keeps_the_column_types_of_probability(chunk, kind):
    rng = np.random.default_rng(11)
    spec = spec_for_kinds(rng, np.array([kind] * 20, dtype=object), 0.3)
    assign_oids(spec, {}, rng, set())
    probability = generate_chunk(rng, spec, 0, 40)["probability"]
    assert probability.dtypes.to_dict() == chunk[1]["probability"].dtypes.to_dict()
