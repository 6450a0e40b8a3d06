"""The ZTF recipe's tables: how each table's rows are made for a chunk of objects, and how a grounded value binds.

``TABLES`` is read in its order when a chunk is generated, so the random draws follow it; the rows several tables
derive from (detections, per-band statistics, objects, cross-matches) are drawn first, into the ``Chunk``. Tables of
the catalog that are not in it are fixed (the catalog's rows, the taxonomy), partitions of probability, or empty.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from replica.ztf import binders, classifications, crossmatch, features, forced, photometry, summaries, today

__all__ = ["TABLES", "Table", "generate_chunk"]


@dataclass(frozen=True)
class Chunk:
    """A chunk's objects and the rows drawn for them before any table is made (``det`` has the objects' `_obj`)."""

    rng: np.random.Generator
    today_rng: np.random.Generator
    spec: pd.DataFrame
    max_forced_rows: int
    det: pd.DataFrame
    first: pd.DataFrame
    magstat: pd.DataFrame
    objects: pd.DataFrame
    xmatch: pd.DataFrame
    allwise: pd.DataFrame

    @cached_property
    def band_ends(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Each object's first and last detection in each band."""
        by_band = self.det.groupby(["_obj", "fid"], sort=True)
        return by_band.head(1), by_band.tail(1)

    def allwise_by_spec(self) -> pd.DataFrame:
        """The AllWISE source of each object of the spec (a row of NaN where it has none)."""
        linked = self.xmatch[["oid", "oid_catalog"]].merge(self.allwise, on="oid_catalog", how="left").set_index("oid")
        return linked.reindex(self.spec["oid"].to_numpy())


@dataclass(frozen=True)
class Table:
    """How one table is filled: its rows for a chunk, and the binder of a grounded value (None: bound elsewhere)."""

    rows: Callable[[Chunk], pd.DataFrame]
    bind: Callable[..., None] | None = binders.patch_all


TABLES = {
    "object": Table(lambda c: c.objects, binders.bind_object),
    "detection": Table(lambda c: c.det, binders.bind_detection),
    "dataquality": Table(lambda c: photometry.dataquality_rows(c.rng, c.det), binders.bind_per_row),
    "non_detection": Table(lambda c: photometry.non_detection_rows(c.rng, c.spec), binders.bind_per_row),
    "magstat": Table(lambda c: c.magstat, binders.bind_magstat),
    # probabilities are bound together, after every reference (``replica.ztf.grounding.bind``)
    "probability": Table(lambda c: classifications.probability_rows(c.rng, c.spec, c.today_rng), None),
    "ps1_ztf": Table(lambda c: crossmatch.ps1_rows(c.rng, c.spec, c.band_ends[0]), binders.bind_ps1),
    "gaia_ztf": Table(lambda c: crossmatch.gaia_rows(c.rng, c.spec, c.first), binders.bind_gaia),
    "ss_ztf": Table(lambda c: crossmatch.ss_rows(c.rng, c.spec, c.first), binders.bind_ss),
    "reference": Table(lambda c: crossmatch.reference_rows(c.rng, c.spec, *c.band_ends)),
    "allwise": Table(lambda c: c.allwise, binders.bind_allwise),
    "xmatch": Table(lambda c: c.xmatch, binders.bind_xmatch),
    "feature": Table(
        lambda c: features.feature_rows(c.rng, c.spec, c.objects, c.magstat, c.allwise_by_spec()),
        binders.bind_feature,
    ),
    "forced_photometry": Table(
        lambda c: forced.forced_rows(c.rng, c.spec, c.objects, c.max_forced_rows), binders.bind_per_row
    ),
}
"""Table -> how it is filled, in the order of the random draws."""


def generate_chunk(rng: np.random.Generator, spec: pd.DataFrame, gidx0: int, max_forced_rows: int) -> dict:
    """Rows of every table of ``TABLES`` for the objects of `spec` (oids already assigned; today's columns are
    completed in place, see `today.complete_spec`). `gidx0`, the global index of the chunk's first detection, makes
    candids unique across chunks; `max_forced_rows` caps the forced-photometry epochs of an object."""
    today_rng = rng.spawn(1)[0]  # today's classifiers draw apart: the other tables stay as they were without them
    today.complete_spec(today_rng, spec)
    det = photometry.detection_rows(rng, spec, gidx0)
    first = summaries.first_detections(det, spec)
    magstat = summaries.magstat_rows(rng, spec, det, first)
    objects = summaries.object_rows(rng, spec, det, first, magstat)
    xmatch, allwise = crossmatch.xmatch_rows(rng, spec)
    chunk = Chunk(rng, today_rng, spec, max_forced_rows, det, first, magstat, objects, xmatch, allwise)
    return {name: table.rows(chunk) for name, table in TABLES.items()}
