"""The ZTF catalog's recipe for the replica engine: bookkeeping rows, random objects in chunks, unmatched AllWISE."""

import logging

import numpy as np
import pandas as pd

from replica.engine.draws import allwise_sources, uniform_sky
from replica.engine.loader import Loader
from replica.engine.recipe import Recipe
from replica.ztf import vocab
from replica.ztf.grounding import ZTF_PROFILE, grounded_tables
from replica.ztf.objects import assign_oids, random_kinds, spec_for_kinds
from replica.ztf.photometry import DATAQUALITY_SQL
from replica.ztf.scales import SCALES, Scale
from replica.ztf.tables import generate_chunk

__all__ = ["RECIPE"]

log = logging.getLogger(__name__)

_ALLWISE_PIECE = 100_000


def _taxonomy() -> dict[str, pd.DataFrame]:
    """The taxonomy table's rows, one per classifier and taxonomy version (the catalog file's ``rows`` hold the other
    fixed tables: step, pipeline, feature_version)."""
    rows = [
        (classifier.name, version, "{" + ",".join(classifier.classes) + "}")
        for classifier in vocab.CLASSIFIERS
        for version in ((classifier.taxonomy_version,) if classifier.taxonomy_version else classifier.versions)
    ]
    return {"taxonomy": pd.DataFrame(rows, columns=["classifier_name", "classifier_version", "classes"])}


def _populate(loader: Loader, seed: int, scale: Scale, reserved: set[str]) -> None:
    """Random objects (none named like an object a gold query names), then AllWISE sources without a ZTF match."""
    counters: dict[int, int] = {}
    gidx = 0
    oid_rng = np.random.default_rng([seed, 1])
    for k, start in enumerate(range(0, scale.n_objects, scale.chunk_objects)):
        rng = np.random.default_rng([seed, 2, k])
        n = min(scale.chunk_objects, scale.n_objects - start)
        spec = spec_for_kinds(rng, random_kinds(rng, n), scale.old_feature_fraction)
        assign_oids(spec, counters, oid_rng, reserved)
        tables = generate_chunk(rng, spec, gidx, scale.max_forced_rows)
        loader.write(tables, rng)
        gidx += len(tables["detection"])
        log.info("chunk %d: %d objects, %d detections", k, n, len(tables["detection"]))
    wise_rng = np.random.default_rng([seed, 3])
    total = int(scale.n_objects * scale.allwise_unlinked_per_object)
    for start in range(0, total, _ALLWISE_PIECE):
        n = min(_ALLWISE_PIECE, total - start)
        ra, dec = uniform_sky(wise_rng, n, -30.0, 90.0)
        wise = allwise_sources(wise_rng, ra, dec, np.full(n, np.nan), np.full(n, np.nan))
        loader.write({"allwise": wise.drop_duplicates("oid_catalog")})


RECIPE = Recipe(
    profile=ZTF_PROFILE,
    scales=SCALES,
    fixed_rows=_taxonomy,
    populate=_populate,
    grounded_tables=lambda entities, rng, scale: grounded_tables(
        entities, rng, old_feature_fraction=scale.old_feature_fraction, max_forced_rows=scale.max_forced_rows
    ),
    drawn={"dataquality": DATAQUALITY_SQL},
    decimals=6,
    # not modelled: the outlier detector's table stays empty; parent candids, the cross-match's class and period
    null_columns=frozenset(
        {
            "detection.parent_candid",
            "forced_photometry.parent_candid",
            "outlier.class_name",
            "outlier.oid",
            "outlier.outlier_version",
            "outlier.score",
            "xmatch.class_catalog",
            "xmatch.period",
        }
    ),
)
