"""Fetch an object's light curve through an engine (guard and read-only role included) and plot it.

ZTF objects (catalog ztf) are drawn here; `object_figure` sends multi-survey objects to `answering.lsst_curves`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from answering.errors import AnsweringError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from engines import Engine

__all__ = ["BAND_NAMES", "LightCurve", "fetch_lightcurve", "lightcurve_sql", "object_figure", "plot_lightcurve"]

BAND_NAMES = {1: "g", 2: "r", 3: "i"}
"""ZTF filter ids (``fid``) and their band names."""
_BAND_COLOURS = {1: "tab:green", 2: "tab:red", 3: "tab:purple"}
_OID = re.compile(r"[A-Za-z0-9_]{1,40}")


@dataclasses.dataclass(frozen=True)
class LightCurve:
    """The detections (mjd, fid, magpsf, sigmapsf) and non-detections (mjd, fid, diffmaglim) of one object."""

    oid: str
    detections: pd.DataFrame
    non_detections: pd.DataFrame


def lightcurve_sql(oid: str) -> tuple[str, str]:
    """Return the detection and non-detection queries of one object.

    Raises:
        AnsweringError: ``oid`` is not an identifier (letters, digits and ``_`` only).

    Examples:
        >>> lightcurve_sql("ZTF20aaelulu")[1]
        "SELECT mjd, fid, diffmaglim FROM non_detection WHERE oid = 'ZTF20aaelulu' ORDER BY mjd"
    """
    if not _OID.fullmatch(oid):
        raise AnsweringError(f"{oid!r} is not an object id; give one like 'ZTF20aaelulu'.")
    return (
        f"SELECT mjd, fid, magpsf, sigmapsf FROM detection WHERE oid = '{oid}' ORDER BY mjd",
        f"SELECT mjd, fid, diffmaglim FROM non_detection WHERE oid = '{oid}' ORDER BY mjd",
    )


def fetch_lightcurve(engine: Engine, oid: str, *, timeout_s: float | None = None) -> LightCurve:
    """Run the light-curve queries of `oid` on `engine`.

    Raises:
        AnsweringError: ``oid`` is not an identifier.
        engines.errors.ExecutionError: A query failed.
    """
    detections_sql, non_detections_sql = lightcurve_sql(oid)
    detections = engine.execute(detections_sql, timeout_s=timeout_s).frame
    non_detections = engine.execute(non_detections_sql, timeout_s=timeout_s).frame
    return LightCurve(oid, detections, non_detections)


def plot_lightcurve(curve: LightCurve) -> Figure:
    """Plot magnitude against MJD per band, brighter up; non-detection limits are downward arrows."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4), layout="constrained")
    axes = figure.add_subplot()
    for fid in sorted({*curve.detections["fid"], *curve.non_detections["fid"]}):
        colour = _BAND_COLOURS.get(int(fid), "tab:gray")
        band = BAND_NAMES.get(int(fid), f"fid {fid}")
        seen = curve.detections[curve.detections["fid"] == fid]
        if len(seen):
            axes.errorbar(seen["mjd"], seen["magpsf"], yerr=seen["sigmapsf"], fmt="o", ms=4, color=colour, label=band)
        limits = curve.non_detections[curve.non_detections["fid"] == fid]
        if len(limits):
            axes.scatter(
                limits["mjd"], limits["diffmaglim"], marker="v", s=18, alpha=0.5, color=colour, label=f"{band} limit"
            )
    axes.invert_yaxis()  # magnitudes grow fainter downwards
    axes.set_xlabel("MJD")
    axes.set_ylabel("magpsf (mag)")
    axes.set_title(curve.oid)
    if axes.has_data():
        axes.legend(fontsize="small")
    else:
        axes.text(0.5, 0.5, "no detections", transform=axes.transAxes, ha="center")
    return figure


def object_figure(engine: Engine, oid: object, *, sid: int | None = None, unit: str = "flux") -> Figure:
    """Query and plot an object's light curve on `engine`, as its catalog stores it.

    ztf: magpsf per band with non-detection limits (`sid` and `unit` do not apply). multisurvey: flux (nJy) or
    AB magnitude (`unit` "mag") per LSST band with forced photometry, and a solar-system object's track.

    Raises:
        AnsweringError: The id is not one of the catalog's, or `sid`/`unit` do not apply.
        engines.errors.ExecutionError: A query failed.
    """
    if engine.catalog == "ztf":
        if sid is not None or unit != "flux":
            raise AnsweringError("ZTF light curves are magnitudes of one object id; sid and unit do not apply")
        return plot_lightcurve(fetch_lightcurve(engine, str(oid)))
    from answering.lsst_curves import fetch_flux_curve, plot_flux_curve

    return plot_flux_curve(fetch_flux_curve(engine, oid, sid), unit=unit)
