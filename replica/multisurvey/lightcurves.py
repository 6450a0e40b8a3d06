"""True and measured fluxes (nJy) of diaObjects at their visits: difference flux, template, noise, SNR."""

import numpy as np
import pandas as pd

from replica.multisurvey.lookups import LSST_BANDS

__all__ = ["DETECTION_SNR", "band_flux", "measure", "true_fluxes"]

DETECTION_SNR = 5.0
# Magnitude offset per unit colour (r band = 0): a red object (colour > 0) is fainter in u and g, brighter in z, y.
_COLOR_WEIGHT = {"u": 2.5, "g": 1.0, "r": 0.0, "i": -0.6, "z": -1.0, "y": -1.2}
_SYSTEMATIC = 0.004  # fractional error floor on the total flux
_ECLIPSE_WIDTH = 0.05


def band_flux(flux_r: np.ndarray, color: np.ndarray, band_name: np.ndarray) -> np.ndarray:
    """Return the flux in each band of an object with r-band flux `flux_r` and colour `color`."""
    weight = pd.Series(band_name).map(_COLOR_WEIGHT).to_numpy()
    return flux_r * 10 ** (-0.4 * color * weight)


def _bazin(dt: np.ndarray, tau_rise: np.ndarray, tau_fall: np.ndarray) -> np.ndarray:
    fall = np.exp(np.clip(-dt / tau_fall, -60.0, 60.0))
    return fall / (1.0 + np.exp(np.clip(-dt / tau_rise, -60.0, 60.0)))


def _transient(s: pd.DataFrame, mjd: np.ndarray, band: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    dt = mjd - s["t0"].to_numpy()
    redder = s["color"].to_numpy() + 0.02 * np.clip(dt, 0.0, 60.0)
    slower = 1.0 + 0.08 * pd.Index(list(LSST_BANDS)).get_indexer(band)
    shape = _bazin(dt, s["tau_rise"].to_numpy(), s["tau_fall"].to_numpy() * slower)
    diff = band_flux(s["flux"].to_numpy(), redder, band) * shape / 0.8
    return diff, band_flux(s["host"].to_numpy(), s["color"].to_numpy(), band)


def _periodic_shape(s: pd.DataFrame, mjd: np.ndarray) -> np.ndarray:
    phase = (mjd / s["period"].to_numpy() + s["phase"].to_numpy()) % 1.0
    pulse = (np.sin(2 * np.pi * phase) + 0.35 * np.sin(4 * np.pi * phase)) / 1.3
    near = np.minimum(phase, 1.0 - phase)
    eclipse = -np.exp(-((near / _ECLIPSE_WIDTH) ** 2)) - 0.4 * np.exp(-(((phase - 0.5) / _ECLIPSE_WIDTH) ** 2))
    return np.where(s["subtype"].to_numpy() == "EB", eclipse + 0.3, pulse)


def _wander_shape(s: pd.DataFrame, mjd: np.ndarray) -> np.ndarray:
    longest, start = s["period"].to_numpy(), 2 * np.pi * s["phase"].to_numpy()
    terms = np.sin(2 * np.pi * mjd / longest + start) + 0.6 * np.sin(2 * np.pi * mjd * 2.7 / longest + 1.3 + start)
    return (terms + 0.4 * np.sin(2 * np.pi * mjd * 7.1 / longest + 4.1 + start)) / 1.4


def _varying(s: pd.DataFrame, mjd: np.ndarray, band: np.ndarray, agn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = band_flux(s["flux"].to_numpy(), s["color"].to_numpy(), band)
    shape = np.where(agn, _wander_shape(s, mjd), _periodic_shape(s, mjd))
    flux = mean * 10 ** (-0.4 * s["amplitude"].to_numpy() * shape)
    template = band_flux(s["host"].to_numpy(), s["color"].to_numpy(), band)
    # a variable star's template is the star itself; an AGN's is its host plus the mean nucleus
    reference = np.where(agn, mean, template)
    return flux - reference, np.where(agn, template + mean, template)


def true_fluxes(spec: pd.DataFrame, visits: pd.DataFrame, flash: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (difference flux, template flux) in nJy at each visit of SN, VS and AGN objects (0 for others).

    A bogus or moving object is seen in a flash: its flux times ``flash`` (the flash's sign, 0 where none) per visit.
    """
    s = spec.iloc[visits["_obj"].to_numpy()]
    mjd, band = visits["mjd"].to_numpy(), visits["band_name"].to_numpy()
    kind = s["kind"].to_numpy()
    diff, template = np.zeros(len(visits)), np.zeros(len(visits))
    sn, var = kind == "SN", np.isin(kind, ("VS", "AGN"))
    diff[sn], template[sn] = _transient(s[sn], mjd[sn], band[sn])
    diff[var], template[var] = _varying(s[var], mjd[var], band[var], kind[var] == "AGN")
    on = flash != 0
    diff[on] = flash[on] * band_flux(s["flux"].to_numpy()[on], s["color"].to_numpy()[on], band[on])
    return diff, template


def measure(rng: np.random.Generator, diff: np.ndarray, template: np.ndarray, noise: np.ndarray) -> dict:
    """Return measured psfflux, scienceflux, templateflux, their errors and the SNR of each visit."""
    n = len(diff)
    sigma = np.sqrt(noise**2 + (_SYSTEMATIC * np.maximum(template + diff, 0.0)) ** 2)
    psfflux = diff + rng.normal(0.0, 1.0, n) * sigma
    science_sigma = 0.9 * sigma
    return {
        "psfflux": psfflux,
        "psffluxerr": sigma,
        "scienceflux": template + diff + rng.normal(0.0, 1.0, n) * science_sigma,
        "sciencefluxerr": science_sigma,
        "templateflux": template + rng.normal(0.0, 1.0, n) * 0.3 * sigma,
        "templatefluxerr": 0.3 * sigma,
        "snr": np.abs(psfflux) / sigma,
    }
