"""gaiadr3_source rows: astrometry, photometry and GSP-Phot parameters consistent with the matched object.

Stars (variable stars, and the bright stars behind some artefacts) have parallaxes, proper motions and
temperatures; AGN have neither parallax nor motion, and Gaia's classifier calls them quasars.
"""

import numpy as np
import pandas as pd

__all__ = ["gaia_rows"]


def _photometry(rng: np.random.Generator, spec: pd.DataFrame) -> dict[str, np.ndarray]:
    n = len(spec)
    g = np.clip(31.4 - 2.5 * np.log10(np.maximum(spec["flux"].to_numpy(), 1.0)) + rng.normal(0.1, 0.05, n), 3, 21)
    bp_rp = np.clip(0.6 + 1.2 * spec["color"].to_numpy() + rng.normal(0.0, 0.1, n), -0.4, 4.5)
    bp_g = 0.45 * bp_rp
    snr = np.clip(3000.0 * 10 ** (-0.4 * (g - 15.0)), 5.0, 1e4)
    return {
        "phot_g_mean_mag": g,
        "phot_bp_mean_mag": g + bp_g,
        "phot_rp_mean_mag": g + bp_g - bp_rp,
        "bp_rp": bp_rp,
        "bp_g": bp_g,
        "g_rp": bp_rp - bp_g,
        "phot_g_n_obs": rng.integers(200, 900, n),
        "phot_bp_n_obs": rng.integers(20, 100, n),
        "phot_rp_n_obs": rng.integers(20, 100, n),
        "phot_g_mean_flux_over_error": snr,
        "phot_bp_mean_flux_over_error": snr / 4,
        "phot_rp_mean_flux_over_error": snr / 3,
        "phot_bp_rp_excess_factor": rng.uniform(1.1, 1.5, n),
        "phot_proc_mode": 0,
    }


def _astrometry(rng: np.random.Generator, star: np.ndarray, g: np.ndarray, distance_pc: np.ndarray) -> dict:
    n = len(star)
    error = 0.02 * 10 ** (0.2 * (g - 15.0))
    pmra = np.where(star, rng.normal(0.0, 6.0, n), 0.0) + rng.normal(0.0, 1.0, n) * error
    pmdec = np.where(star, rng.normal(-2.0, 6.0, n), 0.0) + rng.normal(0.0, 1.0, n) * error
    return {
        "ra_error": error * 0.8,
        "dec_error": error * 0.7,
        "parallax": np.where(star, 1000.0 / distance_pc, 0.0) + rng.normal(0.0, 1.0, n) * error,
        "parallax_error": error,
        "pm": np.hypot(pmra, pmdec),
        "pmra": pmra,
        "pmra_error": error * 1.1,
        "pmdec": pmdec,
        "pmdec_error": error,
        "astrometric_excess_noise": np.where(star, rng.uniform(0.0, 0.4, n), rng.uniform(0.3, 2.5, n)),
        "astrometric_excess_noise_sig": np.where(star, rng.uniform(0.0, 3.0, n), rng.uniform(2.0, 40.0, n)),
        "ruwe": np.where(rng.random(n) < 0.06, rng.uniform(1.4, 6.0, n), rng.lognormal(0.0, 0.08, n)),
    }


def _stellar(rng: np.random.Generator, star: np.ndarray, bp_rp: np.ndarray, distance: np.ndarray) -> dict:
    n = len(star)
    teff = np.clip(8000.0 - 2500.0 * bp_rp + rng.normal(0, 150, n), 3100.0, 12000.0)
    logg, mh = rng.uniform(3.6, 4.8, n), rng.normal(-0.3, 0.4, n)
    dist = distance * rng.normal(1.0, 0.1, n)
    out = {}
    for name, value, spread in (("teff", teff, 150.0), ("logg", logg, 0.1), ("mh", mh, 0.15), ("distance", dist, 0.1)):
        width = spread * (dist if name == "distance" else 1.0)
        out[f"{name}_gspphot"] = np.where(star, value, np.nan)
        out[f"{name}_gspphot_lower"] = np.where(star, value - width, np.nan)
        out[f"{name}_gspphot_upper"] = np.where(star, value + width, np.nan)
    return out


def _classes(rng: np.random.Generator, kind: np.ndarray, g: np.ndarray) -> dict[str, np.ndarray]:
    n = len(kind)
    agn, var = kind == "AGN", kind == "VS"
    quasar = np.where(agn, rng.uniform(0.6, 0.99, n), rng.uniform(0.0, 0.02, n))
    galaxy = np.where(agn, rng.uniform(0.0, 1.0, n) * (1 - quasar), rng.uniform(0.0, 0.02, n))
    variable = (var & (rng.random(n) < 0.75)) | (agn & (rng.random(n) < 0.2))
    rv = ~agn & (g < 15.0)
    return {
        "classprob_dsc_combmod_quasar": quasar,
        "classprob_dsc_combmod_galaxy": galaxy,
        "classprob_dsc_combmod_star": 1.0 - quasar - galaxy,
        "phot_variable_flag": np.where(variable, "VARIABLE", "NOT_AVAILABLE"),
        "has_epoch_photometry": variable.astype(int),
        "in_qso_candidates": (agn & (rng.random(n) < 0.7)).astype(int),
        "in_galaxy_candidates": (agn & (rng.random(n) < 0.2)).astype(int),
        "non_single_star": (~agn & (rng.random(n) < 0.03)).astype(int),
        "radial_velocity": np.where(rv, rng.normal(0.0, 40.0, n), np.nan),
        "radial_velocity_error": np.where(rv, rng.uniform(0.5, 5.0, n), np.nan),
        "rv_method_used": pd.Series(1 + (g > 12.0), dtype="Int64").where(rv).to_numpy(),
    }


def gaia_rows(rng: np.random.Generator, spec: pd.DataFrame) -> pd.DataFrame:
    """Return one gaiadr3_source row per spec row with a Gaia counterpart."""
    spec = spec[spec["gaia_id"].notna().to_numpy()]
    kind = spec["kind"].to_numpy()
    star = kind != "AGN"
    photometry = _photometry(rng, spec)
    distance_pc = np.exp(rng.uniform(np.log(150.0), np.log(12000.0), len(spec)))
    astrometry = _astrometry(rng, star, photometry["phot_g_mean_mag"], distance_pc)
    return pd.DataFrame(
        {
            "oid_catalog": spec["gaia_id"].astype("int64").to_numpy(),
            "ra": spec["gaia_ra"].to_numpy(),
            "dec": spec["gaia_dec"].to_numpy(),
            **astrometry,
            **photometry,
            **_classes(rng, kind, photometry["phot_g_mean_mag"]),
            **_stellar(rng, star, photometry["bp_rp"], distance_pc),
        }
    )
