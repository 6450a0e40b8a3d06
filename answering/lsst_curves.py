"""Multi-survey light curves: LSST bands u g r i z y in flux (nJy) or AB magnitude, and solar-system tracks.

Detections pair ``detection`` (mjd, band, position) with ``lsst_detection`` (fluxes) on (oid, sid, measurement_id),
forced photometry pairs ``forced_photometry`` with ``lsst_forced_photometry`` the same way; bands are named through
the ``band`` lookup on (sid, band). Queries run through the answer's engine (guard and read-only role included).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from answering.errors import AnsweringError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from engines import Engine

__all__ = ["AB_ZERO_POINT", "FluxCurve", "ab_magnitude", "fetch_flux_curve", "flux_curve_sql", "plot_flux_curve"]

AB_ZERO_POINT = 31.4
"""AB magnitude of a 1 nJy source: mag = 31.4 - 2.5 log10(flux / nJy)."""
BAND_COLOURS = {"u": "tab:purple", "g": "tab:green", "r": "tab:red", "i": "tab:orange", "z": "tab:brown", "y": "k"}
SURVEYS = {0: "ZTF", 1: "LSST diaObject", 2: "LSST ssObject"}
_PAIRS = {"detections": ("detection", "lsst_detection"), "forced": ("forced_photometry", "lsst_forced_photometry")}

Unit = Literal["flux", "mag"]


@dataclasses.dataclass(frozen=True)
class FluxCurve:
    """An object's detections and forced photometry: mjd, band_name, psfflux, psffluxerr, ra, dec (nJy, deg)."""

    oid: int
    sid: int
    detections: pd.DataFrame
    forced: pd.DataFrame


def flux_curve_sql(oid: int, sid: int, which: str = "detections") -> str:
    """Return the query of an object's detections (or ``forced`` photometry) with band names and fluxes.

    Examples:
        >>> print(flux_curve_sql(7, 1))  # doctest: +NORMALIZE_WHITESPACE
        SELECT d.mjd, b.band_name, l.psfflux, l.psffluxerr, d.ra, d.dec FROM detection d
        JOIN lsst_detection l ON l.oid = d.oid AND l.sid = d.sid AND l.measurement_id = d.measurement_id
        LEFT JOIN band b ON b.sid = d.sid AND b.band = d.band WHERE d.oid = 7 AND d.sid = 1 ORDER BY d.mjd
    """
    common, lsst = _PAIRS[which]
    return (
        f"SELECT d.mjd, b.band_name, l.psfflux, l.psffluxerr, d.ra, d.dec FROM {common} d\n"
        f"JOIN {lsst} l ON l.oid = d.oid AND l.sid = d.sid AND l.measurement_id = d.measurement_id\n"
        f"LEFT JOIN band b ON b.sid = d.sid AND b.band = d.band WHERE d.oid = {oid} AND d.sid = {sid} ORDER BY d.mjd"
    )


def fetch_flux_curve(
    engine: Engine, oid: object, sid: int | None = None, *, timeout_s: float | None = None
) -> FluxCurve:
    """Run the light-curve queries of object (`oid`, `sid`); without `sid`, the survey that holds `oid`.

    Raises:
        AnsweringError: `oid` is not an integer id, `sid` not a survey, or no (or several) surveys hold the object.
        engines.errors.ExecutionError: A query failed.
    """
    number = _object_id(oid)
    if sid is None:
        sids = engine.execute(f"SELECT sid FROM object WHERE oid = {number} ORDER BY sid", timeout_s=timeout_s).frame
        found = [int(value) for value in sids["sid"]]
        if len(found) != 1:
            where = f"surveys {', '.join(map(str, found))}" if found else "no survey"
            raise AnsweringError(f"object {number} is in {where}; give its sid (0 ZTF, 1 LSST, 2 solar system)")
        sid = found[0]
    if sid not in SURVEYS:
        raise AnsweringError(f"{sid!r} is not a survey id; use 0 (ZTF), 1 (LSST diaObject) or 2 (LSST ssObject)")
    frames = {which: engine.execute(flux_curve_sql(number, sid, which), timeout_s=timeout_s).frame for which in _PAIRS}
    return FluxCurve(number, sid, frames["detections"], frames["forced"])


def ab_magnitude(flux: pd.Series, flux_err: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Convert fluxes in nJy to AB magnitudes and their errors (NaN where the flux is not positive).

    Examples:
        >>> mag, err = ab_magnitude(pd.Series([3630.78, -5.0]), pd.Series([36.3078, 1.0]))
        >>> [round(value, 3) for value in mag.fillna(-1)], round(float(err[0]), 4)
        ([22.5, -1.0], 0.0109)
    """
    flux = pd.to_numeric(flux, errors="coerce").astype(float)
    positive = flux.where(flux > 0)
    mag = AB_ZERO_POINT - 2.5 * np.log10(positive)
    err = 2.5 / np.log(10) * pd.to_numeric(flux_err, errors="coerce").astype(float) / positive
    return mag, err


def plot_flux_curve(curve: FluxCurve, *, unit: Unit = "flux", track: bool | None = None) -> Figure:
    """Plot flux (nJy) or AB magnitude against MJD per band; forced photometry as open squares.

    A solar-system object (sid 2) also gets its track on the sky, coloured by MJD (`track`: force it on or off).
    """
    from matplotlib.figure import Figure

    if unit not in ("flux", "mag"):
        raise AnsweringError(f"unit must be 'flux' or 'mag', got {unit!r}")
    with_track = curve.sid == 2 if track is None else track
    figure = Figure(figsize=(11 if with_track else 7, 4), layout="constrained")
    axes = figure.subplots(1, 2 if with_track else 1)
    light = axes[1] if with_track else axes
    _draw_bands(light, curve, unit)
    light.set_title(f"{curve.oid} ({SURVEYS[curve.sid]})")
    if with_track:
        _draw_track(figure, axes[0], curve)
    return figure


def _draw_bands(axes: Axes, curve: FluxCurve, unit: Unit) -> None:
    for frame, marker, label in ((curve.detections, "o", ""), (curve.forced, "s", " forced")):
        bands = frame["band_name"].fillna("?")
        for band in sorted(bands.unique(), key=_band_order):
            rows = frame[bands == band]
            values, errors = (
                ab_magnitude(rows["psfflux"], rows["psffluxerr"])
                if unit == "mag"
                else (rows["psfflux"], rows["psffluxerr"])
            )
            colour = BAND_COLOURS.get(str(band), "tab:gray")
            face = colour if marker == "o" else "none"
            axes.errorbar(
                rows["mjd"], values, yerr=errors, fmt=marker, ms=4, color=colour, mfc=face, label=f"{band}{label}"
            )
    axes.set_xlabel("MJD")
    if unit == "mag":
        axes.invert_yaxis()  # magnitudes grow fainter downwards
        axes.set_ylabel("AB magnitude (31.4 - 2.5 log10 flux/nJy)")
    else:
        axes.axhline(0.0, color="0.7", lw=0.8)
        axes.set_ylabel("difference flux psfFlux (nJy)")
    if axes.has_data():
        axes.legend(fontsize="small", ncols=2)
    else:
        axes.text(0.5, 0.5, "no LSST fluxes", transform=axes.transAxes, ha="center")


def _draw_track(figure: Figure, axes: Axes, curve: FluxCurve) -> None:
    rows = curve.detections.dropna(subset=["ra", "dec"])
    points = axes.scatter(rows["ra"], rows["dec"], c=rows["mjd"], s=10, cmap="viridis")
    axes.invert_xaxis()  # RA grows to the east, to the left on the sky
    axes.set_xlabel("RA (deg)")
    axes.set_ylabel("Dec (deg)")
    axes.set_title("track on the sky")
    if len(rows):
        figure.colorbar(points, ax=axes, label="MJD")


def _band_order(name: object) -> int:
    """Wavelength order (u g r i z y), unknown bands last."""
    names = list(BAND_COLOURS)
    return names.index(name) if name in names else len(names)


def _object_id(oid: object) -> int:
    try:
        return int(str(oid).strip())
    except ValueError:
        raise AnsweringError(f"{oid!r} is not an object id; multi-survey oids are integers") from None
