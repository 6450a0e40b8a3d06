"""ADQL that people paste into the workbench's ADQL box, made into ADQL the TAP service (GAVO DaCHS 2.7) runs.

Users write standard ADQL and PostgreSQL habits that DaCHS 2.7 refuses: ``<>``, ``LIMIT n``, ``q3c_radial_query``,
``FROM object`` without the schema (DaCHS looks for ``public.object``), computed columns without a name (DaCHS names
them at random). `prepare_pasted` rewrites those, and only those: a query that needs none of them is sent exactly as
written. Every change is listed so the page can say what was sent instead.

Examples:
    >>> from engines.adql.translation import default_target
    >>> prepare_pasted("SELECT TOP 3 oid FROM ztf.object", default_target()).adql
    'SELECT TOP 3 oid FROM ztf.object'
    >>> pasted = prepare_pasted("select count(*) from object where ndet <> 1", default_target())
    >>> pasted.adql
    'SELECT COUNT(*) AS "count" FROM ztf.object AS object WHERE ndet != 1'
    >>> pasted.changes
    ('<> written as !=', 'object read as ztf.object', 'computed columns named: count')
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

from engines.adql.names import name_computed_columns
from engines.adql.reserved import RESERVED_WORDS
from engines.adql.rules import TapTarget, rewrite_q3c
from engines.adql.translation import ADQL

__all__ = ["PastedADQL", "prepare_pasted"]

_SERVICE_SCHEMAS = {"tap_schema", "tap_upload", "ivoa"}


class ADQLReader(ADQL):
    """ADQL read as it is written: TOP is a keyword, LOG is natural and LOG10 decimal (ADQL 2.0 §2.3)."""

    class Tokenizer(ADQL.Tokenizer):
        """Postgres tokens plus TOP."""

        KEYWORDS = {**ADQL.Tokenizer.KEYWORDS, "TOP": TokenType.TOP}  # noqa: RUF012 - as sqlglot's tokenizers

    class Parser(ADQL.Parser):
        """Postgres parsing with ADQL's logarithms."""

        FUNCTIONS = {  # noqa: RUF012 - as sqlglot's parsers
            **ADQL.Parser.FUNCTIONS,
            "LOG": lambda args: exp.Ln(this=args[0]) if len(args) == 1 else exp.Anonymous(this="LOG", expressions=args),
            "LOG10": lambda args: exp.Log(this=args[0]),
        }


@dataclass(frozen=True)
class PastedADQL:
    """The ADQL to send and what was changed in the text pasted (empty: sent as written)."""

    adql: str
    changes: tuple[str, ...] = ()


def prepare_pasted(text: str, target: TapTarget) -> PastedADQL:
    """Rewrite what DaCHS 2.7 refuses in a pasted ADQL query (already checked by ``engines.adql.guard``).

    Text this reader cannot parse is sent as written: the service judges it, and its error gets a hint.
    """
    try:
        tokens = ADQLReader().tokenize(text)
        tree = sqlglot.parse_one(text, read=ADQLReader)
    except SqlglotError:
        return PastedADQL(text)
    changes = []
    if any(token.token_type == TokenType.NEQ and token.text == "<>" for token in tokens):
        changes.append("<> written as !=")
    if any(token.token_type == TokenType.LIMIT for token in tokens):
        changes.append("LIMIT written as TOP")
    q3c = sorted({node.name.lower() for node in tree.find_all(exp.Anonymous) if node.name.lower().startswith("q3c_")})
    if q3c:
        tree = rewrite_q3c(tree, None)
        changes.append(f"{', '.join(q3c)} written as ADQL geometry (CONTAINS, POINT, CIRCLE, DISTANCE)")
    changes += _qualify_tables(tree, target)
    select = _result_select(tree)
    before = [item.alias for item in select.expressions] if select is not None else []
    tree = name_computed_columns(tree, None, dialect=ADQL)
    if select is not None:
        named = [item.alias for item, was in zip(select.expressions, before, strict=True) if item.alias and not was]
        if named:
            _quote_reserved_aliases(select)
            changes.append(f"computed columns named: {', '.join(named)}")
    if not changes:
        return PastedADQL(text)
    return PastedADQL(tree.sql(dialect=ADQL, comments=False), tuple(changes))


def _qualify_tables(tree: exp.Expression, target: TapTarget) -> list[str]:
    """Put the catalog's TAP schema on tables named without one (or with its PostgreSQL schema or public)."""
    ctes = {cte.alias.lower() for cte in tree.find_all(exp.CTE)}
    changes = []
    for table in tree.find_all(exp.Table):
        schema, name = table.text("db").lower(), table.name.lower()
        if schema in _SERVICE_SCHEMAS or schema == target.schema or name not in target.tables:
            continue
        if (not schema and name in ctes) or (schema and schema not in target.schema_aliases):
            continue
        written = f"{schema}.{table.name}" if schema else table.name
        table.set("db", exp.to_identifier(target.schema))
        if not table.alias:  # DaCHS resolves object.oid only when object is an alias of ztf.object
            table.set("alias", exp.TableAlias(this=exp.to_identifier(name)))
        changes.append(f"{written} read as {target.schema}.{name}")
    return list(dict.fromkeys(changes))


def _result_select(tree: exp.Expression) -> exp.Select | None:
    while isinstance(tree, exp.SetOperation):
        tree = tree.this
    return tree if isinstance(tree, exp.Select) else None


def _quote_reserved_aliases(select: exp.Select) -> None:
    for item in select.expressions:
        identifier = item.args.get("alias") if isinstance(item, exp.Alias) else None
        if identifier is not None and not identifier.quoted and identifier.name.lower() in RESERVED_WORDS:
            identifier.set("quoted", True)
