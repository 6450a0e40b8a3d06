"""Small reference tables: step, pipeline, feature_version, taxonomy."""

import pandas as pd

from replica.ztf import vocab

__all__ = ["bookkeeping_frames"]


def _array(values) -> str:
    return "{" + ",".join(values) + "}"


def bookkeeping_frames() -> dict[str, pd.DataFrame]:
    """Rows of the bookkeeping tables, keyed by table name (insert in this order)."""
    steps = pd.DataFrame(
        [
            (vocab.STEP_ID_CORR, "corr", "0.0.1", "bulk correction", "2020-01-01"),
            ("feature_1.1.13", "feat", "1.1.13", "lc features", "2021-06-01"),
            ("feature_1.2.1-P", "feat", "1.2.1-P", "lc features", "2023-10-01"),
            ("preprocess_1.0.0", "feat", "1.0.0", "preprocess", "2021-06-01"),
            ("lc_classifier_1.1.0", "clf", "1.1.0", "hierarchical random forest", "2021-06-01"),
            ("stamp_classifier_1.0.4", "stamp", "1.0.4", "stamp classifier", "2022-01-01"),
            ("outlier_0.0.1", "out", "0.0.1", "outlier detector", "2021-06-01"),
        ],
        columns=["step_id", "name", "version", "comments", "date"],
    )
    pipeline = pd.DataFrame(
        [
            (
                "pipeline_1.0.0",
                vocab.STEP_ID_CORR,
                "feature_1.1.13",
                "lc_classifier_1.1.0",
                "outlier_0.0.1",
                "stamp_classifier_1.0.4",
                "2021-06-01",
            ),
            (
                "pipeline_1.1.0",
                vocab.STEP_ID_CORR,
                "feature_1.2.1-P",
                "lc_classifier_1.1.0",
                "outlier_0.0.1",
                "stamp_classifier_1.0.4",
                "2023-10-01",
            ),
        ],
        columns=["pipeline_id", "step_id_corr", "step_id_feat", "step_id_clf", "step_id_out", "step_id_stamp", "date"],
    )
    fv = pd.DataFrame(
        [
            (vocab.FEATURE_VERSIONS[0], "feature_1.2.1-P", "preprocess_1.0.0"),
            (vocab.FEATURE_VERSIONS[1], "feature_1.1.13", "preprocess_1.0.0"),
            (vocab.FEATURE_VERSION_TRANSITIONAL, "feature_1.2.1-P", "preprocess_1.0.0"),
        ],
        columns=["version", "step_id_feature", "step_id_preprocess"],
    )
    taxonomy = pd.DataFrame(
        [
            (classifier.name, version, _array(classifier.classes))
            for classifier in vocab.CLASSIFIERS
            for version in ((classifier.taxonomy_version,) if classifier.taxonomy_version else classifier.versions)
        ],
        columns=["classifier_name", "classifier_version", "classes"],
    )
    return {"step": steps, "pipeline": pipeline, "feature_version": fv, "taxonomy": taxonomy}
