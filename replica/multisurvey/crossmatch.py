"""AllWISE and Gaia DR3 counterparts: drawn per astrophysical source, so a ZTF twin matches the same sources.

`attach_sources` adds the counterparts' ids and positions to a spec; `xmatch_rows` links the objects to them;
`allwise_rows` and `gaia.gaia_rows` describe the sources (each written once, by the spec that drew them).
"""

import numpy as np
import pandas as pd

from replica.engine.draws import allwise_sources, designation
from replica.multisurvey.sky import offset_positions

__all__ = ["ALLWISE_CATID", "GAIA_CATID", "allwise_rows", "attach_sources", "xmatch_rows"]

ALLWISE_CATID = 0
GAIA_CATID = 1
# Share of objects with a counterpart, per kind: (AllWISE, Gaia DR3).
_MATCH_RATE = {"VS": (0.5, 0.9), "AGN": (0.85, 0.35), "SN": (0.08, 0.02), "bogus": (0.1, 0.1), "moving": (0.0, 0.0)}
_GAIA_LIMIT_MAG = 20.8


def attach_sources(rng: np.random.Generator, spec: pd.DataFrame, wanted: np.ndarray | None = None) -> None:
    """Add wise_name, wise_ra, wise_dec, gaia_id, gaia_ra, gaia_dec (empty when unmatched) to `spec`.

    `wanted` says per object whether it must have (1) or lack (0) an AllWISE and a Gaia counterpart; NaN draws.
    """
    n = len(spec)
    kind = spec["kind"].to_numpy()
    rates = np.array([_MATCH_RATE[k] for k in kind]).reshape(n, 2)
    mag = 31.4 - 2.5 * np.log10(np.maximum(spec["flux"].to_numpy(), 1e-3))
    wise = rng.random(n) < rates[:, 0]
    gaia = (rng.random(n) < rates[:, 1]) & ((mag < _GAIA_LIMIT_MAG) | (kind == "bogus"))
    if wanted is not None:
        wise = np.where(np.isnan(wanted[:, 0]), wise, wanted[:, 0] == 1)
        gaia = np.where(np.isnan(wanted[:, 1]), gaia, wanted[:, 1] == 1)
    host = kind == "SN"
    wise_dist = np.where(host, rng.uniform(0.4, 1.8, n), rng.uniform(0.05, 0.6, n)) / 3600.0
    ra, dec = spec["ra"].to_numpy(), spec["dec"].to_numpy()
    wise_ra, wise_dec = offset_positions(ra, dec, wise_dist, rng.uniform(0, 2 * np.pi, n))
    gaia_ra, gaia_dec = offset_positions(ra, dec, rng.uniform(0.02, 0.3, n) / 3600.0, rng.uniform(0, 2 * np.pi, n))
    spec["wise_name"] = np.where(wise, designation(wise_ra, wise_dec), None)
    spec["wise_ra"], spec["wise_dec"] = np.where(wise, wise_ra, np.nan), np.where(wise, wise_dec, np.nan)
    gaia_id = rng.integers(4_000_000_000_000_000, 6_900_000_000_000_000_000, n)
    spec["gaia_id"] = pd.Series(gaia_id, dtype="Int64", index=spec.index).where(gaia)
    spec["gaia_ra"], spec["gaia_dec"] = np.where(gaia, gaia_ra, np.nan), np.where(gaia, gaia_dec, np.nan)


def _separation_arcsec(ra1, dec1, ra2, dec2) -> np.ndarray:
    d_ra = ((ra2 - ra1 + 180.0) % 360.0 - 180.0) * np.cos(np.radians(dec1))
    return np.hypot(d_ra, dec2 - dec1) * 3600.0


def xmatch_rows(spec: pd.DataFrame, objects: pd.DataFrame) -> pd.DataFrame:
    """Return xmatch rows of the objects (object rows, same order as spec) with a counterpart, dated like them."""
    rows, created_date = [], objects["created_date"].to_numpy()
    for catid, name_col, ra_col, dec_col in (
        (ALLWISE_CATID, "wise_name", "wise_ra", "wise_dec"),
        (GAIA_CATID, "gaia_id", "gaia_ra", "gaia_dec"),
    ):
        m = spec[name_col].notna().to_numpy()
        ra, dec = objects["meanra"].to_numpy()[m], objects["meandec"].to_numpy()[m]
        rows.append(
            pd.DataFrame(
                {
                    "oid": objects["oid"].to_numpy()[m],
                    "sid": objects["sid"].to_numpy()[m],
                    "catid": catid,
                    "dist": _separation_arcsec(ra, dec, spec[ra_col].to_numpy()[m], spec[dec_col].to_numpy()[m]),
                    "oid_catalog": spec[name_col][m].astype(str).to_numpy(),
                    "created_date": created_date[m],
                    "updated_date": created_date[m],
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def allwise_rows(rng: np.random.Generator, spec: pd.DataFrame) -> pd.DataFrame:
    """Return the AllWISE sources of a spec (AGN are red in W1-W2, as WISE selects them)."""
    m = spec["wise_name"].notna().to_numpy()
    agn = spec["kind"].to_numpy()[m] == "AGN"
    w1 = np.where(agn, rng.uniform(12.0, 15.5, m.sum()), np.nan)
    w1w2 = np.where(agn, rng.uniform(0.7, 1.5, m.sum()), np.nan)
    wise = allwise_sources(rng, spec["wise_ra"].to_numpy()[m], spec["wise_dec"].to_numpy()[m], w1, w1w2)
    wise["oid_catalog"] = spec["wise_name"].to_numpy()[m]
    return wise
