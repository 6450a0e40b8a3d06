"""The taxonomy table's rows, one per classifier and taxonomy version (the catalog file's ``rows`` hold the other
fixed tables: step, pipeline, feature_version)."""

import pandas as pd

from replica.ztf import vocab

__all__ = ["bookkeeping_frames"]


def _array(values) -> str:
    return "{" + ",".join(values) + "}"


def bookkeeping_frames() -> dict[str, pd.DataFrame]:
    """The fixed rows the recipe derives from the catalog's classifiers, by table."""
    taxonomy = pd.DataFrame(
        [
            (classifier.name, version, _array(classifier.classes))
            for classifier in vocab.CLASSIFIERS
            for version in ((classifier.taxonomy_version,) if classifier.taxonomy_version else classifier.versions)
        ],
        columns=["classifier_name", "classifier_version", "classes"],
    )
    return {"taxonomy": taxonomy}
