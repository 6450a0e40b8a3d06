"""Generate the rows of grounded ZTF entities with the base generator, apply their patches, keep the schema's keys."""

import logging

import numpy as np
import pandas as pd

from replica.engine.draws import GROUNDED_GIDX, allwise_sources, grounded_ztf_name
from replica.engine.grounding.constraints import conform, fitting
from replica.engine.grounding.entity import Entity
from replica.engine.grounding.patching import apply_patches, fitted
from replica.ztf import CATALOG, vocab
from replica.ztf.objects import spec_for_kinds, year_of
from replica.ztf.tables import generate_chunk

__all__ = ["grounded_tables"]

logger = logging.getLogger(__name__)

_MIN_LC_DETECTIONS = 6
_MAX_FREE_DETECTIONS = 60


def _kind(spec: dict) -> str:
    lc, stamp = spec.get("lc_class", ""), spec.get("stamp_class", "")
    if spec.get("kind"):
        return spec["kind"]
    if lc:
        return "SN" if lc in vocab.TRANSIENT else "var"
    if stamp in ("asteroid", "bogus"):
        return stamp
    return "SN" if spec.get("_ndet", 0) >= 10 or stamp == "SN" else "short"


def _oid_year(oid: str) -> int:
    try:
        return max(2000 + int(oid[3:5]), 2018)
    except ValueError:
        return 2020


def grounded_tables(
    entities: list[Entity], rng: np.random.Generator, *, old_feature_fraction: float, max_forced_rows: int
) -> dict[str, pd.DataFrame]:
    """Rows of every table for the entities (oids of unnamed entities are generated), within the schema's keys."""
    objects = [e for e in entities if e.needs_object]
    tables: dict[str, pd.DataFrame] = {}
    if objects:
        spec = spec_for_kinds(rng, np.array([_kind(e.spec) for e in objects], dtype=object), old_feature_fraction)
        _override(spec, objects, rng)
        tables = generate_chunk(rng, spec, GROUNDED_GIDX, max_forced_rows)
        apply_patches(tables, objects, CATALOG, special={"xmatch_catalog": _rename_catalog})
    extra = [source for e in entities for source in e.allwise]
    if extra:
        tables["allwise"] = pd.concat([tables.get("allwise", pd.DataFrame()), _allwise_rows(rng, extra)])
    conform(tables, CATALOG)
    return tables


def _override(spec: pd.DataFrame, objects: list[Entity], rng: np.random.Generator) -> None:
    used = {e.oid for e in objects if e.oid}  # one registry: a generated name never takes a named object's oid
    for i, entity in enumerate(objects):
        values = {k: v for k, v in entity.spec.items() if not k.startswith("_") and k in spec.columns}
        for key, value in values.items():
            spec.at[i, key] = value
        _counts(spec, i, entity.spec)
        if entity.oid and "firstmjd" not in entity.spec:
            year = _oid_year(entity.oid)
            spec.at[i, "firstmjd"] = vocab.YEAR_START_MJD.get(year, vocab.YEAR_START_MJD[2020]) + 5.3 + (i % 97) * 3.0
        if not entity.oid:
            entity.oid = _free_name(int(year_of(float(spec.at[i, "firstmjd"]))), i, len(objects), used)
        spec.at[i, "oid"] = entity.oid
    _normalise(spec)


def _free_name(year: int, slot: int, count: int, used: set[str]) -> str:
    """The grounded name in ``slot`` (an object's index among ``count``), or a later slot if a named object holds it."""
    while (name := grounded_ztf_name(year, slot)) in used:
        slot += count
    used.add(name)
    return name


def _counts(spec: pd.DataFrame, i: int, wanted: dict) -> None:
    g, r = int(spec.at[i, "ndet_g"]), int(spec.at[i, "ndet_r"])
    if g + r > _MAX_FREE_DETECTIONS:  # a light curve no condition asks for stays short: grounding stays fast
        g = g * _MAX_FREE_DETECTIONS // (g + r)
        r = _MAX_FREE_DETECTIONS - g
    g, r = wanted.get("_ndet_g", g), wanted.get("_ndet_r", r)
    if "_ndet" in wanted:
        total = wanted["_ndet"]
        g = min(g, total) if "_ndet_g" in wanted else total * 45 // 100
        r = total - g
    if wanted.get("_need_band_1") and g == 0:
        g, r = 1, max(r - 1, 0) if "_ndet" in wanted else r
    if wanted.get("_need_band_2") and r == 0:
        r, g = 1, max(g - 1, 0) if "_ndet" in wanted else g
    spec.at[i, "ndet_g"], spec.at[i, "ndet_r"] = g, r


def _normalise(spec: pd.DataFrame) -> None:
    lc = spec["lc_class"].to_numpy() != ""
    short = lc & (np.maximum(spec["ndet_g"], spec["ndet_r"]).to_numpy() < _MIN_LC_DETECTIONS)
    spec.loc[short, "ndet_r"] = _MIN_LC_DETECTIONS
    spec.loc[(spec["ndet_g"] + spec["ndet_r"]).to_numpy() == 0, "ndet_r"] = 1
    ndet = (spec["ndet_g"] + spec["ndet_r"]).to_numpy()
    spec.loc[(ndet > 1) & (spec["span"].to_numpy() <= 0), "span"] = 0.05
    spec.loc[ndet == 1, "span"] = 0.0
    spec["firstmjd"] = np.clip(spec["firstmjd"].astype(float), vocab.MJD_FIRST_ALERT, vocab.MJD_END - 6.0)
    spec["span"] = np.minimum(spec["span"].astype(float), vocab.MJD_END - 5.0 - spec["firstmjd"])
    spec["feat_old"] = spec["feat_old"].astype(bool) & lc
    flags = ["has_xmatch", "has_gaia", "forced", "ref_change", "gaia_unique1", "ps1_both"]
    spec[flags] = spec[flags].astype(bool)
    spec[["ndet_g", "ndet_r", "stamp_ver"]] = spec[["ndet_g", "ndet_r", "stamp_ver"]].astype(np.int64)


def _rename_catalog(tables: dict[str, pd.DataFrame], oid: str, columns: dict) -> None:
    """Give the object's AllWISE counterpart the designation a query names (in xmatch and allwise alike)."""
    name = columns["oid_catalog"]
    if fitting("allwise", "oid_catalog", name, CATALOG) is ...:
        logger.debug("an AllWISE source cannot be named %r; patch dropped", name)
        return
    xm, wise = tables["xmatch"], tables["allwise"]
    old = xm.loc[xm["oid"] == oid, "oid_catalog"].to_numpy()
    xm.loc[xm["oid"] == oid, "oid_catalog"] = name
    wise.loc[wise["oid_catalog"].isin(old), "oid_catalog"] = name


def _allwise_rows(rng: np.random.Generator, sources: list[dict]) -> pd.DataFrame:
    sources = [fitted("allwise", source, CATALOG) for source in sources]
    ra, dec = np.array([(s["ra"], s["dec"]) for s in sources], dtype=float).T
    w1 = np.array([s.get("w1mpro", np.nan) for s in sources], dtype=float)
    rows = allwise_sources(rng, ra, dec, w1, np.full(len(sources), np.nan))
    for i, source in enumerate(sources):
        for column, value in source.items():
            if column in rows.columns and column not in ("ra", "dec"):
                rows.loc[rows.index[i], column] = value
    return rows
