"""Arrays of strings such as ``ztf.taxonomy.classes`` over TAP: fetched as CSV where a VOTable cannot carry them,
and read back as lists where the service publishes them as JSON text.

DaCHS declares a ``text[]`` column as ``char`` with arraysize ``*x*``; astropy's VOTable parser refuses it (E13), and
the cells of that VOTable run the strings together anyway. ALeRCE's notebooks fetch such results as CSV, where DaCHS
writes each array as a Python list literal (``['SNIa', 'SNIbc']``); here a text column whose every value is such a
literal becomes a column of lists, as PostgreSQL returns it. CSV carries no units or descriptions. The local DaCHS
publishes array columns as JSON text instead (``catalog.dachs_rd``), which every VOTable reader takes: a catalog
array column whose values are all JSON arrays becomes lists again (`read_back_arrays`).
"""

import ast
import io

import numpy as np
import pyvo
import requests
from astropy.io.votable import parse as parse_votable
from astropy.io.votable.exceptions import E13
from astropy.table import Column, MaskedColumn, Table
from pyvo.dal import DALFormatError

__all__ = ["csv_table", "fetch_csv", "holds_string_arrays", "read_back_arrays"]


def holds_string_arrays(err: DALFormatError) -> bool:
    """Tell whether pyvo refused a VOTable for an arraysize it cannot read (``*x*``: an array of strings)."""
    return isinstance(getattr(err, "cause", None), E13)


def fetch_csv(
    service: pyvo.dal.TAPService, adql: str, *, max_rows: int, uploads: dict[str, Table] | None
) -> tuple[Table, bool]:
    """Run `adql` synchronously with RESPONSEFORMAT=csv; return its rows and whether there were more than `max_rows`.

    Raises:
        pyvo.dal.DALQueryError: The service answered with an error document.
        requests.RequestException: The HTTP request failed.
    """
    query = service.create_query(adql, maxrec=max_rows + 1, uploads=uploads, responseformat="csv")
    response = query.submit()
    response.raise_for_status()
    if "csv" not in response.headers.get("Content-Type", ""):  # DaCHS reports errors as a VOTable, status 200
        pyvo.dal.TAPResults(parse_votable(io.BytesIO(response.content)), url=query.queryurl)
        raise requests.RequestException(f"expected CSV, got {response.headers.get('Content-Type')}")
    table = csv_table(response.content)
    return table[:max_rows], len(table) > max_rows


def csv_table(data: bytes) -> Table:
    """Read a CSV result: types guessed, empty cells masked, list literals read back as lists.

    Examples:
        >>> table = csv_table(b'name,classes,n\\r\\nlc,"[\\'SNIa\\', \\'CV/Nova\\']",3\\r\\nstamp,"[\\'SN\\']",\\r\\n')
        >>> list(table["classes"]), table["n"].mask.tolist()
        ([['SNIa', 'CV/Nova'], ['SN']], [False, True])
    """
    table = Table.read(io.BytesIO(data), format="ascii.csv")
    return _lists_in(table, table.colnames)


def read_back_arrays(table: Table, array_columns: frozenset[str]) -> Table:
    """Turn the columns named in `array_columns` (any case) whose every value is a JSON array into columns of lists;
    the column keeps its unit and description.

    Examples:
        >>> table = Table({"classes": ['["SNIa","CV/Nova"]', '["SN"]'], "name": ['["x"]', '["y"]']})
        >>> table = read_back_arrays(table, frozenset({"classes"}))
        >>> list(table["classes"]), list(table["name"])
        ([['SNIa', 'CV/Nova'], ['SN']], [np.str_('["x"]'), np.str_('["y"]')])
    """
    return _lists_in(table, [name for name in table.colnames if name.lower() in array_columns])


def _lists_in(table: Table, names: list[str]) -> Table:
    """Replace each column of `names` whose values are all list literals by a column of lists."""
    for name in names:
        lists = _list_values(table[name])
        if lists is not None:
            cells = np.empty(len(lists), dtype=object)  # one list per cell, whatever their lengths
            for row, value in enumerate(lists):
                cells[row] = value
            old = table[name]
            table[name] = Column(cells, unit=old.unit, description=old.description, meta=old.meta)
    return table


def _list_values(column: Column) -> list | None:
    """The column's values as lists (None where masked) if every value is a list literal, else None."""
    if column.dtype.kind not in "USO":  # VOTable text of any length is an object column
        return None
    masked = column.mask if isinstance(column, MaskedColumn) else [False] * len(column)
    values: list = []
    for value, missing in zip(column, masked, strict=True):
        if missing:
            values.append(None)
            continue
        text = str(value).strip()
        if not (text.startswith("[") and text.endswith("]")):
            return None
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return None
        if not isinstance(parsed, list):
            return None
        values.append(parsed)
    return values if any(value is not None for value in values) else None
