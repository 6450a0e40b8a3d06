"""Why a gold query is not discriminative on a database, derived from its structure and its mutations' outcomes.

``benchmarks.db_fidelity`` calls ``why_not`` for each gold no mutation told apart, and ``reason_summary`` for the
per-kind counts the documentation renders. The kinds:

- ``gold_fails``: the gold itself fails (nothing to compare).
- ``no_mutation``: no mutation applies: the gold has no condition, classifier, MJD, numeric bound or top-n ordering.
- ``same_answer``: every mutation ran and returned the gold's answer (the data hold no row the mutation lets in
  or keeps out, or none that reaches the answer).
- ``mutations_time_out``: no mutation returned a different answer, and some timed out.

Example:
    >>> why_not({"runs": True, "error": None, "mutations": [], "compared": "identifiers", "identifier": "sid"},
    ...         "SELECT sid, survey_name FROM sid_lut ORDER BY sid", "multisurvey")["kind"]
    'no_mutation'
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from catalog import load_catalog

__all__ = ["KINDS", "reason_summary", "why_not"]

KINDS = ("no_mutation", "same_answer", "mutations_time_out", "gold_fails")
"""Every kind of reason, in the order the summary lists them."""


def _tables(sql: str, catalog: str) -> list[str]:
    """The catalog tables a query reads, in order of first mention."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError:
        return []
    known = set(load_catalog(catalog).table_names)
    names = [table.name for table in tree.find_all(exp.Table) if table.name in known]
    return list(dict.fromkeys(names))


def _lookup_note(sql: str, catalog: str) -> str:
    """' (it reads only the lookup tables a, b)' when every table the query reads is a lookup table, else ''."""
    tables = _tables(sql, catalog)
    lookups = {code.lookup for code in load_catalog(catalog).codes}
    if tables and set(tables) <= lookups:
        return f" (it reads only the lookup table{'s' if len(tables) > 1 else ''} {', '.join(tables)})"
    return ""


def why_not(item: dict, sql: str, catalog: str) -> dict[str, str]:
    """The kind of reason and a sentence saying why no mutation told the gold of ``item`` apart.

    Args:
        item: The gold's entry in the benchmark's output (``runs``, ``error``, ``compared``, ``identifier``,
            ``mutations`` with each one's ``mutation`` and ``error``).
        sql: The gold query.
        catalog: The catalog name.
    """
    if not item["runs"]:
        return {"kind": "gold_fails", "reason": f"the gold fails: {item['error']}"}
    note = _lookup_note(sql, catalog)
    if not item["mutations"]:
        return {
            "kind": "no_mutation",
            "reason": "no mutation applies: no condition, classifier, MJD, numeric bound or ORDER BY ... LIMIT" + note,
        }
    what = "rows" if item["compared"] == "rows" else f"{item['identifier']} set"
    parts = [f"{m['mutation']}: {'timed out' if m['error'] else 'the same ' + what}" for m in item["mutations"]]
    timed_out = any(m["error"] for m in item["mutations"])
    return {"kind": "mutations_time_out" if timed_out else "same_answer", "reason": "; ".join(parts) + note}


def reason_summary(items: list[dict]) -> dict[str, dict[str, int | str]]:
    """Per kind of reason: how many golds, and their ids (comma-separated text), for every kind.

    Example:
        >>> reason_summary([{"req_id": 7, "why_not": {"kind": "no_mutation", "reason": "..."}}])["no_mutation"]
        {'queries': 1, 'req_ids': '7'}
    """
    out: dict[str, dict[str, int | str]] = {}
    for kind in KINDS:
        ids = [str(i["req_id"]) for i in items if i.get("why_not", {}).get("kind") == kind]
        out[kind] = {"queries": len(ids), "req_ids": ", ".join(ids) or "none"}
    return out
