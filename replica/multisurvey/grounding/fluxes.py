"""Fluxes of grounded detections: every detection at SNR >= 5, then the levels, signs and row values asked for.

Values are set on the measured visits, before the tables and the aggregates (lsst_dia_object's means, the
features) are derived from them, so that those stay consistent with the detections.
"""

import numpy as np
import pandas as pd

__all__ = ["DETECTION_FLOOR_SNR", "adjust_fluxes"]

DETECTION_FLOOR_SNR = 5.5
"""A grounded detection is at least this many sigma (the base detects from 5)."""
_COLUMNS = ("psfflux", "psffluxerr", "scienceflux", "sciencefluxerr")


def adjust_fluxes(rng: np.random.Generator, visits: pd.DataFrame, plans: list[dict]) -> None:
    """Set the measured fluxes of grounded visits in place (``_obj`` indexes ``plans``)."""
    f = {column: visits[column].to_numpy(dtype=float, copy=True) for column in _COLUMNS}
    detected, forced = visits["is_det"].to_numpy(), visits["is_forced"].to_numpy()
    band, obj = visits["band"].to_numpy(), visits["_obj"].to_numpy()
    _detectable(rng, f, detected)
    for k, plan in enumerate(plans):
        rows = np.flatnonzero(obj == k)
        seen = rows[detected[rows]]
        if plan.get("positive"):
            f["psfflux"][seen] = np.abs(f["psfflux"][seen])
        for code, level in plan.get("flux", {}).items():
            _level(f, seen[band[seen] == code], float(level))
        for kind, satisfy, violate in plan.get("measured", []):
            chosen = rows[(detected if kind == "detection" else forced)[rows]]
            _set_rows(f, chosen[::2] if violate else chosen, satisfy)
            _set_rows(f, chosen[1::2] if violate else chosen[:0], violate)
    for column, values in f.items():
        visits[column] = values
    visits["snr"] = np.abs(f["psfflux"]) / f["psffluxerr"]


def _detectable(rng: np.random.Generator, f: dict[str, np.ndarray], detected: np.ndarray) -> None:
    """Raise the detections below the detection threshold to 5.5-9 sigma, keeping their sign."""
    flux = f["psfflux"]
    floor = rng.uniform(DETECTION_FLOOR_SNR, 9.0, len(flux)) * f["psffluxerr"]
    low = detected & (np.abs(flux) < floor)
    raised = np.where(flux < 0, -floor, floor)
    f["scienceflux"][low] += raised[low] - flux[low]
    flux[low] = raised[low]


def _weighted_mean(f: dict[str, np.ndarray], rows: np.ndarray) -> float:
    weights = 1.0 / f["psffluxerr"][rows] ** 2
    return float((weights * f["psfflux"][rows]).sum() / weights.sum())


def _level(f: dict[str, np.ndarray], rows: np.ndarray, level: float) -> None:
    """Make the weighted mean psfflux of the rows ``level``: shift them there, keep them detected, then rescale."""
    if not len(rows):
        return
    shift = level - _weighted_mean(f, rows)
    f["psfflux"][rows] += shift
    f["scienceflux"][rows] += shift
    f["psffluxerr"][rows] = np.minimum(f["psffluxerr"][rows], np.abs(f["psfflux"][rows]) / DETECTION_FLOOR_SNR)
    mean = _weighted_mean(f, rows)
    if mean > 0 and level > 0:
        for column in _COLUMNS:
            f[column][rows] *= level / mean


def _set_rows(f: dict[str, np.ndarray], rows: np.ndarray, values: dict) -> None:
    """Write per-row flux values: a flux keeps the total flux consistent, an SNR or a sign sets the flux."""
    if not len(rows) or not values:
        return
    for column in ("psffluxerr", "sciencefluxerr"):
        if isinstance(values.get(column), int | float) and values[column] > 0:
            f[column][rows] = float(values[column])
    if isinstance(values.get("psfflux"), int | float):
        f["scienceflux"][rows] += float(values["psfflux"]) - f["psfflux"][rows]
        f["psfflux"][rows] = float(values["psfflux"])
    if isinstance(values.get("scienceflux"), int | float):
        f["scienceflux"][rows] = float(values["scienceflux"])
    if isinstance(values.get("snr"), int | float):
        f["psfflux"][rows] = np.where(f["psfflux"][rows] < 0, -1.0, 1.0) * float(values["snr"]) * f["psffluxerr"][rows]
    if isinstance(values.get("isnegative"), bool):
        magnitude = np.abs(f["psfflux"][rows])
        f["psfflux"][rows] = -magnitude if values["isnegative"] else magnitude
