"""Which visits of a diaObject are detections (difference-image SNR >= 5) and which are forced photometry."""

import numpy as np
import pandas as pd

from replica.multisurvey.cadence import LSST_CADENCE, Cadence, coverage
from replica.multisurvey.lightcurves import DETECTION_SNR, measure, true_fluxes

__all__ = ["PRECOVERY_D", "observe"]

PRECOVERY_D = 30.0  # forced photometry starts this long before the first detection
_FADED_D = {"SN": 90.0, "bogus": 20.0, "moving": 20.0}  # and stops this long after the last one (else: survey end)


def _one_night_events(rng: np.random.Generator, spec: pd.DataFrame, visits: pd.DataFrame) -> np.ndarray:
    """The bogus and moving objects' flash on one visit (bogus: up to the next two that night too): its sign, else 0."""
    kind = spec["kind"].to_numpy()[visits["_obj"].to_numpy()]
    brief = np.isin(kind, ("bogus", "moving"))
    position = visits.groupby("_obj").cumcount().to_numpy()  # of the visit among its object's visits
    counts = visits.groupby("_obj")["mjd"].transform("size").to_numpy()
    chosen = np.floor(rng.random(len(spec))[visits["_obj"].to_numpy()] * counts)
    extra = np.where(kind == "bogus", rng.integers(0, 3, len(spec))[visits["_obj"].to_numpy()], 0)
    on = brief & (position >= chosen) & (position <= chosen + extra)
    sign = np.where((kind == "bogus") & (rng.random(len(visits)) < 0.4), -1.0, 1.0)
    return np.where(on, sign, 0.0)


def _forced_window(spec: pd.DataFrame, visits: pd.DataFrame, max_forced: int) -> np.ndarray:
    bounds = visits[visits["is_det"]].groupby("_obj")["mjd"].agg(["min", "max"]).reindex(range(len(spec)))
    first, last = bounds["min"].to_numpy(), bounds["max"].to_numpy()
    after = spec["kind"].map(_FADED_D).fillna(np.inf).to_numpy()
    obj, mjd = visits["_obj"].to_numpy(), visits["mjd"].to_numpy()
    inside = (mjd >= first[obj] - PRECOVERY_D) & (mjd <= last[obj] + after[obj])
    order = pd.Series(inside.astype(int)).groupby(obj).cumsum().to_numpy()
    return inside & (order <= max_forced)


def observe(
    rng: np.random.Generator, spec: pd.DataFrame, max_forced: int, cadence: Cadence = LSST_CADENCE
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (spec of the objects detected at least once, their visits) with measured fluxes.

    The visits carry `is_det` (a detection) and `is_forced` (a forced-photometry epoch); `_obj` indexes the
    returned spec.
    """
    visits = coverage(rng, spec["ra"].to_numpy(), spec["dec"].to_numpy(), spec["deep"].to_numpy(), cadence)
    diff, template = true_fluxes(spec, visits, _one_night_events(rng, spec, visits))
    visits = visits.assign(**measure(rng, diff, template, visits["noise"].to_numpy()))
    visits["is_det"] = visits["snr"].to_numpy() >= DETECTION_SNR
    seen = np.unique(visits.loc[visits["is_det"], "_obj"].to_numpy())
    spec = spec.iloc[seen].reset_index(drop=True)
    visits = visits[np.isin(visits["_obj"].to_numpy(), seen)].reset_index(drop=True)
    visits["_obj"] = np.searchsorted(seen, visits["_obj"].to_numpy())
    visits["is_forced"] = _forced_window(spec, visits, max_forced)
    return spec, visits
