"""Keplerian orbits of solar-system objects and their geometry seen from Earth (two-body, circular Earth orbit).

Good to a few arcminutes over the few days LSST follows an object, which is all the replica needs: positions
that move consistently with the orbit, and ranges, phase angles, rates and magnitudes that agree with each other.
"""

import numpy as np
import pandas as pd

from replica.engine.draws import galactic
from replica.multisurvey.sky import ecliptic_to_equatorial, radec_of, sun_longitude

__all__ = ["ELEMENT_EPOCH_MJD", "GAUSS_K", "apparent_v", "ephemeris", "random_elements"]

GAUSS_K = 0.01720209895  # radians per day: mean motion of a 1 au orbit
ELEMENT_EPOCH_MJD = 61000.0
# Populations: share, semi-major axis (au), eccentricity and inclination (deg) ranges.
_POPULATIONS = {
    "main belt": (0.86, (2.1, 3.3), (0.0, 0.25), (0.0, 20.0)),
    "near-Earth": (0.05, (0.9, 2.6), (0.2, 0.7), (0.0, 30.0)),
    "Jupiter trojan": (0.05, (5.1, 5.3), (0.0, 0.15), (0.0, 30.0)),
    "trans-Neptunian": (0.04, (39.0, 48.0), (0.0, 0.25), (0.0, 30.0)),
}


def random_elements(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Return `n` random orbits: a (au), e, i, node, argperi, mean_anomaly (deg) at ELEMENT_EPOCH_MJD."""
    names = list(_POPULATIONS)
    shares = np.array([share for share, *_ in _POPULATIONS.values()])
    population = rng.choice(names, size=n, p=shares / shares.sum())
    a, e, i = np.empty(n), np.empty(n), np.empty(n)
    for name, (_, a_range, e_range, i_range) in _POPULATIONS.items():
        m = population == name
        a[m], e[m], i[m] = (rng.uniform(*r, m.sum()) for r in (a_range, e_range, i_range))
    elements = pd.DataFrame({"population": population, "a": a, "e": e, "i": i})
    elements[["node", "argperi", "mean_anomaly"]] = rng.uniform(0.0, 360.0, (n, 3))
    return elements


def _rotation(node: np.ndarray, incl: np.ndarray, argperi: np.ndarray) -> np.ndarray:
    o, i, w = np.radians(node), np.radians(incl), np.radians(argperi)
    co, so, ci, si, cw, sw = np.cos(o), np.sin(o), np.cos(i), np.sin(i), np.cos(w), np.sin(w)
    return np.stack(
        [
            np.stack([co * cw - so * sw * ci, -co * sw - so * cw * ci], axis=-1),
            np.stack([so * cw + co * sw * ci, -so * sw + co * cw * ci], axis=-1),
            np.stack([sw * si, cw * si], axis=-1),
        ],
        axis=-2,
    )


def heliocentric(el: pd.DataFrame, mjd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ecliptic heliocentric position (au) and velocity (au/d) of each orbit row at the matching mjd."""
    a, e = el["a"].to_numpy(), el["e"].to_numpy()
    motion = GAUSS_K / a**1.5
    mean = np.radians(el["mean_anomaly"].to_numpy()) + motion * (mjd - ELEMENT_EPOCH_MJD)
    ecc = mean.copy()
    for _ in range(12):
        ecc -= (ecc - e * np.sin(ecc) - mean) / (1.0 - e * np.cos(ecc))
    root, denominator = np.sqrt(1.0 - e**2), 1.0 - e * np.cos(ecc)
    plane = np.stack([a * (np.cos(ecc) - e), a * root * np.sin(ecc)], axis=-1)
    plane_v = np.stack([-a * motion * np.sin(ecc), a * motion * root * np.cos(ecc)], axis=-1) / denominator[:, None]
    rot = _rotation(el["node"].to_numpy(), el["i"].to_numpy(), el["argperi"].to_numpy())
    return np.einsum("nij,nj->ni", rot, plane), np.einsum("nij,nj->ni", rot, plane_v)


def _earth(mjd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lon = np.radians(sun_longitude(mjd) + 180.0)
    position = np.stack([np.cos(lon), np.sin(lon), np.zeros_like(lon)], axis=-1)
    return position, GAUSS_K * np.stack([-np.sin(lon), np.cos(lon), np.zeros_like(lon)], axis=-1)


def _angle_deg(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    cos = np.sum(u * v, axis=-1) / np.linalg.norm(u, axis=-1) / np.linalg.norm(v, axis=-1)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def _geometry(el: pd.DataFrame, mjd: np.ndarray) -> dict[str, np.ndarray]:
    helio, helio_v = heliocentric(el, mjd)
    earth, earth_v = _earth(mjd)
    topo, topo_v = helio - earth, helio_v - earth_v
    ra, dec = radec_of(ecliptic_to_equatorial(topo))
    return {"helio": helio, "helio_v": helio_v, "topo": topo, "topo_v": topo_v, "earth": earth, "ra": ra, "dec": dec}


def ephemeris(el: pd.DataFrame, mjd: np.ndarray) -> dict[str, np.ndarray]:
    """Return the geometry of each orbit row at the matching mjd (positions deg, ranges au, rates arcsec/h)."""
    now, later = _geometry(el, mjd), _geometry(el, mjd + 1.0 / 24.0)
    helio, topo = now["helio"], now["topo"]
    r, delta = np.linalg.norm(helio, axis=-1), np.linalg.norm(topo, axis=-1)
    rate_ra = ((later["ra"] - now["ra"] + 180.0) % 360.0 - 180.0) * np.cos(np.radians(now["dec"])) * 3600.0
    rate_dec = (later["dec"] - now["dec"]) * 3600.0
    ecl_lon, ecl_lat = radec_of(topo)
    gal_lon, gal_lat = galactic(now["ra"], now["dec"])
    return {
        "ra": now["ra"],
        "dec": now["dec"],
        "ecllambda": ecl_lon,
        "eclbeta": ecl_lat,
        "gallon": gal_lon,
        "gallat": gal_lat,
        "heliorange": r,
        "toporange": delta,
        "heliorangerate": np.sum(helio * now["helio_v"], axis=-1) / r,
        "toporangerate": np.sum(topo * now["topo_v"], axis=-1) / delta,
        "phaseangle": _angle_deg(-helio, -topo),
        "elongation": _angle_deg(-now["earth"], topo),
        "ephratera": rate_ra,
        "ephratedec": rate_dec,
        "ephrate": np.hypot(rate_ra, rate_dec),
        "helio_xyz": ecliptic_to_equatorial(helio),
        "helio_vxyz": ecliptic_to_equatorial(now["helio_v"]),
        "topo_xyz": ecliptic_to_equatorial(topo),
        "topo_vxyz": ecliptic_to_equatorial(now["topo_v"]),
    }


def apparent_v(h: np.ndarray, g: np.ndarray, r: np.ndarray, delta: np.ndarray, phase_deg: np.ndarray) -> np.ndarray:
    """Return the V magnitude of the H, G system at heliocentric distance r, geocentric delta and phase angle."""
    tan_half = np.tan(np.radians(phase_deg) / 2.0)
    phi1, phi2 = np.exp(-3.33 * tan_half**0.63), np.exp(-1.87 * tan_half**1.22)
    return h + 5.0 * np.log10(r * delta) - 2.5 * np.log10((1.0 - g) * phi1 + g * phi2)
