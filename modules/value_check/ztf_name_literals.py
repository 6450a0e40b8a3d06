"""ZTF names (``'ZTF26aacextk'``) written where a catalog stores ZTF objects under integer oids (the multi-survey one).

The rule from name to oid is ``catalog.ztf_names``. A name compared with an ``oid`` column (=, <>, IN) is a finding
and is replaced by its integer; a name in the question is shown with its oid, so that generation writes the integer.

Example:
    >>> replace_ztf_names("SELECT * FROM object WHERE oid = 'ZTF26aacextk' AND sid = 0")
    'SELECT * FROM object WHERE oid = 36029005847028852 AND sid = 0'
    >>> print(ztf_names_text("Light curve of ZTF26aacextk?"))
    ZTF objects are integer oids with sid 0 here: 'ZTF26aacextk' is oid 36029005847028852.
"""

from collections.abc import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from catalog import Catalog
from catalog.ztf_names import ZTF_NAME, ztf_oid_of
from modules.run.findings import Finding, FindingKind

__all__ = ["replace_ztf_names", "stores_ztf_names_as_integers", "ztf_name_findings", "ztf_names_text"]


def stores_ztf_names_as_integers(catalog: Catalog) -> bool:
    """Whether `catalog` keeps objects under integer oids, so that a ZTF name must become its oid."""
    table = catalog.table("object")
    column = table.column("oid") if table else None
    return column is not None and column.data_type in ("bigint", "integer")


def _name_literals(tree: exp.Expression) -> Iterator[exp.Literal]:
    """String literals holding a ZTF name that are compared with an ``oid`` column."""
    for node in tree.find_all(exp.EQ, exp.NEQ, exp.In):
        if isinstance(node, exp.In):
            column, literals = node.this, node.expressions
        else:
            column, literals = (
                (node.left, [node.right]) if isinstance(node.left, exp.Column) else (node.right, [node.left])
            )
        if not isinstance(column, exp.Column) or column.name.lower() != "oid":
            continue
        for literal in literals:
            if isinstance(literal, exp.Literal) and literal.is_string and ZTF_NAME.fullmatch(literal.name):
                yield literal


def _parse(sql: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read="postgres")
    except (SqlglotError, RecursionError):
        return None


def ztf_name_findings(sql: str) -> list[Finding]:
    """Return an ``unknown_value`` finding per ZTF name compared with an integer oid column (none if unparsable)."""
    tree = _parse(sql)
    findings = []
    for literal in _name_literals(tree) if tree is not None else ():
        oid = ztf_oid_of(literal.name)
        findings.append(
            Finding(
                kind=FindingKind.UNKNOWN_VALUE,
                message=f"oid is an integer here: the ZTF name {literal.name!r} is oid {oid} with sid 0. "
                "Compare oid with the integer.",
                column="object.oid",
                value=literal.name,
                closest=(str(oid),),
            )
        )
    return findings


def replace_ztf_names(sql: str) -> str:
    """Return `sql` with every ZTF name compared with an oid column replaced by its integer oid."""
    tree = _parse(sql)
    literals = list(_name_literals(tree)) if tree is not None else []
    if not literals:
        return sql
    for literal in literals:
        literal.replace(exp.Literal.number(ztf_oid_of(literal.name)))
    return tree.sql(dialect="postgres")


def ztf_names_text(question: str) -> str:
    """One line giving the oid of each ZTF name in the question ("" when it names none)."""
    names = dict.fromkeys(match.group(0) for match in ZTF_NAME.finditer(question))
    if not names:
        return ""
    listed = ", ".join(f"{name!r} is oid {ztf_oid_of(name)}" for name in names)
    return f"ZTF objects are integer oids with sid 0 here: {listed}."
