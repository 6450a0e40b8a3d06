"""Runner-up interpretations: when the candidates disagree, the answer carries the other clusters' queries."""

from typing import Any

from modules.selection.sql_difference import describe_difference

__all__ = ["MAX_ALTERNATIVES", "alternatives"]

MAX_ALTERNATIVES = 3
"""Runner-up clusters an answer carries at most (largest first)."""


def alternatives(sql: str, candidates: list[dict[str, Any]], selection: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Return the runner-up interpretations of a question whose candidates disagreed, largest cluster first.

    One per result cluster other than the selected one, represented by its first candidate; clusters whose query
    failed, or whose query is the final SQL, are left out.

    Args:
        sql: The final SQL (the selected candidate's, after its checks).
        candidates: One ``{"path", "sql", "error_kind", "rows"}`` per candidate, in candidate order.
        selection: The prediction's ``{"selected", "clusters", "disagree", ...}``, or None (a single candidate).

    Returns:
        ``{"sql", "rows", "difference", "candidates"}`` per alternative (``difference``: how its SQL differs from
        the final one, ``modules.selection.sql_difference``; ``candidates``: the indexes of its cluster); [] when the
        candidates agreed.

    Examples:
        >>> described = [{"sql": "SELECT oid FROM object", "rows": 9}, {"sql": "SELECT oid FROM object LIMIT 1",
        ...              "rows": 1}]
        >>> selection = {"selected": 0, "clusters": [[0], [1]], "disagree": True}
        >>> [(found["rows"], found["difference"]) for found in alternatives("SELECT oid FROM object", described,
        ...                                                                  selection)]
        [(1, 'limit 1 instead of none')]
    """
    if not selection or not selection.get("disagree"):
        return []
    found = []
    for cluster in selection["clusters"]:
        first = candidates[cluster[0]]
        if selection["selected"] in cluster or first["rows"] is None or first["sql"] == sql:
            continue
        difference = describe_difference(sql, first["sql"])
        found.append({"sql": first["sql"], "rows": first["rows"], "difference": difference, "candidates": cluster})
    return found[:MAX_ALTERNATIVES]
