"""Per-object generation plan ("spec"): kind, classes, epochs, magnitudes, positions, cross-match flags.

Every other module derives its rows from the spec, so a grounded object only has to override spec columns.
"""

import numpy as np
import pandas as pd

from catalog.ztf_names import ztf_name
from replica.engine.draws import uniform_sky
from replica.ztf import vocab

__all__ = ["assign_oids", "random_kinds", "spec_for_kinds", "year_of"]


def random_kinds(rng: np.random.Generator, n: int) -> np.ndarray:
    """Draw `n` object kinds with the population mix of DATABASE.md section 4."""
    return rng.choice(np.array(list(vocab.KIND_WEIGHTS)), size=n, p=list(vocab.KIND_WEIGHTS.values()))


def _ndet(rng: np.random.Generator, kind: np.ndarray) -> np.ndarray:
    ndet = np.ones(len(kind), dtype=np.int64)
    ndet[kind == "asteroid"] = 1 + (rng.random((kind == "asteroid").sum()) < 0.15)
    ndet[kind == "bogus"] = 1 + (rng.random((kind == "bogus").sum()) < 0.3)
    ndet[kind == "short"] = rng.integers(3, 10, (kind == "short").sum())
    # a floor plus a lognormal excess, not a clipped lognormal: clipping piles objects up exactly on the floor,
    # which real light curves do not do and which makes `ndet > 30` and `ndet >= 30` differ far too often
    sn = kind == "SN"
    ndet[sn] = np.minimum(10 + np.round(rng.lognormal(np.log(20), 0.8, sn.sum())), 250)
    var = kind == "var"
    ndet[var] = np.minimum(30 + np.round(rng.lognormal(np.log(45), 1.0, var.sum())), 2000)
    return ndet


def _epochs(rng: np.random.Generator, kind: np.ndarray, ndet: np.ndarray) -> tuple[np.ndarray, ...]:
    """(first MJD, span, share of the span before the data end) of each object."""
    n = len(kind)
    first = rng.uniform(vocab.MJD_FIRST_ALERT, vocab.MJD_END - 1.0, n)  # objects are found until the data end
    var = kind == "var"
    first[var] = rng.uniform(vocab.MJD_FIRST_ALERT, vocab.MJD_END - 800.0, var.sum())  # variables are found early
    span = np.zeros(n)
    for k, (low, high) in {"asteroid": (0.01, 0.08), "bogus": (0.01, 8.0), "short": (1.0, 40.0)}.items():
        span[kind == k] = rng.uniform(low, high, (kind == k).sum())
    sn = kind == "SN"
    span[sn] = np.minimum(15.0 + ndet[sn] * rng.uniform(1.0, 3.0, sn.sum()), 400.0)
    span[var] = rng.uniform(300.0, 2300.0, var.sum())
    span[ndet == 1] = 0.0
    cut = np.minimum(span, vocab.MJD_END - 0.5 - first)
    return np.round(first, 5), cut, np.divide(cut, span, out=np.ones(n), where=span > 0)


def _cut_at_the_data_end(ndet_g: np.ndarray, ndet_r: np.ndarray, kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each band's detections before the data end: a light curve it cuts keeps its share (`kept`), at least one."""
    g, r = (np.where(kept < 1.0, np.round(ndet * kept), ndet).astype(np.int64) for ndet in (ndet_g, ndet_r))
    r[g + r == 0] = 1
    return g, r


def _magnitudes(rng: np.random.Generator, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(kind)
    lo = rng.uniform(17.0, 20.0, n)
    width = rng.uniform(0.3, 1.5, n)
    for k, (a, b, wa, wb) in {
        "asteroid": (18.0, 20.5, 0.0, 0.3),
        "bogus": (15.5, 20.5, 0.0, 1.0),
        "SN": (16.5, 19.8, 1.0, 3.0),
        "var": (13.0, 18.5, 0.2, 2.5),
    }.items():
        m = kind == k
        lo[m] = rng.uniform(a, b, m.sum())
        width[m] = rng.uniform(wa, wb, m.sum())
    hi = np.minimum(lo + width, 21.5)
    color = np.clip(rng.normal(0.4, 0.4, n), -1.0, 3.2)
    return lo, hi, color


def _lc_classes(rng: np.random.Generator, kind: np.ndarray, ndet_g: np.ndarray, ndet_r: np.ndarray) -> np.ndarray:
    lc = np.full(len(kind), "", dtype=object)
    # the light-curve classifier needs 6 detections in a band (Sanchez-Saez et al. 2021, AJ 161, 141; DATABASE.md 4)
    sn = np.isin(kind, ("SN", "short")) & (np.maximum(ndet_g, ndet_r) >= 6)
    for m, weights in ((sn, vocab.SN_CLASS_WEIGHTS), (kind == "var", vocab.VAR_CLASS_WEIGHTS)):
        w = np.array(list(weights.values()))
        lc[m] = rng.choice(np.array(list(weights)), size=m.sum(), p=w / w.sum())
    return lc


def _stamp_classes(rng: np.random.Generator, kind: np.ndarray, lc_class: np.ndarray) -> np.ndarray:
    group = kind.astype(object).copy()
    group[np.isin(lc_class, vocab.PERIODIC)] = "periodic"
    group[np.isin(lc_class, vocab.STOCHASTIC)] = "stochastic"
    group[(kind == "var") & (group == "var")] = "periodic"
    out = np.empty(len(kind), dtype=object)
    for g, mix in vocab.STAMP_MIX.items():
        m = group == g
        out[m] = rng.choice(np.array(vocab.STAMP_CLASSES), size=m.sum(), p=np.array(mix) / np.sum(mix))
    return out


def _uniform_by_kind(rng, kind, lc_class, ranges: dict, default: tuple) -> np.ndarray:
    """Uniform in the range of the object's kind or lc-class branch (``ranges`` keys), else in ``default``."""
    out = rng.uniform(*default, len(kind))
    for key, (a, b) in ranges.items():
        m = (kind == key) | np.isin(lc_class, {"periodic": vocab.PERIODIC, "stochastic": vocab.STOCHASTIC}.get(key, ()))
        out[m] = rng.uniform(a, b, m.sum())
    return out


def _crossmatch_flags(rng: np.random.Generator, kind: np.ndarray, lc_class: np.ndarray) -> dict:
    stoch = np.isin(lc_class, vocab.STOCHASTIC)
    per = np.isin(lc_class, vocab.PERIODIC)
    p_x = np.where(stoch, 0.5, np.where(per, 0.012, np.where(lc_class != "", 0.003, 0.03)))
    ranges_sg = {"periodic": (0.5, 1.0), "stochastic": (0.0, 0.6), "SN": (0.0, 0.5)}
    ranges_dist = {"periodic": (0.02, 1.0), "stochastic": (0.05, 4.0), "SN": (0.3, 4.0), "asteroid": (2.0, 25.0)}
    ranges_nr = {"periodic": (0.0, 0.8), "stochastic": (0.0, 1.0), "SN": (0.2, 5.0), "asteroid": (1.0, 15.0)}
    return {
        "has_xmatch": rng.random(len(kind)) < p_x,
        "sgscore1": np.round(_uniform_by_kind(rng, kind, lc_class, ranges_sg, (0.0, 1.0)), 4),
        "distpsnr1": np.round(_uniform_by_kind(rng, kind, lc_class, ranges_dist, (0.0, 10.0)), 3),
        "distnr": np.round(_uniform_by_kind(rng, kind, lc_class, ranges_nr, (0.0, 5.0)), 3),
        "gaia_unique1": rng.random(len(kind)) < 0.12,
        "has_gaia": (rng.random(len(kind)) < 0.9) | (kind == "var"),
    }


def _dmdt(rng: np.random.Generator, kind: np.ndarray) -> np.ndarray:
    n = len(kind)
    d = rng.normal(0.0, 0.4, n)
    d[kind == "SN"] = -rng.uniform(0.02, 1.2, (kind == "SN").sum())
    d[kind == "var"] = rng.normal(0.0, 0.15, (kind == "var").sum())
    flip = (kind == "SN") & (rng.random(n) < 0.2)
    d[flip] = rng.uniform(0.0, 0.8, flip.sum())
    d[rng.random(n) < 0.2] = np.nan
    return np.round(d, 4)


def spec_for_kinds(rng: np.random.Generator, kind: np.ndarray, old_feature_fraction: float) -> pd.DataFrame:
    """Draw a full random spec (one row per object, no oid yet) for the given kinds."""
    kind = np.asarray(kind, dtype=object)
    n = len(kind)
    ndet = _ndet(rng, kind)
    ndet_g = rng.binomial(ndet, 0.45)
    ndet_r = ndet - ndet_g
    long_lc = np.isin(kind, ("SN", "var")) & (np.maximum(ndet_g, ndet_r) < 6)
    ndet_r[long_lc] = 6
    first, span, kept = _epochs(rng, kind, ndet_g + ndet_r)
    ndet_g, ndet_r = _cut_at_the_data_end(ndet_g, ndet_r, kept)
    span[ndet_g + ndet_r == 1] = 0.0
    ra, dec = uniform_sky(rng, n, -30.0, 90.0)  # ZTF's sky, north of -30 deg
    lo, hi, color = _magnitudes(rng, kind)
    lc_class = _lc_classes(rng, kind, ndet_g, ndet_r)
    stamp_ver = np.where(first < 59400, 1, np.where(first > 59700, 2, 3))
    stamp_ver[rng.random(n) < 0.1] = 3
    spec = pd.DataFrame(
        {
            "oid": "",
            "kind": kind,
            "firstmjd": first,
            "span": span,
            "ndet_g": ndet_g,
            "ndet_r": ndet_r,
            "ra": ra,
            "dec": dec,
            "mag_lo": lo,
            "mag_hi": hi,
            "color": color,
            "lc_class": lc_class,
            "lc_p": 0.2 + 0.78 * rng.beta(1.8, 2.6, n),
            "lc_second": "",
            "lc_p2": np.nan,
            "stamp_class": _stamp_classes(rng, kind, lc_class),
            "stamp_p": 0.3 + 0.69 * rng.beta(2.2, 1.8, n),
            "stamp_ver": stamp_ver,
            "lc_ver": 0,
            "stamp_beta": "",
            "today_class": "",
            "today_p": np.nan,
            "lc_beta": False,
            "beta_class": "",
            "dmdt1": _dmdt(rng, kind),
            "dmdt2": _dmdt(rng, kind),
            "w1mpro": np.nan,
            "w1w2": np.nan,
            "ssdistnr": np.nan,
            "ssmagnr": np.nan,
            "ssnamenr": "",
            "ps1_both": False,
            **_crossmatch_flags(rng, kind, lc_class),
        }
    )
    active = first + span >= vocab.MJD_FORCED_START
    spec["forced"] = active & (ndet_g + ndet_r >= 3) & ~np.isin(kind, ("asteroid", "bogus"))
    spec["ref_change"] = (ndet_g + ndet_r >= 4) & (rng.random(n) < 0.05)
    spec["feat_old"] = (lc_class != "") & (rng.random(n) < old_feature_fraction)
    return spec


def year_of(mjd: np.ndarray | float) -> np.ndarray:
    """Calendar year of each MJD (2018 onwards, as oid year prefixes)."""
    years, starts = np.array(list(vocab.YEAR_START_MJD)), np.array(list(vocab.YEAR_START_MJD.values()))
    return years[np.maximum(np.searchsorted(starts, mjd, side="right") - 1, 0)]


def assign_oids(spec: pd.DataFrame, counters: dict, rng: np.random.Generator, reserved: set[str]) -> None:
    """Fill spec.oid with 'ZTF<yy><7 letters>' names, increasing with firstmjd within a year, at random gaps and never
    one of the ``reserved`` (grounded) oids; ``counters`` (year -> next counter value) is updated in place so that
    chunks never reuse a name."""
    years = year_of(spec["firstmjd"].to_numpy())
    order = np.argsort(spec["firstmjd"].to_numpy(), kind="stable")
    oids = np.empty(len(spec), dtype=object)
    gaps = rng.integers(1, 30, len(spec))
    for i in order:
        year = int(years[i])
        c = counters.setdefault(year, int(rng.integers(26**3, 26**4)))
        while (name := ztf_name(year, c)) in reserved:
            c += 1
        oids[i] = name
        counters[year] = c + int(gaps[i])
    spec["oid"] = oids
