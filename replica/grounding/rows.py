"""Generate the rows of grounded entities with the base generator, apply their patches, and keep the schema's keys.

A patch writes only values its column can hold; a value for a key column names one row, and the rows whose foreign
key names that row follow it; the rows of all entities together then keep every key (``constraints.conform``).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from replica.grounding.constraints import conform, fitting, foreign_keys, primary_key, referencing
from replica.grounding.entities import Entity
from replica.synthetic import crossmatch, vocab
from replica.synthetic.chunk import generate_chunk
from replica.synthetic.objects import spec_for_kinds, year_of

__all__ = ["GROUNDED_GIDX", "grounded_name", "grounded_tables"]

logger = logging.getLogger(__name__)

GROUNDED_GIDX = 9_000_000_000
"""Global detection index of the first grounded detection: grounded candids never collide with the base ones."""
_MIN_LC_DETECTIONS = 6
_MAX_FREE_DETECTIONS = 60


def grounded_name(year: int, n: int) -> str:
    """Oid 'ZTF<yy>zz<5 letters>' of the n-th generated grounded object (base oids never hold 'zz' there)."""
    letters = ""
    for _ in range(5):
        n, r = divmod(n, 26)
        letters = chr(97 + r) + letters
    return f"ZTF{year % 100:02d}zz{letters}"


def _kind(spec: dict) -> str:
    lc, stamp = spec.get("lc_class", ""), spec.get("stamp_class", "")
    if spec.get("kind"):
        return spec["kind"]
    if lc:
        return "SN" if lc in vocab.TRANSIENT else "var"
    if stamp in ("asteroid", "bogus"):
        return stamp
    ndet = spec.get("_ndet", 0)
    return "SN" if ndet >= 10 or stamp == "SN" else "short"


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
    kinds = np.array([_kind(e.spec) for e in objects], dtype=object)
    spec = spec_for_kinds(rng, kinds, old_feature_fraction) if len(objects) else None
    tables: dict[str, pd.DataFrame] = {}
    if spec is not None:
        spec["ps1_both"] = False
        _override(spec, objects, rng)
        tables = generate_chunk(rng, spec, GROUNDED_GIDX, max_forced_rows)
        _apply_patches(tables, objects)
    extra = [source for e in entities for source in e.allwise]
    if extra:
        tables["allwise"] = pd.concat([tables.get("allwise", pd.DataFrame()), _allwise_rows(rng, extra)])
    conform(tables)
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
            spec.at[i, "firstmjd"] = vocab.YEAR_START_MJD.get(year, 58849) + 5.3 + (i % 97) * 3.0
        if not entity.oid:
            entity.oid = _free_name(int(year_of(float(spec.at[i, "firstmjd"]))), i, len(objects), used)
        spec.at[i, "oid"] = entity.oid
    _normalise(spec)


def _free_name(year: int, i: int, count: int, used: set[str]) -> str:
    """The name of the i-th of ``count`` grounded objects, or of a later slot when a named object holds it."""
    n = i
    while (name := grounded_name(year, n)) in used:
        n += count
    used.add(name)
    return name


def _counts(spec: pd.DataFrame, i: int, wanted: dict) -> None:
    g, r = int(spec.at[i, "ndet_g"]), int(spec.at[i, "ndet_r"])
    if g + r > _MAX_FREE_DETECTIONS:  # a light curve no condition asks for stays short: grounding stays fast
        g = g * _MAX_FREE_DETECTIONS // (g + r)
        r = _MAX_FREE_DETECTIONS - g
    if "_ndet_g" in wanted:
        g = wanted["_ndet_g"]
    if "_ndet_r" in wanted:
        r = wanted["_ndet_r"]
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
    ndet = (spec["ndet_g"] + spec["ndet_r"]).to_numpy()
    empty = ndet == 0
    spec.loc[empty, "ndet_r"] = 1
    ndet = (spec["ndet_g"] + spec["ndet_r"]).to_numpy()
    spec.loc[(ndet > 1) & (spec["span"].to_numpy() <= 0), "span"] = 0.05
    spec.loc[ndet == 1, "span"] = 0.0
    spec["firstmjd"] = np.clip(spec["firstmjd"].astype(float), vocab.MJD_FIRST_ALERT, vocab.MJD_END - 6.0)
    spec["span"] = np.minimum(spec["span"].astype(float), vocab.MJD_END - 5.0 - spec["firstmjd"])
    spec["feat_old"] = spec["feat_old"].astype(bool) & lc
    for col in ("has_xmatch", "has_gaia", "forced", "ref_change", "gaia_unique1", "ps1_both"):
        spec[col] = spec[col].astype(bool)
    for col in ("ndet_g", "ndet_r", "stamp_ver"):
        spec[col] = spec[col].astype(np.int64)


class _RowIndex:
    """Row positions of each oid in each table and the columns filters read, computed once per table.

    Patching then scans no table twice and converts no column twice (a pandas column of Arrow strings costs
    milliseconds per conversion, and there are hundreds of patches).
    """

    def __init__(self, tables: dict[str, pd.DataFrame]):
        self.tables = tables
        self._by_oid: dict[str, dict[str, np.ndarray]] = {}
        self._columns: dict[tuple[str, str], np.ndarray] = {}
        self._keyed: set[tuple[str, int]] = set()

    def rows(self, table: str, oid: str, filt: dict) -> np.ndarray:
        if table not in self._by_oid:
            frame = self.tables[table].reset_index(drop=True)
            self.tables[table] = frame
            self._by_oid[table] = {key: np.asarray(rows) for key, rows in frame.groupby("oid").indices.items()}
        rows = self._by_oid[table].get(oid, np.empty(0, dtype=np.int64))
        for column, value in filt.items():
            if column in self.tables[table].columns and len(rows):
                rows = rows[self._column(table, column)[rows] == value]
        return rows

    def set(self, table: str, rows: np.ndarray, columns: dict) -> None:
        """Write the columns' values into the rows; a key column's value names one row, so only one row gets it.

        A value its column cannot hold is dropped with a log line: the entity then misses that one condition.
        """
        if not len(rows):
            return
        key = primary_key(table)
        for column, value in columns.items():
            fitted = fitting(table, column, value)
            if fitted is ...:
                logger.debug("%s.%s cannot hold %r; patch dropped", table, column, value)
                continue
            if column not in self.tables[table].columns:  # a column the database fills (dataquality's noise)
                self.tables[table][column] = None
            if column in key:
                if not (self._column(table, column)[rows] == fitted).any():  # else a row holds it already
                    self._set_key(table, self._unkeyed(table, rows), column, fitted)
            else:
                self._write(table, rows, column, fitted)

    def _unkeyed(self, table: str, rows: np.ndarray) -> int:
        """The first of the rows whose key no patch has set yet (two references name two rows), else the first."""
        row = next((int(row) for row in rows if (table, int(row)) not in self._keyed), int(rows[0]))
        self._keyed.add((table, row))
        return row

    def _set_key(self, table: str, row: int, column: str, value) -> None:
        """Change a key column of one row, keeping foreign keys whole.

        A column that names a parent row (dataquality's candid names a detection) changes in the parent, and every
        row naming the changed row follows it. Grounded rows are found by oid, which every such key includes.
        """
        frame = self.tables[table]
        for fk in foreign_keys(table):
            if column in fk.columns and fk.ref_table in self.tables:
                wanted = {theirs: frame.at[row, mine] for mine, theirs in zip(fk.columns, fk.ref_columns, strict=True)}
                parents = self.rows(fk.ref_table, str(wanted.pop("oid")), wanted)
                if len(parents):
                    self._set_key(fk.ref_table, parents[0], fk.ref_columns[fk.columns.index(column)], value)
                    return
        for child, fk in referencing(table):
            if child in self.tables and column in fk.ref_columns:
                named = {mine: frame.at[row, theirs] for mine, theirs in zip(fk.columns, fk.ref_columns, strict=True)}
                rows = self.rows(child, str(named.pop("oid")), named)
                self._write(child, rows, fk.columns[fk.ref_columns.index(column)], value)
        self._write(table, np.array([row]), column, value)

    def _write(self, table: str, rows: np.ndarray, column: str, value) -> None:
        frame = self.tables[table]
        frame.loc[frame.index[rows], column] = value
        self._columns.pop((table, column), None)

    def _column(self, table: str, column: str) -> np.ndarray:
        if (table, column) not in self._columns:
            self._columns[(table, column)] = self.tables[table][column].to_numpy()
        return self._columns[(table, column)]


def _apply_patches(tables: dict[str, pd.DataFrame], objects: list[Entity]) -> None:
    index = _RowIndex(tables)
    for entity in objects:
        for table, filt, columns in entity.patches:
            if table == "xmatch_catalog":
                _rename_catalog(tables, entity.oid, columns["oid_catalog"])
            elif table in tables:
                index.set(table, index.rows(table, entity.oid, filt), columns)
        for table, filt, satisfy, violate in entity.alternating:
            if table not in tables:
                continue
            rows = index.rows(table, entity.oid, filt)
            index.set(table, rows[::2] if violate else rows, satisfy)
            if violate:
                index.set(table, rows[1::2], violate)


def _rename_catalog(tables: dict[str, pd.DataFrame], oid: str, name) -> None:
    if fitting("allwise", "oid_catalog", name) is ...:
        logger.debug("an AllWISE source cannot be named %r; patch dropped", name)
        return
    xm, wise = tables["xmatch"], tables["allwise"]
    old = xm.loc[xm["oid"] == oid, "oid_catalog"].to_numpy()
    xm.loc[xm["oid"] == oid, "oid_catalog"] = name
    wise.loc[wise["oid_catalog"].isin(old), "oid_catalog"] = name


def _allwise_rows(rng: np.random.Generator, sources: list[dict]) -> pd.DataFrame:
    sources = [_fitted("allwise", source) for source in sources]
    ra = np.array([s["ra"] for s in sources], dtype=float)
    dec = np.array([s["dec"] for s in sources], dtype=float)
    w1 = np.array([s.get("w1mpro", np.nan) for s in sources], dtype=float)
    rows = crossmatch.allwise_sources(rng, ra, dec, w1, np.full(len(sources), np.nan))
    for i, source in enumerate(sources):
        for column, value in source.items():
            if column in rows.columns and column not in ("ra", "dec"):
                rows.loc[rows.index[i], column] = value
    return rows


def _fitted(table: str, values: dict) -> dict:
    """The values that the table's columns can hold, as the columns hold them."""
    fitted = {column: fitting(table, column, value) for column, value in values.items()}
    return {column: value for column, value in fitted.items() if value is not ...}
