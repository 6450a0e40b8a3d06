"""Interactive plots for notebooks: Plotly figures of an object's light curve and of a sky view, shown inline by
Plotly's own notebook output, with a matplotlib PNG beside them for front ends without a browser (nbconvert to PDF,
a terminal)."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import plotly.graph_objects as go
    from matplotlib.figure import Figure

__all__ = ["NotebookPlot", "curve_plot", "sky_plot"]

BAND_COLOURS = {"u": "#7b3fb5", "g": "#2e8b57", "r": "#c0392b", "i": "#e67e22", "z": "#8b5a2b", "y": "#222222"}
"""Colours of the bands, as the workbench's object page draws them."""
_SYMBOLS = {"detection": "circle", "forced": "square-open"}
_PLOTLY_JSON = "application/vnd.plotly.v1+json"


@dataclasses.dataclass(frozen=True)
class NotebookPlot:
    """A Plotly figure that shows itself in notebooks, and a PNG of the same data where no browser shows it.

    Attributes:
        figure: The interactive figure (zoom, pan, hover, band toggles).
        static: Draws the matplotlib figure of the PNG (called only when the PNG is asked for).
    """

    figure: go.Figure
    static: Callable[[], Figure]

    def png(self) -> bytes:
        """The static picture as PNG bytes."""
        buffer = io.BytesIO()
        self.static().savefig(buffer, format="png", dpi=90)
        return buffer.getvalue()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        import plotly.io as pio

        # Plotly's bundle follows pio.renderers.default, which is empty outside a notebook kernel: then its JSON.
        bundle = dict(self.figure._repr_mimebundle_(include, exclude) or {})
        if not bundle:
            bundle = pio.renderers["plotly_mimetype"].to_mimebundle(self.figure.to_dict())
        return bundle | {"image/png": self.png(), "text/plain": f"<{self.figure.layout.title.text}>"}


def curve_plot(view: Any, *, unit: str = "mag", period: float | None = None) -> NotebookPlot:
    """The light curve of an ``answering.objects.ObjectView`` per band (typed loosely: that module imports this
    one): magnitude (brighter up) with non-detection limits, or flux in nJy with negative fluxes kept; folded at
    `period` days (two cycles of phase) when given."""
    import plotly.graph_objects as go

    from answering.object_html import plot_points

    if unit not in ("mag", "flux"):
        raise ValueError(f"unit {unit!r} is neither 'mag' nor 'flux'")
    points = view.points
    start = float(points["mjd"].min()) if len(points) else 0.0
    figure = go.Figure()
    for band in sorted(points["band"].dropna().unique(), key=_band_order):
        of_band = points[points["band"] == band]
        for kind, symbol in _SYMBOLS.items():
            value, error = ("mag", "mag_err") if unit == "mag" else ("flux", "flux_err")
            rows = of_band[of_band["kind"] == kind].dropna(subset=[value])
            shape = {"symbol": symbol, "start": start, "period": period}
            figure.add_traces(_traces(band, kind, rows, value=value, error=error, **shape))
        if unit == "mag":  # non-detections, and fluxes that are not positive (no magnitude: a 3-sigma limit)
            limits, value = of_band[of_band["mag"].isna()].dropna(subset=["limit_mag"]), "limit_mag"
        else:
            limits, value = of_band[of_band["kind"] == "non-detection"].dropna(subset=["flux"]), "flux"
        shape = {"symbol": "triangle-down", "start": start, "period": period}
        figure.add_traces(_traces(band, "limit", limits, value=value, error=None, **shape))
    figure.update_layout(
        title={"text": view.title},
        xaxis_title=f"phase (period {period} d)" if period else "MJD",
        yaxis={
            "title": "magnitude (AB, brighter up)" if unit == "mag" else "difference flux (nJy)",
            "autorange": "reversed" if unit == "mag" else True,
        },
        hovermode="closest",
        legend={"groupclick": "togglegroup"},
    )
    return NotebookPlot(figure, lambda: plot_points(view, unit=unit))


def sky_plot(view: Any) -> NotebookPlot:
    """An ``answering.sky_view.SkyView``'s positions (hover: label, RA, Dec) and cones, RA increasing to the left;
    the PNG is the all-sky Aitoff map of the positions."""
    import plotly.graph_objects as go

    from answering.sky import plot_sky

    positions = view.positions
    figure = go.Figure(
        go.Scattergl(
            x=positions["ra"],
            y=positions["dec"],
            mode="markers",
            name="positions",
            text=positions["label"],
            hovertemplate="%{text}<br>RA %{x:.6f}°, Dec %{y:.6f}°<extra></extra>",
        )
    )
    for cone in view.cones:
        angle = np.linspace(0, 2 * np.pi, 181)
        stretch = 1 / max(np.cos(np.radians(cone.dec)), 1e-6)
        ras = cone.ra + cone.radius_deg * np.cos(angle) * stretch
        decs = np.clip(cone.dec + cone.radius_deg * np.sin(angle), -90, 90)
        figure.add_trace(go.Scatter(x=ras, y=decs, mode="lines", name=f"cone {cone.radius_deg * 3600:.4g} arcsec"))
    half = view.fov_deg / 2
    stretch = 1 / max(np.cos(np.radians(view.dec)), 1e-6)
    figure.update_layout(
        title={"text": view.title},
        xaxis={"title": "RA (deg)", "range": [view.ra + half * stretch, view.ra - half * stretch]},
        yaxis={"title": "Dec (deg)", "range": [view.dec - half, view.dec + half]},
    )
    frame = pd.DataFrame({"ra": positions["ra"], "dec": positions["dec"]})
    return NotebookPlot(figure, lambda: plot_sky(frame, title=view.title))


def _traces(
    band: str,
    kind: str,
    rows: pd.DataFrame,
    *,
    value: str,
    error: str | None,
    symbol: str,
    start: float,
    period: float | None,
) -> list[go.Scattergl]:
    import plotly.graph_objects as go

    if rows.empty:
        return []
    mjd = rows["mjd"].to_numpy(dtype=float)
    x = [mjd] if not period else [((mjd - start) / period) % 1 + cycle for cycle in (0, 1)]
    repeat = len(x)
    colour = BAND_COLOURS.get(str(band), "#777777")
    shown = go.Scattergl(
        x=np.concatenate(x),
        y=np.tile(rows[value].to_numpy(dtype=float), repeat),
        mode="markers",
        name=f"{band} {kind}",
        legendgroup=str(band),
        customdata=np.tile(mjd, repeat),
        marker={"symbol": symbol, "color": colour, "size": 6, "opacity": 0.5 if kind == "limit" else 0.9},
        hovertemplate=f"MJD %{{customdata:.5f}}<br>{value} %{{y:.4g}}<extra>{band} {kind}</extra>",
    )
    if error:
        shown.error_y = {"type": "data", "array": np.tile(rows[error].to_numpy(dtype=float), repeat), "width": 0}
    return [shown]


def _band_order(band: str) -> tuple[int, str]:
    order = list(BAND_COLOURS)
    return (order.index(band) if band in order else len(order), str(band))
