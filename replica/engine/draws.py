"""Draws both catalogs make alike: sky positions, galactic coordinates, AllWISE sources, ZTF candids, probabilities."""

import numpy as np
import pandas as pd

from catalog.ztf_names import ztf_name

__all__ = [
    "GROUNDED_GIDX",
    "allwise_sources",
    "candid_of",
    "designation",
    "distinct_probabilities",
    "galactic",
    "grounded_ztf_name",
    "pid_of",
    "ranks",
    "uniform_sky",
]

# equatorial (J2000) -> galactic rotation matrix
_ROT = np.array(
    [
        [-0.0548755604, -0.8734370902, -0.4838350155],
        [0.4941094279, -0.4448296300, 0.7469822445],
        [-0.8676661490, -0.1980763734, 0.4559837762],
    ]
)
_GRID = 1e-6  # probabilities are written with 6 decimals


def uniform_sky(rng: np.random.Generator, n: int, dec_min: float, dec_max: float) -> tuple[np.ndarray, np.ndarray]:
    """Return `n` positions (deg) uniform on the sphere between two declinations."""
    ra = rng.uniform(0.0, 360.0, n)
    dec = np.degrees(np.arcsin(rng.uniform(np.sin(np.radians(dec_min)), np.sin(np.radians(dec_max)), n)))
    return ra, dec


def galactic(ra: np.ndarray, dec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Galactic (l, b) in degrees of equatorial positions in degrees."""
    r, d = np.radians(ra), np.radians(dec)
    xyz = np.stack([np.cos(d) * np.cos(r), np.cos(d) * np.sin(r), np.sin(d)])
    g = _ROT @ xyz
    return np.degrees(np.arctan2(g[1], g[0])) % 360.0, np.degrees(np.arcsin(np.clip(g[2], -1, 1)))


def designation(ra: np.ndarray, dec: np.ndarray) -> list[str]:
    """AllWISE names 'Jhhmmss.ss+ddmmss.s' (truncated, as in the catalogue)."""
    pairs = zip(np.asarray(ra, dtype=float), np.asarray(dec, dtype=float), strict=True)
    return [f"J{_sexagesimal(r / 15.0, 2)}{'-' if d < 0 else '+'}{_sexagesimal(abs(d), 1)}" for r, d in pairs]


def _sexagesimal(value: float, decimals: int) -> str:
    """'ddmmss.s' of a non-negative value, each part truncated (the seconds to ``decimals`` places)."""
    seconds = np.floor(((value * 60) % 1) * 60 * 10**decimals) / 10**decimals  # width: 2 digits, point, decimals
    return f"{int(value):02d}{int((value % 1) * 60):02d}{seconds:0{decimals + 3}.{decimals}f}"


def allwise_sources(rng: np.random.Generator, ra: np.ndarray, dec: np.ndarray, w1: np.ndarray, w1w2: np.ndarray):
    """allwise rows at the given positions; NaN w1/w1w2 are drawn at random."""
    n = len(ra)
    w1 = np.where(np.isnan(w1), rng.uniform(10.0, 16.5, n), w1)
    w1w2 = np.where(np.isnan(w1w2), np.clip(rng.normal(0.05, 0.12, n), -0.3, 0.6), w1w2)
    w2 = w1 - w1w2
    w3 = np.clip(w2 - rng.uniform(0.3, 3.0, n), 3.0, 12.5)
    w4 = np.clip(w3 - rng.uniform(0.3, 3.0, n), 0.0, 9.0)
    upper = rng.random(n) < 0.3
    df = pd.DataFrame(
        {
            "oid_catalog": designation(ra, dec),
            "ra": ra,
            "dec": dec,
            "w1mpro": w1,
            "w2mpro": w2,
            "w3mpro": w3,
            "w4mpro": w4,
            "w1sigmpro": rng.uniform(0.02, 0.1, n),
            "w2sigmpro": rng.uniform(0.02, 0.15, n),
            "w3sigmpro": np.where(upper, np.nan, rng.uniform(0.05, 0.5, n)),
            "w4sigmpro": np.where(upper, np.nan, rng.uniform(0.1, 0.5, n)),
        }
    )
    no2mass = rng.random(n) < 0.2
    for b, off in zip("jhk", (1.2, 0.6, 0.3), strict=True):
        df[f"{b}_m_2mass"] = np.where(no2mass, np.nan, np.clip(w1 + off + rng.normal(0, 0.1, n), 6.0, 17.0))
        df[f"{b}_msig_2mass"] = np.where(no2mass, np.nan, rng.uniform(0.02, 0.2, n))
    return df


_ZZ = (25 * 26 + 25) * 26**5  # the number of the letters 'zzaaaaa'
GROUNDED_GIDX = 9_000_000_000
"""Measurement index of the first grounded ZTF detection: grounded candids never collide with the base ones."""


def grounded_ztf_name(year: int, n: int) -> str:
    """The n-th name 'ZTF<yy>zz<5 letters>' of a year: grounded objects take these, which no base object holds."""
    return ztf_name(year, _ZZ + n)


def pid_of(mjd: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """Return ZTF processing ids: the night number, five digits of the time of night, then four digits of ``slot``."""
    nid = np.floor(mjd).astype(np.int64) - 57754
    frac5 = np.floor((mjd % 1.0) * 1e5).astype(np.int64)
    return nid * 10**9 + frac5 * 10**4 + slot % 10**4


def candid_of(mjd: np.ndarray, gidx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (pid, candid) following the ZTF layout; candids are unique because they encode `gidx`."""
    pid = pid_of(mjd, gidx // 10**6)
    return pid, pid * 10**6 + gidx % 10**6


def ranks(p: np.ndarray) -> np.ndarray:
    """Rank of each probability within its row, 1 = largest (ties keep column order)."""
    return np.argsort(np.argsort(-p, axis=1, kind="stable"), axis=1) + 1


def distinct_probabilities(p: np.ndarray) -> np.ndarray:
    """Probabilities on the stored grid (1e-6), strictly decreasing in rank order, so that no two tie."""
    order = np.argsort(-p, axis=1, kind="stable")
    ranked = np.round(np.take_along_axis(p, order, axis=1), 6)
    ranked[:, -1] = np.maximum(ranked[:, -1], _GRID)
    for j in range(ranked.shape[1] - 2, 0, -1):
        ranked[:, j] = np.maximum(ranked[:, j], np.round(ranked[:, j + 1] + _GRID, 6))
    ranked[:, 0] = np.round(ranked[:, 0] - (ranked.sum(axis=1) - p.sum(axis=1)), 6)  # the top keeps the sum
    out = np.empty_like(ranked)
    np.put_along_axis(out, order, ranked, axis=1)
    return out
