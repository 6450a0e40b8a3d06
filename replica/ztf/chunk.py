"""Generation of all object-dependent tables for one chunk of objects."""

import numpy as np
import pandas as pd

from replica.ztf import classifications, crossmatch, features, forced, photometry, summaries, today

__all__ = ["generate_chunk"]


def _wise_by_spec(spec: pd.DataFrame, xm: pd.DataFrame, wise: pd.DataFrame) -> pd.DataFrame:
    linked = xm[["oid", "oid_catalog"]].merge(wise, on="oid_catalog", how="left").set_index("oid")
    return linked.reindex(spec["oid"].to_numpy())


def generate_chunk(
    rng: np.random.Generator, spec: pd.DataFrame, gidx0: int, max_forced_rows: int, patch_detections=None
) -> dict[str, pd.DataFrame]:
    """Rows of every per-object table for the objects of `spec` (oids already assigned).

    Args:
        rng: random generator of this chunk.
        spec: object spec; today's columns are completed in place (see `today.complete_spec`).
        gidx0: global index of the chunk's first detection (makes candids unique across chunks).
        max_forced_rows: cap on forced-photometry epochs per object.
        patch_detections: optional callable applied to the detections before anything is derived from them.
    """
    today_rng = rng.spawn(1)[0]  # today's classifiers draw apart: the other tables stay as they were without them
    today.complete_spec(today_rng, spec)
    det = photometry.detection_rows(rng, spec, gidx0)
    if patch_detections is not None:
        patch_detections(det)
    first = summaries.first_detections(det, spec)
    ms = summaries.magstat_rows(rng, spec, det, first)
    obj = summaries.object_rows(rng, spec, det, first, ms)
    by_band = det.groupby(["_obj", "fid"], sort=True)
    first_band, last_band = by_band.head(1), by_band.tail(1)
    xm, wise = crossmatch.xmatch_rows(rng, spec)
    return {
        "object": obj,
        "detection": det,
        "dataquality": photometry.dataquality_rows(rng, det),
        "non_detection": photometry.non_detection_rows(rng, spec),
        "magstat": ms,
        "probability": classifications.probability_rows(rng, spec, today_rng),
        "ps1_ztf": crossmatch.ps1_rows(rng, spec, first_band),
        "gaia_ztf": crossmatch.gaia_rows(rng, spec, first),
        "ss_ztf": crossmatch.ss_rows(rng, spec, first),
        "reference": crossmatch.reference_rows(rng, spec, first_band, last_band),
        "allwise": wise,
        "xmatch": xm,
        "feature": features.feature_rows(rng, spec, obj, ms, _wise_by_spec(spec, xm, wise)),
        "forced_photometry": forced.forced_rows(rng, spec, obj, max_forced_rows),
    }
