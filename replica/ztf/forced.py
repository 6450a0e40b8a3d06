"""forced_photometry rows for the objects detected since late 2023."""

import numpy as np
import pandas as pd

from replica.engine.draws import pid_of
from replica.ztf import vocab

__all__ = ["forced_rows"]


def _epochs(rng: np.random.Generator, spec: pd.DataFrame, obj_rows: pd.DataFrame, max_rows: int):
    sel = np.flatnonzero(spec["forced"].to_numpy())
    start = np.maximum(obj_rows["firstmjd"].to_numpy()[sel] - 30.0, vocab.MJD_FORCED_START)
    end = np.minimum(obj_rows["lastmjd"].to_numpy()[sel] + 30.0, vocab.MJD_END - 0.5)
    step = rng.uniform(1.5, 4.0, len(sel))
    wanted = np.floor((end - start) / step).astype(int)
    count = np.clip(wanted, 1, max_rows)
    start = np.where(wanted > max_rows, end - count * step, start)  # a long light curve keeps its latest epochs
    obj = np.repeat(sel, count)
    local = np.arange(len(obj)) - np.repeat(np.cumsum(count) - count, count)
    mjd = np.floor(np.repeat(start, count) + local * np.repeat(step, count)) + rng.uniform(0.15, 0.45, len(obj))
    return obj, local, mjd


def forced_rows(rng: np.random.Generator, spec: pd.DataFrame, obj_rows: pd.DataFrame, max_rows: int):
    """Forced photometry on ZTF exposures around each recent object's light curve."""
    obj, local, mjd = _epochs(rng, spec, obj_rows, max_rows)
    n = len(obj)
    pid = pid_of(mjd, local)
    mag = np.clip(spec["mag_lo"].to_numpy()[obj] + rng.uniform(0, 2.5, n), 13.0, 22.5)
    e_mag = np.clip(0.01 + 0.25 * ((mag - 12.5) / 9.0) ** 3, 0.01, 0.5)
    isdiffpos = np.where(rng.random(n) < 0.8, 1, -1)
    corrected = spec["distnr"].to_numpy()[obj] < 1.4
    magnr = rng.uniform(14.0, 21.0, len(spec))[obj]
    flux = 10 ** (-0.4 * magnr) + isdiffpos * 10 ** (-0.4 * mag)
    mag_corr = np.where(corrected & (flux > 0), -2.5 * np.log10(np.where(flux > 0, flux, 1)), np.nan)
    return pd.DataFrame(
        {
            "pid": pid,
            "oid": spec["oid"].to_numpy()[obj],
            "mjd": mjd,
            "fid": rng.choice([1, 2, 3], n, p=(0.45, 0.5, 0.05)),
            "ra": obj_rows["meanra"].to_numpy()[obj],
            "dec": obj_rows["meandec"].to_numpy()[obj],
            "e_ra": rng.uniform(0.01, 0.1, n) / 3600,
            "e_dec": rng.uniform(0.01, 0.1, n) / 3600,
            "mag": mag,
            "e_mag": e_mag,
            "mag_corr": mag_corr,
            "e_mag_corr": np.where(np.isnan(mag_corr), np.nan, e_mag),
            "e_mag_corr_ext": np.where(np.isnan(mag_corr), np.nan, e_mag * 1.1),
            "isdiffpos": isdiffpos,
            "corrected": corrected,
            "dubious": corrected & (flux <= 0),
            "has_stamp": False,
            "field": rng.integers(200, 881, n),
            "rcid": rng.integers(0, 64, n),
            "rfid": rng.integers(10**8, 10**9, n),
            "sciinpseeing": rng.uniform(1.5, 3.5, n),
            "scibckgnd": rng.uniform(100, 400, n),
            "scisigpix": rng.uniform(5, 20, n),
            "magzpsci": rng.normal(26.0, 0.3, n),
            "magzpsciunc": rng.uniform(5e-6, 2e-5, n),
            "magzpscirms": rng.uniform(0.02, 0.05, n),
            "clrcoeff": rng.uniform(-0.05, 0.1, n),
            "clrcounc": rng.uniform(5e-6, 3e-5, n),
            "exptime": 30.0,
            "adpctdif1": rng.uniform(0, 0.2, n),
            "adpctdif2": rng.uniform(0, 0.2, n),
            "diffmaglim": rng.uniform(19.0, 21.0, n),
            "programid": rng.choice([1, 2, 3], n, p=(0.7, 0.2, 0.1)),
            "procstatus": rng.choice(list(vocab.PROCSTATUS_WEIGHTS), n, p=list(vocab.PROCSTATUS_WEIGHTS.values())),
            "distnr": spec["distnr"].to_numpy()[obj],
            "ranr": spec["ra"].to_numpy()[obj],
            "decnr": spec["dec"].to_numpy()[obj],
            "magnr": magnr,
            "sigmagnr": rng.uniform(0.01, 0.2, n),
            "chinr": rng.lognormal(0, 0.5, n),
            "sharpnr": rng.normal(0, 0.1, n),
        }
    )
