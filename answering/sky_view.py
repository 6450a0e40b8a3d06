"""The sky view of a result or an object: its positions, the cones its SQL searches, and the centre and field of
view that hold them all (the workbench draws it with Aladin Lite; notebooks with Plotly, or a PNG)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from answering.cones import Cone, cones_of

if TYPE_CHECKING:
    from answering.notebook_plots import NotebookPlot

__all__ = ["MAX_SKY_POSITIONS", "SkyView", "sky_extent", "sky_view_of"]

MAX_SKY_POSITIONS = 20_000
"""Positions drawn at most (the first ones of the result)."""
_MIN_FOV_DEG = 2 / 60
_MARGIN = 1.3


@dataclasses.dataclass(frozen=True)
class SkyView:
    """Positions and cones on the sky, with the centre and field of view that hold them.

    Attributes:
        positions: ra, dec (deg) and label of each position drawn (at most ``MAX_SKY_POSITIONS``).
        total: Positions in the result (more than drawn when it was capped).
        cones: The cones the SQL searches.
        ra, dec: The centre (deg).
        fov_deg: The field of view's width (deg).
        title: What the view shows.
    """

    positions: pd.DataFrame
    total: int
    cones: list[Cone]
    ra: float
    dec: float
    fov_deg: float
    title: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The view as JSON-ready data (the workbench page's sky view draws this)."""
        return {
            "title": self.title,
            "positions": {key: self.positions[key].tolist() for key in ("ra", "dec", "label")},
            "total": self.total,
            "cones": [dataclasses.asdict(cone) for cone in self.cones],
            "centre": {"ra": self.ra, "dec": self.dec},
            "fov_deg": self.fov_deg,
        }

    def plot(self) -> NotebookPlot:
        """The view as an interactive Plotly chart in notebooks (a PNG where no browser shows it)."""
        from answering.notebook_plots import sky_plot

        return sky_plot(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.plot()._repr_mimebundle_(include, exclude)


def sky_view_of(ra: Any, dec: Any, labels: Any = None, *, sql: str = "", title: str = "") -> SkyView:
    """Build the sky view of positions (degrees; non-numbers dropped) and of the cones `sql` searches.

    Examples:
        >>> view = sky_view_of([150.0, 150.2], [2.0, 2.0], sql="SELECT 1 WHERE q3c_radial_query(r, d, 150.1, 2, 0.5)")
        >>> round(view.ra, 3), round(view.dec, 3), round(view.fov_deg, 2), view.cones[0].radius_deg
        (150.1, 2.0, 1.3, 0.5)
    """
    frame = pd.DataFrame({"ra": pd.to_numeric(pd.Series(ra), errors="coerce").astype(float)})
    frame["dec"] = pd.to_numeric(pd.Series(dec), errors="coerce").astype(float).to_numpy()
    frame["label"] = [str(label) for label in labels] if labels is not None else [""] * len(frame)
    frame = frame[np.isfinite(frame["ra"]) & frame["dec"].between(-90, 90)].reset_index(drop=True)
    frame["ra"] = frame["ra"] % 360.0
    cones = cones_of(sql) if sql else []
    centre_ra, centre_dec, fov = sky_extent(frame["ra"].to_numpy(), frame["dec"].to_numpy(), cones)
    shown = frame.iloc[:MAX_SKY_POSITIONS]
    return SkyView(shown, len(frame), cones, centre_ra, centre_dec, fov, title or f"{len(frame):,} positions")


def sky_extent(ra: np.ndarray, dec: np.ndarray, cones: list[Cone]) -> tuple[float, float, float]:
    """The centre (ra, dec in deg) and the field of view (deg) that hold every position and cone, with a margin.

    Examples:
        >>> sky_extent(np.array([359.5, 0.5]), np.array([0.0, 0.0]), [])
        (0.0, 0.0, 1.3)
        >>> sky_extent(np.array([]), np.array([]), [])
        (0.0, 0.0, 360.0)
    """
    ras = np.radians(np.concatenate([ra, [cone.ra for cone in cones]]))
    decs = np.radians(np.concatenate([dec, [cone.dec for cone in cones]]))
    radii = np.concatenate([np.zeros(len(ra)), [cone.radius_deg for cone in cones]])
    if not len(ras):
        return 0.0, 0.0, 360.0
    vectors = np.stack([np.cos(decs) * np.cos(ras), np.cos(decs) * np.sin(ras), np.sin(decs)], axis=1)
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    if norm < 1e-9:
        return 0.0, 0.0, 360.0
    mean /= norm
    separations = np.degrees(np.arccos(np.clip(vectors @ mean, -1.0, 1.0))) + radii
    centre_ra = float(np.degrees(np.arctan2(mean[1], mean[0])) % 360.0)
    centre_dec = float(np.degrees(np.arcsin(np.clip(mean[2], -1.0, 1.0))))
    fov = float(min(360.0, max(_MIN_FOV_DEG, 2 * _MARGIN * separations.max())))
    return round(centre_ra, 10) % 360.0, round(centre_dec, 10), round(fov, 10)
