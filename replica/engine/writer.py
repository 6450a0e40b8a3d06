"""Bulk loading of DataFrames into a schema with COPY (CSV)."""

import io
import logging

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

__all__ = ["TableWriter"]

log = logging.getLogger(__name__)

_INTEGER_TYPES = {"smallint", "integer", "bigint"}
_PIECE_ROWS = 200_000


class TableWriter:
    """Writes DataFrames to the tables of `schema` through one psycopg connection, counting rows per table.

    Float columns are rounded to `decimals` places. With None, values far below 1e-6 survive: real columns are
    written with float4 precision and double precision columns as given.
    """

    def __init__(self, conn, schema: str, decimals: int | None) -> None:
        self.conn = conn
        self.schema = schema
        self.decimals = decimals
        self.counts: dict[str, int] = {}
        self._columns: dict[str, list[tuple[str, str]]] = {}

    def columns(self, table: str) -> list[tuple[str, str]]:
        """(name, data_type) of the table's columns in table order."""
        if table not in self._columns:
            rows = self.conn.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
                (self.schema, table),
            ).fetchall()
            self._columns[table] = [(r[0], r[1]) for r in rows]
        return self._columns[table]

    def _prepared(self, table: str, df: pd.DataFrame) -> pd.DataFrame:
        cols = [(c, t) for c, t in self.columns(table) if c in df.columns]
        out = df[[c for c, _ in cols]].copy()
        for c, t in cols:
            if t in _INTEGER_TYPES and out[c].dtype.kind == "f":
                out[c] = out[c].round().astype("Int64")
            elif out[c].dtype.kind == "f" and self.decimals is not None:
                out[c] = out[c].astype(np.float64).round(self.decimals)
            elif out[c].dtype.kind == "f" and t == "real":
                out[c] = out[c].astype(np.float32)
        return out

    def write_generated(self, table: str, df: pd.DataFrame, expressions: dict[str, str], seed: float) -> None:
        """COPY `df` into a temporary stage, then INSERT it into `table` adding server-side columns.

        Random values come from PostgreSQL's random() after setseed(seed), read in COPY order, so the
        result is deterministic.

        Args:
            table: target table.
            df: the columns generated in Python.
            expressions: target column -> SQL expression over the stage columns (may call random()).
            seed: setseed() argument in [-1, 1].
        """
        stage = f"_stage_{table}"
        self.conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {stage} (LIKE {self.schema}.{table})")
        self.conn.execute(f"TRUNCATE {stage}")
        saved = self.counts.get(table, 0)
        self._copy(stage, self._prepared(table, df))
        names = [c for c, _ in self.columns(table)]
        select = ", ".join(expressions.get(c, f'"{c}"') for c in names)
        self.conn.execute("SET max_parallel_workers_per_gather = 0")
        self.conn.execute("SELECT setseed(%s)", (seed,))
        self.conn.execute(f"INSERT INTO {self.schema}.{table} SELECT {select} FROM {stage}")
        self.counts[table] = saved + len(df)

    def write(self, table: str, df: pd.DataFrame) -> None:
        """COPY all rows of `df` (columns matched by name; missing columns stay NULL) into `table`."""
        self.counts.setdefault(table, 0)
        if df.empty:
            return
        out = self._prepared(table, df)
        self._copy(f"{self.schema}.{table}", out)
        self.counts[table] += len(out)
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
