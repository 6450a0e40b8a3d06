"""Find the coordinates of a result and plot them on the sky."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["COORDINATE_PAIRS", "coordinate_columns", "plot_sky"]

COORDINATE_PAIRS = (("meanra", "meandec"), ("ra", "dec"), ("ranr", "decnr"), ("ephra", "ephdec"))
"""Column names of right ascension and declination (degrees) in the ALeRCE catalogs, in order of preference."""


def coordinate_columns(frame: pd.DataFrame) -> tuple[int, int] | None:
    """Return the positions of the first numeric RA/Dec column pair of `frame`, or None.

    Examples:
        >>> coordinate_columns(pd.DataFrame({"oid": ["a"], "meanra": [1.0], "meandec": [2.0]}))
        (1, 2)
        >>> coordinate_columns(pd.DataFrame({"oid": ["a"]})) is None
        True
    """
    labels = [str(label).lower() for label in frame.columns]
    for ra, dec in COORDINATE_PAIRS:
        if ra in labels and dec in labels:
            ra_at, dec_at = labels.index(ra), labels.index(dec)
            values = frame.iloc[:, [ra_at, dec_at]].apply(pd.to_numeric, errors="coerce")
            if values.notna().all(axis=1).any():
                return ra_at, dec_at
    return None


def plot_sky(frame: pd.DataFrame, *, projection: str = "aitoff", title: str = "") -> Figure | None:
    """Plot the result's positions in an all-sky projection (RA increasing to the left, as on the sky).

    Args:
        frame: Rows with an RA/Dec column pair in degrees (``COORDINATE_PAIRS``).
        projection: ``aitoff`` or ``mollweide``.
        title: Figure title.

    Returns:
        The figure, or None when the frame has no coordinates.
    """
    from matplotlib.figure import Figure

    found = coordinate_columns(frame)
    if found is None:
        return None
    ra = pd.to_numeric(frame.iloc[:, found[0]], errors="coerce").to_numpy(dtype=float)
    dec = pd.to_numeric(frame.iloc[:, found[1]], errors="coerce").to_numpy(dtype=float)
    keep = np.isfinite(ra) & np.isfinite(dec)
    # Matplotlib's projections take longitude in [-pi, pi], east to the right; the sky's convention is mirrored.
    longitude = -np.radians(((ra[keep] + 180.0) % 360.0) - 180.0)
    figure = Figure(figsize=(7, 4), layout="constrained")
    axes = figure.add_subplot(projection=projection)
    axes.scatter(longitude, np.radians(dec[keep]), s=8, color="tab:blue", alpha=0.7)
    axes.set_xticks(np.radians([-150, -120, -90, -60, -30, 0, 30, 60, 90, 120, 150]))
    axes.set_xticklabels(["150°", "120°", "90°", "60°", "30°", "0°", "330°", "300°", "270°", "240°", "210°"])
    axes.grid(True, alpha=0.4)
    axes.set_title(title or f"{int(keep.sum())} positions (RA, Dec)", pad=20)
    return figure
