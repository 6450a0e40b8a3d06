"""Visits of each object's position: nights in its observing season, a few visits per night, per survey."""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from replica.multisurvey.lookups import LSST_BANDS, ZTF_BANDS
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD, solar_elongation

__all__ = ["LSST_CADENCE", "VISIT_SLOT_D", "ZTF_CADENCE", "Cadence", "coverage", "snap_to_visits", "visits_at"]

VISIT_SLOT_D = 40.0 / 86400.0  # visits start on a 40-second grid


@dataclass(frozen=True)
class Cadence:
    """How a survey visits a position.

    Attributes:
        start_mjd: first night.
        end_mjd: last night.
        night_probability: chance that an observable night has visits (wide survey).
        deep_night_probability: the same in a deep drilling field.
        band_codes: band name -> band code of the survey.
        band_weights: share of visits per band, in `band_codes` order.
        noise_njy: one-sigma noise (nJy) of a visit per band, from the survey's 5-sigma depth.
        min_elongation_deg: smallest solar elongation observed.
    """

    start_mjd: float
    end_mjd: float
    night_probability: float
    deep_night_probability: float
    band_codes: dict[str, int]
    band_weights: tuple[float, ...]
    noise_njy: dict[str, float]
    min_elongation_deg: float = 75.0

    def bands(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Return the band names of ``n`` visits, drawn with the survey's shares."""
        names = np.array(list(self.band_codes))
        return names[rng.choice(len(names), size=n, p=np.array(self.band_weights))]

    def in_bands(self, rng: np.random.Generator, visits: pd.DataFrame) -> pd.DataFrame:
        """Return visits (with band_name) with their band code and one-sigma noise (nJy, varied from visit to visit)."""
        band_name = pd.Series(visits["band_name"].to_numpy(), dtype=object)
        noise = band_name.map(self.noise_njy).to_numpy() * rng.uniform(0.7, 1.6, len(band_name))
        return visits.assign(band=band_name.map(self.band_codes).to_numpy(), noise=noise)


# LSST depths u 23.9, g 25.0, r 24.7, i 24.0, z 23.3, y 22.1; ZTF g and r 20.5, i 20.0.
LSST_CADENCE = Cadence(
    LSST_START_MJD,
    LSST_END_MJD,
    0.10,
    0.25,
    dict(LSST_BANDS),
    (0.07, 0.09, 0.22, 0.22, 0.20, 0.20),
    {"u": 200.0, "g": 73.0, "r": 96.0, "i": 182.0, "z": 348.0, "y": 1050.0},
)
ZTF_CADENCE = Cadence(
    60800.0,
    LSST_END_MJD,
    0.15,
    0.15,
    dict(ZTF_BANDS),
    (0.45, 0.45, 0.10),
    {"g": 4600.0, "r": 4600.0, "i": 7300.0},
    min_elongation_deg=60.0,
)


def snap_to_visits(mjd: np.ndarray) -> np.ndarray:
    """Round epochs to the 40-second grid of visit start times."""
    return np.round(np.asarray(mjd) / VISIT_SLOT_D) * VISIT_SLOT_D


def coverage(rng: np.random.Generator, ra, dec, deep, cadence: Cadence) -> pd.DataFrame:
    """Return every visit of each position: columns _obj, mjd, band (code), band_name, noise (nJy), sorted.

    A wide-survey night has a pair of visits (one in 6 a single one), a deep-field night a sequence of 3 to 6.
    """
    nights = np.arange(cadence.start_mjd, cadence.end_mjd)
    up = solar_elongation(ra, dec, nights + 0.2) > cadence.min_elongation_deg
    p = np.where(deep, cadence.deep_night_probability, cadence.night_probability)[:, None]
    obj, night = np.nonzero(up & (rng.random(up.shape) < p))
    n_visits = np.where(deep[obj], rng.integers(3, 7, len(obj)), np.where(rng.random(len(obj)) < 0.83, 2, 1))
    obj, night = np.repeat(obj, n_visits), np.repeat(nights[night], n_visits)
    step = np.concatenate([np.arange(k) for k in n_visits]) if len(n_visits) else np.zeros(0)
    start = np.repeat(rng.uniform(0.0, 0.3, len(n_visits)), n_visits)
    mjd = snap_to_visits(night + start + step * rng.uniform(0.021, 0.035, len(obj)))
    return visits_at(rng, obj, mjd, cadence)


def visits_at(rng: np.random.Generator, obj: np.ndarray, mjd: np.ndarray, cadence: Cadence = LSST_CADENCE):
    """Return visits of objects at epochs, one per (object, epoch), sorted: _obj, mjd, band (code), band_name, noise."""
    visits = cadence.in_bands(rng, pd.DataFrame({"_obj": obj, "mjd": mjd, "band_name": cadence.bands(rng, len(obj))}))
    return visits.sort_values(["_obj", "mjd"], kind="stable").drop_duplicates(["_obj", "mjd"]).reset_index(drop=True)
