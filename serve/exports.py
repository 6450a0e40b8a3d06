"""Downloads and pictures of an answer: CSV, VOTable and Parquet files, PNG figures."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from answering.cells import unique_labels
from answering.render import render_csv, render_votable

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from answering import Answer
    from answering.columns import ColumnInfo

__all__ = ["DOWNLOADS", "download", "png_bytes"]

DOWNLOADS = {
    "csv": ("text/csv", "csv"),
    "votable": ("application/x-votable+xml", "xml"),
    "parquet": ("application/vnd.apache.parquet", "parquet"),
}
"""Download formats: media type and file extension."""


def download(answer: Answer, fmt: str) -> bytes:
    """Render every fetched row of an answered question in `fmt` (a key of ``DOWNLOADS``)."""
    if fmt == "csv":
        return render_csv(answer.frame).encode()
    if fmt == "votable":
        return render_votable(answer).encode()
    return _parquet(answer.frame, answer.columns)


def _parquet(frame: pd.DataFrame, infos: list[ColumnInfo]) -> bytes:
    """The rows as Parquet; each field's metadata holds its unit, ucd and description (those it has)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays, fields = [], []
    for label, info, (_, values) in zip(unique_labels(frame), infos, frame.items(), strict=True):
        try:
            array = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed Python types in one column: keep them as text
            array = pa.array([None if v is None else str(v) for v in values], type=pa.string())
        described = {"unit": info.unit, "ucd": info.ucd, "description": info.description}
        metadata = {key: value for key, value in described.items() if value}
        arrays.append(array)
        fields.append(pa.field(label, array.type, metadata=metadata or None))
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_arrays(arrays, schema=pa.schema(fields)), buffer)
    return buffer.getvalue()


def png_bytes(figure: Figure) -> bytes:
    """Render a matplotlib figure as PNG."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=96)
    return buffer.getvalue()
