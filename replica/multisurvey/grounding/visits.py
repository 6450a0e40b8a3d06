"""Visits of grounded objects: the epochs, bands and fluxes their spec asks for, measured like the base's.

A base object's detections are whatever its cadence and light curve give; a grounded object's are chosen: so many
detections between its first and last MJD, in the bands asked for, every one at SNR >= 5, with forced photometry
(before the first detection too, when asked) and the flux level, signs and per-row flux values the query needs.
"""

import numpy as np
import pandas as pd

from replica.multisurvey.cadence import LSST_CADENCE, VISIT_SLOT_D, Cadence, snap_to_visits
from replica.multisurvey.dia_sources import PRECOVERY_D
from replica.multisurvey.grounding.fluxes import adjust_fluxes
from replica.multisurvey.lightcurves import measure, true_fluxes

__all__ = ["grounded_visits", "plan_defaults"]

_SPAN_D = {"SN": (25.0, 80.0), "VS": (120.0, 300.0), "AGN": (120.0, 300.0), "bogus": (0.01, 0.15), "moving": (0.0, 0.0)}


def plan_defaults(rng: np.random.Generator, spec: dict, cadence: Cadence) -> dict:
    """The spec with n_det, firstmjd and span decided (asked for, else drawn for its kind), within the survey."""
    plan = dict(spec)
    kind = plan.get("kind", "SN")
    n_det = plan.get("n_det") or (1 if kind == "moving" else int(rng.integers(8, 30)))
    n_det = max(n_det, sum(plan.get("bands", {}).values()), 1)
    low, high = _SPAN_D.get(kind, _SPAN_D["SN"])
    survey = cadence.end_mjd - cadence.start_mjd - 12.0
    span = float(np.clip(plan.get("span", rng.uniform(low, high)), 0.0, survey))
    if "lastmjd" in plan and "firstmjd" in plan and plan["lastmjd"] >= plan["firstmjd"]:
        span = plan["lastmjd"] - plan["firstmjd"]
    first = plan.get("firstmjd")
    if first is None and "lastmjd" in plan:
        first = plan["lastmjd"] - span
    if first is None and "mjd_hint" in plan:
        span = min(span, 30.0)
        first = plan["mjd_hint"] - 0.3 * span
    if first is None:
        first = rng.uniform(cadence.start_mjd + 5.0, max(cadence.end_mjd - span - 5.0, cadence.start_mjd + 5.0))
    first = float(np.clip(first, cadence.start_mjd, cadence.end_mjd - 6.0))
    span = float(np.clip(span, 0.0, cadence.end_mjd - first))
    plan.update(n_det=int(n_det), firstmjd=first, span=span if n_det > 1 else 0.0)
    return plan


def _epochs(rng: np.random.Generator, plan: dict) -> np.ndarray:
    """n_det distinct epochs from firstmjd to firstmjd + span (both included)."""
    n, first, span = plan["n_det"], plan["firstmjd"], plan["span"]
    inner = np.sort(rng.uniform(first, first + span, max(n - 2, 0)))
    times = snap_to_visits(np.concatenate([[first], inner, [first + span]])[:n])
    steps = np.arange(n) * VISIT_SLOT_D  # distinct visits: each at least one slot after the one before
    return np.maximum.accumulate(times - steps) + steps


def _bands(rng: np.random.Generator, plan: dict, n: int, cadence: Cadence) -> np.ndarray:
    """Band names of n detections: a single band when one is asked for, else the bands asked for, then at random."""
    codes = {code: name for name, code in cadence.band_codes.items()}
    if plan.get("only_band") in codes:
        return np.full(n, codes[plan["only_band"]])
    chosen = [codes[band] for band, count in plan.get("bands", {}).items() if band in codes for _ in range(count)]
    rest = cadence.bands(rng, max(n - len(chosen), 0))
    return rng.permutation(np.concatenate([np.array(chosen, dtype=rest.dtype), rest]))[:n]


def _forced_epochs(rng: np.random.Generator, plan: dict, detections: np.ndarray) -> np.ndarray:
    """Epochs of forced photometry: precursors, then the detection epochs, then later epochs, n_forced in all."""
    first = plan["firstmjd"]
    precursors = np.sort(first - rng.uniform(0.5, PRECOVERY_D, plan.get("precursors", 0)))
    wanted = plan.get("n_forced")
    wanted = len(detections) + int(rng.integers(0, 6)) if wanted is None else int(wanted)
    later = first + plan["span"] + np.cumsum(rng.uniform(1.0, 4.0, max(wanted - len(detections) - len(precursors), 0)))
    epochs = np.concatenate([snap_to_visits(precursors), detections, snap_to_visits(later)])
    return epochs[: max(wanted, len(precursors))]


def grounded_visits(
    rng: np.random.Generator, spec: pd.DataFrame, plans: list[dict], cadence: Cadence = LSST_CADENCE
) -> pd.DataFrame:
    """Return the measured visits (`_obj` indexes `spec` and the `plan_defaults` plans) with is_det and is_forced."""
    frames = []
    for k, plan in enumerate(plans):
        detections = _epochs(rng, plan)
        forced = _forced_epochs(rng, plan, detections)
        mjd = np.unique(np.concatenate([detections, forced]))
        is_det = np.isin(mjd, detections)
        band_name = cadence.bands(rng, len(mjd))
        band_name[is_det] = _bands(rng, plan, int(is_det.sum()), cadence)
        is_forced = np.isin(mjd, forced)
        frames.append(
            pd.DataFrame({"_obj": k, "mjd": mjd, "is_det": is_det, "is_forced": is_forced, "band_name": band_name})
        )
    visits = cadence.in_bands(rng, pd.concat(frames, ignore_index=True))
    brief = np.isin(spec["kind"].to_numpy()[visits["_obj"].to_numpy()], ("bogus", "moving"))
    diff, template = true_fluxes(spec, visits, np.where(brief & visits["is_det"].to_numpy(), 1.0, 0.0))
    visits = visits.assign(**measure(rng, diff, template, visits["noise"].to_numpy()))
    adjust_fluxes(rng, visits, plans)
    return visits
