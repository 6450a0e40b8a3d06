"""Bulk loading of a generator's rows with COPY (CSV), table by table in the catalog's order (parents first)."""

import io
import logging
from collections.abc import Mapping

import numpy as np
import pandas as pd
import psycopg
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from catalog import load_catalog

__all__ = ["Loader"]

log = logging.getLogger(__name__)

_INTEGER_TYPES = {"smallint", "integer", "bigint"}
_PIECE_ROWS = 200_000


class Loader:
    """Writes DataFrames into a catalog's tables through one psycopg connection (a recipe's ``decimals`` and ``drawn``).

    Columns of ``drawn`` tables are drawn by the database: each is an SQL expression over the columns generated in
    Python (it may call random()), read in COPY order after setseed(seed), so the result is deterministic; the
    generator's random stream gives the seed once per write. Float columns are rounded to ``decimals`` places; with
    None, values far below 1e-6 survive: real columns are written in float4 precision, double precision as given.
    """

    def __init__(
        self, conn: psycopg.Connection, catalog: str, decimals: int | None, drawn: Mapping[str, Mapping[str, str]]
    ) -> None:
        loaded = load_catalog(catalog)
        self.conn, self.schema, self.decimals, self.drawn = conn, loaded.schema, decimals, drawn
        self._columns = {table.name: [(c.name, c.data_type) for c in table.columns] for table in loaded.tables}

    def write(self, tables: Mapping[str, pd.DataFrame], rng: np.random.Generator | None = None) -> None:
        """Write the rows of random objects; a drawn table's seed is ``rng``'s next uniform draw in [-1, 1).

        Raises:
            ValueError: a table is not in the catalog.
        """
        seed = None
        for name in self._ordered(tables):
            if name in self.drawn:
                seed = float(rng.uniform(-1.0, 1.0)) if seed is None else seed
                self._write_drawn(name, tables[name], self.drawn[name], seed)
            else:
                self._write(name, tables[name])

    def write_grounded(self, tables: Mapping[str, pd.DataFrame]) -> None:
        """Write grounded rows: a drawn column the grounding set keeps its value, the database draws the others."""
        for name in self._ordered(tables):
            frame = tables[name]
            if frame.empty:
                continue
            if name in self.drawn:
                drawn = {c: f'coalesce("{c}", {e})' if c in frame.columns else e for c, e in self.drawn[name].items()}
                self._write_drawn(name, frame, drawn, 0.0)
            else:
                self._write(name, frame)

    def _ordered(self, tables: Mapping[str, pd.DataFrame]) -> list[str]:
        unknown = sorted(set(tables) - set(self._columns))
        if unknown:
            raise ValueError(f"the catalog has no table {', '.join(unknown)}")
        return [name for name in self._columns if tables.get(name) is not None]

    def _prepared(self, table: str, df: pd.DataFrame) -> pd.DataFrame:
        cols = [(c, t) for c, t in self._columns[table] if c in df.columns]
        out = df[[c for c, _ in cols]].copy()
        for c, t in cols:
            if t in _INTEGER_TYPES and out[c].dtype.kind == "f":
                out[c] = out[c].round().astype("Int64")
            elif out[c].dtype.kind == "f" and self.decimals is not None:
                out[c] = out[c].astype(np.float64).round(self.decimals)
            elif out[c].dtype.kind == "f" and t == "real":
                out[c] = out[c].astype(np.float32)
        return out

    def _write_drawn(self, table: str, df: pd.DataFrame, expressions: dict[str, str], seed: float) -> None:
        """COPY ``df`` into a temporary stage, then INSERT it into ``table`` with the drawn columns' expressions."""
        stage = f"_stage_{table}"
        self.conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {stage} (LIKE {self.schema}.{table})")
        self.conn.execute(f"TRUNCATE {stage}")
        self._copy(stage, self._prepared(table, df))
        names = ", ".join(f'"{c}"' for c, _ in self._columns[table])
        select = ", ".join(expressions.get(c, f'"{c}"') for c, _ in self._columns[table])
        self.conn.execute("SET max_parallel_workers_per_gather = 0")
        self.conn.execute("SELECT setseed(%s)", (seed,))
        self.conn.execute(f"INSERT INTO {self.schema}.{table} ({names}) SELECT {select} FROM {stage}")

    def _write(self, table: str, df: pd.DataFrame) -> None:
        """COPY all rows of ``df`` (columns matched by name; missing columns stay NULL) into ``table``."""
        if df.empty:
            return
        out = self._prepared(table, df)
        self._copy(f"{self.schema}.{table}", out)
        log.debug("copied %d rows into %s", len(out), table)

    def _copy(self, target: str, out: pd.DataFrame) -> None:
        names = ", ".join(f'"{c}"' for c in out.columns)
        with self.conn.cursor() as cur, cur.copy(f"COPY {target} ({names}) FROM STDIN (FORMAT csv)") as cp:
            for start in range(0, len(out), _PIECE_ROWS):
                cp.write(_csv_bytes(out.iloc[start : start + _PIECE_ROWS]))


def _csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV of `frame` without header, written by Arrow (several times faster than pandas); NaN, None and '' are NULL."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    columns = [_empty_as_null(column) if pa.types.is_string(column.type) else column for column in table.columns]
    sink = io.BytesIO()
    pa_csv.write_csv(pa.table(columns, names=table.column_names), sink, pa_csv.WriteOptions(include_header=False))
    return sink.getvalue()


def _empty_as_null(column: pa.ChunkedArray) -> pa.ChunkedArray:
    return pc.if_else(pc.equal(column, ""), pa.scalar(None, column.type), column)
