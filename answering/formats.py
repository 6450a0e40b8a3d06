"""Positions and times as astronomers read them: sexagesimal coordinates and UTC dates of MJDs."""

from __future__ import annotations

import pandas as pd

__all__ = ["mjd_to_utc", "sexagesimal"]


def sexagesimal(ra: float, dec: float) -> str:
    """Format a position in degrees as ``hh:mm:ss.ss +dd:mm:ss.s``.

    Examples:
        >>> sexagesimal(150.0, -2.5)
        '10:00:00.00 -02:30:00.0'
        >>> sexagesimal(359.9999999, 89.99999999)
        '00:00:00.00 +90:00:00.0'
    """
    seconds = round((ra % 360.0) / 15.0 * 3600.0, 2) % 86400.0
    hours, rest = divmod(seconds, 3600.0)
    minutes, secs = divmod(rest, 60.0)
    sign = "-" if dec < 0 else "+"
    arcsec = round(abs(dec) * 3600.0, 1)
    degrees, rest = divmod(arcsec, 3600.0)
    arcmin, asec = divmod(rest, 60.0)
    return f"{int(hours):02d}:{int(minutes):02d}:{secs:05.2f} {sign}{int(degrees):02d}:{int(arcmin):02d}:{asec:04.1f}"


def mjd_to_utc(mjd: float) -> str:
    """ISO UTC time of an MJD (to the second; leap seconds ignored).

    Examples:
        >>> mjd_to_utc(61041.5)
        '2026-01-01T12:00:00'
    """
    seconds = round((mjd - 40587.0) * 86400.0)
    return pd.Timestamp(seconds, unit="s").strftime("%Y-%m-%dT%H:%M:%S")
