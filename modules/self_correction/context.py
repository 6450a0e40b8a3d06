"""What self-correction shows with each error kind: closest valid names, or indexed columns.

Examples:
    >>> missing_name('column "dmdt_frist" does not exist')
    'dmdt_frist'
    >>> missing_name('column o.magmeen does not exist')
    'o.magmeen'
    >>> missing_name('function q3c_radial(double precision) does not exist')
    'q3c_radial'
"""

import re

from catalog import Catalog, render_schema_text
from engines.errors import ErrorKind, ExecutionError

__all__ = ["UNSUPPORTED_HINT", "correction_context", "missing_name"]

UNSUPPORTED_HINT = (
    "The query runs on ALeRCE's TAP service, translated to ADQL; the error names the construct it lacks. "
    "Avoid window functions, DISTINCT ON, NULLIF, string functions, ARRAY, LATERAL, NULLS FIRST/LAST, now(), "
    "intervals and extract, and the tables step, pipeline and lc_classifier*. Use instead: GROUP BY with MAX/MIN, "
    "or a subquery joined back on oid (for ranking = 1 use the ranking column); CASE WHEN; LIKE; IN (...); MJD "
    "numbers for dates; probability with classifier_name = '...'."
)

_MISSING = re.compile(
    r'(?:column|relation|function|table|schema|type)\s+"?([\w.]+)"?(?:\(|\s+does not exist)'
    r'|missing FROM-clause entry for table "?(\w+)"?',
    re.IGNORECASE,
)


def missing_name(message: str) -> str | None:
    """Return the undefined name a PostgreSQL error message complains about, or None."""
    match = _MISSING.search(message)
    if match is None:
        return None
    return match.group(1) or match.group(2)


def correction_context(
    catalog: Catalog, error: ExecutionError, tables: list[str], columns: dict[str, list[str]] | None
) -> tuple[str, str]:
    """Return (schema_text, hints) for correcting a query that failed with `error`.

    A missing name widens the schema to every column of the linked tables plus the tables of the closest
    valid names, and the hints list those names; a timeout lists the indexed columns of the linked tables; a
    construct the engine lacks (kind unsupported, TAP) lists what to avoid and what to use instead.
    """
    if error.kind == ErrorKind.MISSING_STRUCTURE:
        near = _closest(catalog, missing_name(error.message), tables)
        extra = [name.split(".")[0] for name in near if catalog.table(name.split(".")[0])]
        widened = list(dict.fromkeys([*tables, *extra]))
        hints = f"Valid names near {missing_name(error.message)!r}: {', '.join(near)}" if near else ""
        return render_schema_text(catalog, widened), hints
    schema_text = render_schema_text(catalog, tables, columns)
    if error.kind == ErrorKind.TIMEOUT:
        return schema_text, _indexed(catalog, tables)
    if error.kind == ErrorKind.UNSUPPORTED:
        return schema_text, UNSUPPORTED_HINT
    return schema_text, ""


def _closest(catalog: Catalog, name: str | None, tables: list[str]) -> list[str]:
    """Up to 3 close valid names: tables when a table fits best, else columns of the linked tables first."""
    if not name:
        return []
    prefix, _, bare = name.rpartition(".")
    lookup = name if prefix and catalog.table(prefix) else bare
    candidates = catalog.closest_names(lookup, n=10)
    if candidates and "." not in candidates[0]:  # the best match is a table: a table name was meant
        return [candidate for candidate in candidates if "." not in candidate][:3]
    candidates.sort(key=lambda candidate: candidate.split(".")[0] not in tables)
    return candidates[:3]


def _indexed(catalog: Catalog, tables: list[str]) -> str:
    parts = []
    for table in tables:
        table_def = catalog.table(table)
        key = table_def.primary_key if table_def else []
        indexed = list(dict.fromkeys([*key, *catalog.indexed_columns(table)]))
        if indexed:
            parts.append(f"{table}: {', '.join(indexed)}")
    return "Indexed columns: " + "; ".join(parts) if parts else ""
