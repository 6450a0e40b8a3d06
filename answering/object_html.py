"""An object's view as HTML for notebooks: the summary, its classifications, cross-matches and links, and the light
curve as a PNG (notebooks need no browser-side library; the workbench page has the interactive one)."""

from __future__ import annotations

import base64
import html
import io
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_points", "summary_html"]

_COLOURS = {"u": "tab:purple", "g": "tab:green", "r": "tab:red", "i": "tab:orange", "z": "tab:brown", "y": "k"}
_MARKERS = {"detection": "o", "forced": "s"}


def summary_html(view: Any) -> str:
    """An ``answering.objects.ObjectView`` as one HTML block (typed loosely: that module imports this one)."""
    data = view.to_dict(max_points=0)
    rows = [
        ("position", f"{_deg(view.ra)} {_deg(view.dec)} deg · {view.position}"),
        ("first detection", _when(data["first_detection"])),
        ("last detection", _when(data["last_detection"])),
        ("detections", "" if view.n_det is None else f"{view.n_det:,}"),
        ("photometric points", f"{len(view.points):,}"),
        ("period (features)", "" if view.period is None else f"{view.period:.6g} d"),
    ]
    parts = [f"<h3>{html.escape(view.title)}</h3><table>"]
    parts += [f"<tr><th>{name}</th><td>{html.escape(value)}</td></tr>" for name, value in rows]
    parts.append("</table>")
    parts += [f"<p><i>{html.escape(note)}</i></p>" for note in view.notes]
    for group in data["classifications"]:
        best = ", ".join(f"{item['class_name']} {item['probability']:.3f}" for item in group["classes"][:3])
        parts.append(
            f"<p><b>{html.escape(group['classifier'])}</b> {html.escape(group['version'])}: {html.escape(best)}</p>"
        )
    for match in view.crossmatches:
        separation = "" if match["separation_arcsec"] is None else f' at {match["separation_arcsec"]:.2f}"'
        parts.append(f"<p>{html.escape(match['catalog'])} {html.escape(match['id'] or '')}{separation}</p>")
    links = " · ".join(f'<a href="{html.escape(url)}">{html.escape(name)}</a>' for name, url in view.links.items())
    parts.append(f"<p>{links}</p>")
    if len(view.points):
        parts.append(f'<img alt="light curve" src="data:image/png;base64,{_png(plot_points(view))}">')
    return "\n".join(parts)


def plot_points(view: Any, *, unit: str = "mag") -> Figure:
    """Plot the view's points per band: magnitudes (brighter up) with limits as downward triangles, or flux (nJy)
    with negative fluxes kept."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4), layout="constrained")
    axes = figure.add_subplot()
    points = view.points
    for band in sorted(points["band"].dropna().unique()):
        colour = _COLOURS.get(str(band), "tab:gray")
        of_band = points[points["band"] == band]
        for kind, marker in _MARKERS.items():
            rows = of_band[of_band["kind"] == kind]
            value, error = ("mag", "mag_err") if unit == "mag" else ("flux", "flux_err")
            rows = rows.dropna(subset=[value])
            if len(rows):
                face = colour if kind == "detection" else "none"
                axes.errorbar(
                    rows["mjd"],
                    rows[value],
                    yerr=rows[error],
                    fmt=marker,
                    ms=4,
                    color=colour,
                    mfc=face,
                    label=f"{band} {kind}",
                )
        limits = of_band.dropna(subset=["limit_mag"])
        if unit == "mag" and len(limits):
            axes.scatter(limits["mjd"], limits["limit_mag"], marker="v", s=14, alpha=0.4, color=colour)
    if unit == "mag":
        axes.invert_yaxis()
    axes.set_xlabel("MJD")
    axes.set_ylabel("magnitude (AB)" if unit == "mag" else "difference flux (nJy)")
    axes.set_title(view.title)
    if axes.has_data():
        axes.legend(fontsize="small", ncols=2)
    return figure


def _png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _deg(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def _when(epoch: dict | None) -> str:
    return "" if epoch is None else f"MJD {epoch['mjd']:.5f} ({epoch['utc']} UTC)"
