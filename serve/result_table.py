"""The answer page's result table: headers with unit, UCD and a summary of every fetched row, cells with RA/Dec
formatted and object ids linked to the object view.

The page's script (``static/result_table.js``) sorts and filters the rows of the page shown; the summaries cover
every fetched row, as the server pages them.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pandas as pd

from answering.cells import plain_value
from answering.columns import source_columns
from answering.formats import sexagesimal
from catalog.object_ids import object_id_columns

if TYPE_CHECKING:
    from answering import Answer

__all__ = ["Cell", "Header", "result_table"]

_RA_UCDS = ("pos.eq.ra", "pos.eq.ra;meta.main")
_DEC_UCDS = ("pos.eq.dec", "pos.eq.dec;meta.main")


@dataclasses.dataclass(frozen=True)
class Header:
    """One column's header: what it is (`title`: description, UCD and summary, shown on hover) and how it sorts."""

    name: str
    unit: str | None
    ucd: str | None
    title: str
    kind: str  # "number" or "text": how the page's script compares and filters its cells


@dataclasses.dataclass(frozen=True)
class Cell:
    """One shown cell: its `text`, the raw `value` it sorts by, a `title` on hover and a link (`href`)."""

    text: str
    value: Any = None
    title: str = ""
    href: str = ""

    @property
    def is_null(self) -> bool:
        """Tell whether the cell is SQL NULL."""
        return self.value is None


def result_table(answer: Answer, shown: pd.DataFrame) -> tuple[list[Header], list[list[Cell]]]:
    """The headers (summaries over all of ``answer.frame``) and the cells of `shown`, one page of its rows."""
    frame = answer.frame
    assert frame is not None, "only an answered question has a result table"
    labels = [str(label) for label in frame.columns]
    sources = source_columns(answer.sql, labels, catalog=answer.catalog)
    object_ids = object_id_columns(answer.catalog)
    headers = []
    formats = []
    for at, (info, source) in enumerate(zip(answer.columns, sources, strict=True)):
        values = frame.iloc[:, at]
        kind = "number" if _is_number(values) else "text"
        headers.append(Header(info.name, info.unit, info.ucd, _title(info, values, kind), kind))
        link = source is not None and source in object_ids
        formats.append((info.ucd if info.unit == "deg" else None, answer.catalog if link else None))
    rows = [
        [_cell(plain_value(value), *formats[at]) for at, value in enumerate(row)]
        for row in shown.itertuples(index=False, name=None)
    ]
    return headers, rows


def _is_number(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def _title(info: Any, values: pd.Series, kind: str) -> str:
    about = f"{info.description or ''} [{info.ucd}]".strip() if info.ucd else "computed: no unit or UCD"
    return f"{about}\n{summary(values, kind)}"


def summary(values: pd.Series, kind: str) -> str:
    """One line on a column's fetched values: min, max and nulls of numbers; distinct values and nulls of text.

    Examples:
        >>> summary(pd.Series([3.5, None, 1.25]), "number")
        'min 1.25 · max 3.5 · 1 null of 3 rows'
        >>> summary(pd.Series(["a", "b", "a"]), "text")
        '2 distinct · 0 nulls of 3 rows'
    """
    nulls = int(values.isna().sum())
    tail = f"{nulls:,} null{'' if nulls == 1 else 's'} of {len(values):,} row{'' if len(values) == 1 else 's'}"
    if kind == "number":
        present = values.dropna()
        if present.empty:
            return tail
        return f"min {_number(present.min())} · max {_number(present.max())} · {tail}"
    distinct = values.dropna().map(_hashable).nunique()
    return f"{distinct:,} distinct · {tail}"


def _hashable(value: Any) -> Any:
    return repr(value) if isinstance(value, (list, dict)) or hasattr(value, "tolist") else value


def _number(value: Any) -> str:
    value = plain_value(value)
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _cell(value: Any, position_ucd: str | None, object_catalog: str | None) -> Cell:
    if value is None:
        return Cell("NULL")
    if isinstance(value, float) and math.isfinite(value) and position_ucd in (*_RA_UCDS, *_DEC_UCDS):
        ra, dec = (value, 0.0) if position_ucd in _RA_UCDS else (0.0, value)
        part = sexagesimal(ra, dec).split()[0 if position_ucd in _RA_UCDS else 1]
        return Cell(f"{value:.6f}", value, f"{part} ({value!r} deg)")
    if object_catalog is not None:
        return Cell(str(value), value, "open the object's view", f"/objects/{object_catalog}/{quote(str(value))}")
    return Cell(str(value), value if isinstance(value, (int, float)) else str(value))
