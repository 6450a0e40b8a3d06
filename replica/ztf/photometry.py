"""detection, dataquality and non_detection rows derived from the object spec."""

import numpy as np
import pandas as pd

from replica.engine.draws import candid_of
from replica.ztf import vocab

__all__ = ["DATAQUALITY_SQL", "dataquality_rows", "detection_rows", "non_detection_rows"]

_LENSING_WIDTH = 0.08  # Einstein time over the light curve's span: the brightening fills its middle


def _times(rng: np.random.Generator, spec: pd.DataFrame, obj: np.ndarray, starts: np.ndarray, ndet: np.ndarray):
    u = rng.random(len(obj))
    u[starts] = 0.0
    u[(starts + ndet - 1)[ndet > 1]] = 1.0
    order = np.lexsort((u, obj))
    u = u[order]
    t = spec["firstmjd"].to_numpy()[obj] + spec["span"].to_numpy()[obj] * u
    return u, np.round(t, 6)


def _bands(rng: np.random.Generator, spec: pd.DataFrame, obj: np.ndarray, starts: np.ndarray) -> np.ndarray:
    local = np.arange(len(obj)) - starts[obj]
    band = np.where(local < spec["ndet_g"].to_numpy()[obj], 1, 2)
    return band[np.lexsort((rng.random(len(obj)), obj))]


def _magnitudes(rng, spec: pd.DataFrame, obj: np.ndarray, u: np.ndarray, t: np.ndarray, band: np.ndarray):
    kind = spec["kind"].to_numpy()[obj]
    f = rng.random(len(obj))
    sn = kind == "SN"
    f[sn] = (np.abs(u[sn] - 0.12) / 0.88) ** 0.7
    var = kind == "var"
    period = rng.uniform(0.3, 400.0, len(spec))[obj]
    phase = rng.uniform(0, 2 * np.pi, len(spec))[obj]
    f[var] = 0.5 + 0.45 * np.sin(2 * np.pi * t[var] / period[var] + phase[var])
    lensed = spec["today_class"].to_numpy()[obj] == "Microlensing"
    f[lensed] = 1.0 - 1.0 / np.sqrt(1.0 + ((u[lensed] - 0.5) / _LENSING_WIDTH) ** 2)  # one symmetric brightening
    f = np.clip(f + rng.normal(0.0, 0.03, len(obj)), 0.0, 1.0)
    lo, hi = spec["mag_lo"].to_numpy()[obj], spec["mag_hi"].to_numpy()[obj]
    mag = lo + (hi - lo) * f + np.where(band == 1, spec["color"].to_numpy()[obj], 0.0)
    return np.round(np.clip(mag, 12.0, 22.5), 4)


def _correction(rng, spec, obj, mag, isdiffpos, sigma):
    distnr = np.abs(spec["distnr"].to_numpy()[obj] + rng.normal(0.0, 0.05, len(obj)))
    kind = spec["kind"].to_numpy()
    magnr = rng.uniform(14.0, 21.0, len(spec))  # of each object's reference source
    magnr[kind == "var"] = spec["mag_lo"].to_numpy()[kind == "var"] - rng.uniform(0.1, 1.0, (kind == "var").sum())
    corrected = distnr < 1.4
    flux = 10 ** (-0.4 * magnr[obj]) + isdiffpos * 10 ** (-0.4 * mag)
    good = corrected & (flux > 0)
    unset = np.where(corrected, 100.0, np.nan)
    mag_corr = np.where(good, -2.5 * np.log10(np.where(flux > 0, flux, 1.0)), unset)
    sig_corr = np.where(good, np.minimum(sigma * 10 ** (-0.4 * (mag - mag_corr)), 1.0), unset)
    dubious = (corrected & ~good) | (~corrected & (isdiffpos < 0))
    return distnr, corrected, dubious, mag_corr, sig_corr


def detection_rows(rng: np.random.Generator, spec: pd.DataFrame, gidx0: int) -> pd.DataFrame:
    """Detections of all spec objects, sorted by (object, mjd); extra internal columns start with '_'."""
    ndet = (spec["ndet_g"] + spec["ndet_r"]).to_numpy()
    obj = np.repeat(np.arange(len(spec)), ndet)
    starts = np.concatenate(([0], np.cumsum(ndet)[:-1]))
    u, t = _times(rng, spec, obj, starts, ndet)
    band = _bands(rng, spec, obj, starts)
    mag = _magnitudes(rng, spec, obj, u, t, band)
    n = len(obj)
    kind = spec["kind"].to_numpy()[obj]
    variable = (kind == "var") & (spec["today_class"].to_numpy()[obj] != "Microlensing")  # a lens only brightens
    isdiffpos = np.where(rng.random(n) < np.where(variable, 0.15, np.where(kind == "bogus", 0.3, 0.02)), -1, 1)
    sigma = np.clip(0.01 + 0.25 * ((mag - 12.5) / 9.0) ** 3 + rng.uniform(0, 0.01, n), 0.01, 0.3)
    distnr, corrected, dubious, mag_corr, sig_corr = _correction(rng, spec, obj, mag, isdiffpos, sigma)
    pid, candid = candid_of(t, gidx0 + np.arange(n))
    cosd = np.cos(np.radians(spec["dec"].to_numpy()[obj]))
    early = t < 58800
    rfid = rng.integers(10**8, 10**9, (len(spec), 2))
    rb = np.where(kind == "bogus", rng.uniform(0.1, 0.7, n), rng.uniform(0.55, 1.0, n))
    return pd.DataFrame(
        {
            "candid": candid,
            "oid": spec["oid"].to_numpy()[obj],
            "mjd": t,
            "fid": band,
            "pid": pid,
            "diffmaglim": np.clip(np.maximum(mag + 0.2, rng.uniform(19.0, 21.0, n)), 19.0, 21.5),
            "isdiffpos": isdiffpos,
            "nid": pid // 10**9,  # the night, as candid_of numbers it
            "ra": spec["ra"].to_numpy()[obj] + rng.normal(0, 0.1 / 3600, n) / np.maximum(cosd, 0.05),
            "dec": spec["dec"].to_numpy()[obj] + rng.normal(0, 0.1 / 3600, n),
            "magpsf": mag,
            "sigmapsf": sigma,
            "magap": mag + rng.normal(0, 0.05, n),
            "sigmagap": sigma * 1.1,
            "distnr": distnr,
            "rb": rb,
            "rbversion": "t17_f5_c3",
            "drb": np.where(early, np.nan, np.clip(rb + rng.normal(0, 0.05, n), 0, 1)),
            "drbversion": np.where(early, None, "d6_m7"),
            "magapbig": mag + rng.normal(0, 0.08, n),
            "sigmagapbig": sigma * 1.2,
            "rfid": rfid[obj, band - 1],
            "magpsf_corr": mag_corr,
            "sigmapsf_corr": sig_corr,
            "sigmapsf_corr_ext": np.where(sig_corr < 100, sig_corr * 1.1 + 0.01, sig_corr),
            "corrected": corrected,
            "dubious": dubious,
            "has_stamp": True,
            "step_id_corr": vocab.STEP_ID_CORR,
            "_obj": obj,
            "_u": u,
        }
    )


# server-side expressions for the dataquality columns that are pure noise (see replica.engine.loader.Loader)
DATAQUALITY_SQL = {
    "xpos": "random() * 3072",
    "ypos": "random() * 3080",
    "sky": "random() * 2 - 1",
    "fwhm": "1.5 + 3.5 * random()",
    "mindtoedge": "10 + 1490 * random()",
    "seeratio": "0.5 + 1.5 * random()",
    "aimage": "0.5 + 2 * random()",
    "bimage": "0.4 + 1.5 * random()",
    "aimagerat": "0.1 + 0.6 * random()",
    "bimagerat": "0.1 + 0.5 * random()",
    "nneg": "floor(random() * 26)::int",
    "nbad": "floor(random() * 6)::int",
    "sumrat": "0.6 + 0.4 * random()",
    "scorr": "5 + 195 * power(random(), 3)",
    "dsnrms": "1 + 19 * random()",
    "ssnrms": "1 + 19 * random()",
    "magzpsci": "25.5 + random()",
    "magzpsciunc": "5e-6 + 1.5e-5 * random()",
    "magzpscirms": "0.02 + 0.03 * random()",
    "nmatches": "100 + floor(random() * 2901)::int",
    "clrcoeff": "-0.05 + 0.15 * random()",
    "clrcounc": "5e-6 + 2.5e-5 * random()",
    "zpclrcov": "-2e-6 * random()",
    "zpmed": "25.5 + random()",
    "clrmed": "0.3 + 0.5 * random()",
    "clrrms": "0.1 + 0.2 * random()",
    "exptime": "30",
}


def dataquality_rows(rng: np.random.Generator, det: pd.DataFrame) -> pd.DataFrame:
    """Python-side dataquality columns (one row per detection); the rest come from DATAQUALITY_SQL."""
    n = len(det)
    chipsf = rng.lognormal(np.log(1.5), 0.8, n)
    on_round = rng.random(n) < 0.05
    chipsf[on_round] = np.round(chipsf[on_round])
    return det[["candid", "oid", "fid"]].assign(chipsf=np.round(chipsf, 3), classtar=np.round(rng.uniform(0, 1, n), 3))


def non_detection_rows(rng: np.random.Generator, spec: pd.DataFrame) -> pd.DataFrame:
    """Non-detections: some in the 30 days before the first detection, the rest during the light curve."""
    ndet = (spec["ndet_g"] + spec["ndet_r"]).to_numpy()
    count = np.minimum(rng.poisson(0.8 * ndet + 2), 300) + 1
    obj = np.repeat(np.arange(len(spec)), count)
    first = spec["firstmjd"].to_numpy()[obj]
    span = spec["span"].to_numpy()[obj]
    before = rng.random(len(obj)) < 0.35
    after = np.minimum(span + 30.0, vocab.MJD_END - first)  # the data end: no epoch beyond it
    mjd = np.where(before, first - rng.uniform(0.5, 30.0, len(obj)), first + after * rng.random(len(obj)))
    return pd.DataFrame(
        {
            "oid": spec["oid"].to_numpy()[obj],
            "fid": rng.integers(1, 3, len(obj)),
            "mjd": np.round(mjd, 6),
            "diffmaglim": rng.uniform(17.0, 21.5, len(obj)),
        }
    ).drop_duplicates(["oid", "fid", "mjd"])
