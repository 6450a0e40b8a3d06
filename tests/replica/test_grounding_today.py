"""Grounding queries on today's classifiers and versions: the grounded objects answer them, the near misses do not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from replica.engine.grounding.entities import entities_for_queries
from replica.ztf.grounding.profile import ZTF_PROFILE
from replica.ztf.grounding.rows import grounded_tables

_SCALE = {"old_feature_fraction": 0.3, "max_forced_rows": 80}


def _answers(sql_filter: str, probability: pd.DataFrame) -> set[str]:
    return set(probability.query(sql_filter)["oid"])


def _ground(sql: str) -> pd.DataFrame:
    return grounded_tables(entities_for_queries([sql], ZTF_PROFILE).entities, np.random.default_rng(0), **_SCALE)[
        "probability"
    ]


@pytest.mark.parametrize(
    ("classifier", "version", "cls"),
    [
        ("lc_classifier_BHRF_forced_phot", "2.1.0", "TDE"),
        ("lc_classifier_BHRF_forced_phot_stochastic", "2.1.0", "Microlensing"),
        ("LC_classifier_ATAT_forced_phot(beta)", "1.0.0", "SNIIb"),
        ("LC_classifier_BHRF_forced_phot(beta)", "beta", "RSCVn"),
        ("stamp_classifier_2025_beta", "beta", "satellite"),
    ],
)
def test_a_class_of_todays_classifiers_grounds_to_objects_ranked_first_in_it(classifier, version, cls):
    sql = (
        f"SELECT oid FROM probability WHERE classifier_name = '{classifier}' AND class_name = '{cls}' "
        f"AND ranking = 1 AND probability > 0.7"
    )
    probability = _ground(sql)
    wanted = (
        f"classifier_name == '{classifier}' and classifier_version == '{version}' and class_name == '{cls}' "
        "and ranking == 1 and probability > 0.7"
    )
    assert len(_answers(wanted, probability)) >= 2


def test_the_top_level_of_the_forced_photometry_classifier_grounds_to_its_branch():
    probability = _ground(
        "SELECT oid FROM probability WHERE classifier_name = 'lc_classifier_BHRF_forced_phot_top' "
        "AND class_name = 'Periodic' AND ranking = 1"
    )
    top = _answers("classifier_name == 'lc_classifier_BHRF_forced_phot_top' and class_name == 'Periodic'", probability)
    periodic = _answers("classifier_name == 'lc_classifier_BHRF_forced_phot_periodic' and ranking == 1", probability)
    assert top and top <= periodic


def test_a_version_filter_on_the_lc_classifier_grounds_answers_and_a_near_miss_of_the_other_version():
    sql = (
        "SELECT oid FROM probability WHERE classifier_name = 'lc_classifier' "
        "AND classifier_version = 'lc_classifier_1.1.13' AND class_name = 'RRL' AND ranking = 1"
    )
    probability = _ground(sql)
    lc = probability[(probability["classifier_name"] == "lc_classifier") & (probability["class_name"] == "RRL")]
    ranked_first = lc[lc["ranking"] == 1].groupby("oid")["classifier_version"].agg(set)
    assert any(versions == {"lc_classifier_1.1.13"} or "lc_classifier_1.1.13" in versions for versions in ranked_first)
    assert any(versions == {"hierarchical_rf_1.1.0"} for versions in ranked_first)
