"""Sky geometry: LSST and ZTF footprints, the deep drilling fields, the Sun, frames and dates."""

import numpy as np

from replica.engine.draws import uniform_sky

__all__ = [
    "LSST_END_MJD",
    "LSST_START_MJD",
    "MJD_UNIX_EPOCH",
    "date_text",
    "ecliptic_to_equatorial",
    "lsst_positions",
    "offset_positions",
    "radec_of",
    "solar_elongation",
    "sun_longitude",
]

LSST_START_MJD = 60975.0  # 2025-10-27, the first LSST alerts
LSST_END_MJD = 61405.0  # 2026-12-31
OBLIQUITY_DEG = 23.4392911
# Deep drilling fields (public pointings, degrees): many more visits, hence denser light curves, than the wide survey.
DEEP_FIELDS = ((9.45, -44.0), (35.57, -4.82), (53.13, -28.10), (150.10, 2.18), (61.24, -48.42))
DEEP_FIELD_RADIUS_DEG = 1.75
_MJD_J2000 = 51544.5
MJD_UNIX_EPOCH = 40587.0


def offset_positions(ra: np.ndarray, dec: np.ndarray, dist_deg: np.ndarray, angle: np.ndarray):
    """Return positions `dist_deg` away from (ra, dec) at position angle `angle` (radians), small distances."""
    new_dec = dec + dist_deg * np.cos(angle)
    new_ra = (ra + dist_deg * np.sin(angle) / np.cos(np.radians(new_dec))) % 360.0
    return new_ra, np.clip(new_dec, -90.0, 90.0)


def lsst_positions(rng: np.random.Generator, n: int, deep_fraction: float):
    """Return (ra, dec, deep) of `n` LSST objects: the southern wide survey, and a share in the deep fields."""
    ra, dec = uniform_sky(rng, n, -75.0, 25.0)
    deep = rng.random(n) < deep_fraction
    field = np.array(DEEP_FIELDS)[rng.integers(0, len(DEEP_FIELDS), deep.sum())]
    radius = DEEP_FIELD_RADIUS_DEG * np.sqrt(rng.random(deep.sum()))
    ra[deep], dec[deep] = offset_positions(field[:, 0], field[:, 1], radius, rng.uniform(0, 2 * np.pi, deep.sum()))
    return ra, dec, deep


def radec_of(xyz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (ra, dec) in degrees of (n, 3) vectors (any length)."""
    norm = np.linalg.norm(xyz, axis=-1)
    ra = np.degrees(np.arctan2(xyz[..., 1], xyz[..., 0])) % 360.0
    return ra, np.degrees(np.arcsin(np.clip(xyz[..., 2] / norm, -1.0, 1.0)))


def ecliptic_to_equatorial(xyz: np.ndarray) -> np.ndarray:
    """Rotate (n, 3) ecliptic vectors to the equatorial frame."""
    e = np.radians(OBLIQUITY_DEG)
    x, y, z = xyz[..., 0], xyz[..., 1], xyz[..., 2]
    return np.stack([x, y * np.cos(e) - z * np.sin(e), y * np.sin(e) + z * np.cos(e)], axis=-1)


def sun_longitude(mjd: np.ndarray) -> np.ndarray:
    """Return the Sun's apparent ecliptic longitude (deg) to about 0.01 deg."""
    days = np.asarray(mjd, dtype=float) - _MJD_J2000
    mean_anomaly = np.radians(357.528 + 0.9856003 * days)
    return (280.460 + 0.9856474 * days + 1.915 * np.sin(mean_anomaly) + 0.020 * np.sin(2 * mean_anomaly)) % 360.0


def solar_elongation(ra: np.ndarray, dec: np.ndarray, mjd: np.ndarray) -> np.ndarray:
    """Return the angle (deg) between each position and the Sun, for every (position, mjd) pair: shape (n, m)."""
    r, d = np.radians(ra), np.radians(dec)
    towards = np.stack([np.cos(d) * np.cos(r), np.cos(d) * np.sin(r), np.sin(d)], axis=-1)
    lon = np.radians(sun_longitude(mjd))
    sun = ecliptic_to_equatorial(np.stack([np.cos(lon), np.sin(lon), np.zeros_like(lon)], axis=-1))
    return np.degrees(np.arccos(np.clip(towards @ sun.T, -1.0, 1.0)))


def date_text(mjd: np.ndarray) -> np.ndarray:
    """Return 'YYYY-MM-DD HH:MM:SS' strings of MJDs (UTC), as the database's text date columns.

    >>> date_text(np.array([61084.5]))[0]
    '2026-02-13 12:00:00'
    """
    seconds = np.round((np.asarray(mjd, dtype=float) - MJD_UNIX_EPOCH) * 86400.0).astype("int64")
    return np.char.replace(seconds.astype("datetime64[s]").astype(str), "T", " ").astype(object)
