"""Per-alert match tables (ps1_ztf, gaia_ztf, ss_ztf, reference) and the AllWISE cross-match."""

import numpy as np
import pandas as pd

from replica.engine.draws import allwise_sources
from replica.ztf import vocab

__all__ = ["gaia_rows", "ps1_rows", "reference_rows", "ss_rows", "xmatch_rows"]


def _ps1_objid(ra: np.ndarray, dec: np.ndarray) -> np.ndarray:
    zone = np.floor((dec + 90.0) / (1.0 / 120.0)).astype(np.int64)
    return zone * 10**13 + np.floor(ra * 1e6).astype(np.int64) * 10 + 1


def ps1_rows(rng: np.random.Generator, spec: pd.DataFrame, first_band: pd.DataFrame) -> pd.DataFrame:
    """ps1_ztf: the first alert of each object, plus the first alert of the other band for 20 %."""
    first_band = first_band.sort_values(["_obj", "mjd"])
    second = first_band.groupby("_obj").nth(1)
    extra = second[(rng.random(len(second)) < 0.2) | spec["ps1_both"].to_numpy()[second["_obj"].to_numpy()]]
    base = first_band.groupby("_obj").head(1)
    src = pd.concat([base, extra]).sort_values(["_obj", "mjd"])
    obj = src["_obj"].to_numpy()
    n = len(src)
    ra, dec = spec["ra"].to_numpy()[obj], spec["dec"].to_numpy()[obj]
    out = {"oid": src["oid"].to_numpy(), "candid": src["candid"].to_numpy()}
    nearest = [  # (distance, star-galaxy score) of the three nearest PS1 sources
        (spec["distpsnr1"].to_numpy()[obj], spec["sgscore1"].to_numpy()[obj]),
        (rng.uniform(2, 15, n), rng.uniform(0, 1, n)),
        (rng.uniform(15, 30, n), rng.uniform(0, 1, n)),
    ]
    for k, (dist, sg) in enumerate(nearest, start=1):
        out[f"objectidps{k}"] = _ps1_objid(ra + k * 1e-4, dec)
        base_mag = rng.uniform(14.0, 22.0, n)
        for b, off in zip("griz", (0.4, 0.0, -0.2, -0.3), strict=True):
            out[f"s{b}mag{k}"] = np.clip(base_mag + off + rng.normal(0, 0.1, n), 12.0, 23.0)
        out[f"sgscore{k}"] = sg
        out[f"distpsnr{k}"] = dist
    df = pd.DataFrame(out)
    df["nmtchps"] = rng.integers(3, 51, n)
    missing = rng.random(n) < 0.03
    cols = [c for c in df.columns if c[:-1] in ("sgmag", "srmag", "simag", "szmag", "sgscore", "distpsnr")]
    df.loc[missing, cols] = -999.0
    df.loc[missing, "nmtchps"] = 0
    for k in (1, 2, 3):
        df[f"unique{k}"] = rng.random(n) < 0.1
    # the second band's first alert of these objects saw another nearest PS1 source
    changed = spec["ps1_both"].to_numpy()[obj] & df.duplicated("oid").to_numpy()
    df.loc[changed, "objectidps1"] = df.loc[changed, "objectidps2"]
    df.loc[changed, "unique1"] = True
    return df


def gaia_rows(rng: np.random.Generator, spec: pd.DataFrame, first: pd.DataFrame) -> pd.DataFrame:
    """gaia_ztf: nearest Gaia source of the first alert, for 90 % of the objects."""
    keep = spec["has_gaia"].to_numpy()
    n = keep.sum()
    return pd.DataFrame(
        {
            "oid": spec["oid"].to_numpy()[keep],
            "candid": first["candid"].to_numpy()[keep],
            "neargaia": rng.uniform(0.05, 90.0, n),
            "neargaiabright": rng.uniform(5.0, 90.0, n),
            "maggaia": rng.uniform(10.0, 21.0, n),
            "maggaiabright": rng.uniform(6.0, 14.0, n),
            "unique1": spec["gaia_unique1"].to_numpy()[keep],
        }
    )


def ss_rows(rng: np.random.Generator, spec: pd.DataFrame, first: pd.DataFrame) -> pd.DataFrame:
    """ss_ztf: sentinels (-999, 'null') unless the object is an asteroid or has grounded values."""
    n = len(spec)
    ast = spec["kind"].to_numpy() == "asteroid"
    named = spec["ssnamenr"].to_numpy() != ""
    keep = (rng.random(n) < 0.85) | ast | named
    pool = np.array([str(v) for v in rng.integers(1000, 600000, 400)] + ["2003FP134", "2011QN47", "2019AB12"])
    dist = np.where(ast, np.round(rng.uniform(0, 5, n)), -999.0)
    mag = np.where(ast, np.round(rng.uniform(16.0, 21.0, n), 1), -999.0)
    name = np.where(ast, rng.choice(pool, n), "null").astype(object)
    dist = np.where(np.isnan(spec["ssdistnr"].to_numpy()), dist, spec["ssdistnr"].to_numpy())
    mag = np.where(np.isnan(spec["ssmagnr"].to_numpy()), mag, spec["ssmagnr"].to_numpy())
    name[named] = spec["ssnamenr"].to_numpy()[named]
    return pd.DataFrame(
        {
            "oid": spec["oid"].to_numpy()[keep],
            "candid": first["candid"].to_numpy()[keep],
            "ssdistnr": dist[keep],
            "ssmagnr": mag[keep],
            "ssnamenr": name[keep],
        }
    )


def reference_rows(rng: np.random.Generator, spec: pd.DataFrame, first_band: pd.DataFrame, last_band) -> pd.DataFrame:
    """reference: one row per (object, band); a second reference image when reference_change is set."""
    change = spec["ref_change"].to_numpy()[last_band["_obj"].to_numpy()]
    later = last_band[change].assign(rfid=lambda band: band["rfid"] + 1)
    src = pd.concat([first_band, later], ignore_index=True).drop_duplicates(["oid", "rfid"])
    obj = src["_obj"].to_numpy()
    n = len(src)
    start = rng.uniform(58100.0, 58450.0, n)
    return src[["oid", "rfid", "candid", "fid"]].assign(
        rcid=rng.integers(0, 64, n),
        field=rng.integers(200, 881, n),
        magnr=rng.uniform(14.0, 21.0, n),
        sigmagnr=rng.uniform(0.01, 0.2, n),
        chinr=rng.lognormal(0.0, 0.5, n),
        sharpnr=rng.normal(0.0, 0.1, n),
        ranr=spec["ra"].to_numpy()[obj],
        decnr=spec["dec"].to_numpy()[obj],
        mjdstartref=start,
        mjdendref=start + rng.uniform(10.0, 200.0, n),
        nframesref=rng.integers(15, 41, n),
    )


def xmatch_rows(rng: np.random.Generator, spec: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(xmatch, allwise) for the objects with has_xmatch; AllWISE positions within 1 arcsec."""
    sel = spec[spec["has_xmatch"].to_numpy()]
    n = len(sel)
    dist = rng.uniform(0.05, 0.9, n)
    angle = rng.uniform(0, 2 * np.pi, n)
    dec = sel["dec"].to_numpy() + dist * np.sin(angle) / 3600
    ra = (sel["ra"].to_numpy() + dist * np.cos(angle) / 3600 / np.cos(np.radians(dec))) % 360
    stoch = np.isin(sel["lc_class"].to_numpy(), vocab.STOCHASTIC)
    lpv = sel["lc_class"].to_numpy() == "LPV"
    w1 = np.where(lpv, rng.uniform(5.0, 9.5, n), np.where(stoch, rng.uniform(11.0, 15.0, n), np.nan))
    w1 = np.where(np.isnan(sel["w1mpro"].to_numpy()), w1, sel["w1mpro"].to_numpy())
    w1w2 = np.where(stoch, rng.uniform(1.0, 1.7, n), np.nan)
    w1w2 = np.where(np.isnan(sel["w1w2"].to_numpy()), w1w2, sel["w1w2"].to_numpy())
    wise = allwise_sources(rng, ra, dec, w1, w1w2)
    xm = pd.DataFrame(
        {
            "oid": sel["oid"].to_numpy(),
            "catid": "allwise",
            "oid_catalog": wise["oid_catalog"],
            "dist": dist,
        }
    )
    return xm, wise
