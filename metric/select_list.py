"""Parse the top-level SELECT list the way the reference Perfect-Match metric does.

The reference evaluator reads the predicted SQL's SELECT list into ``(output_name, source_name)`` pairs to undo
aliases. Its parser has artefacts that change scores, and this module reproduces them on purpose
(REFERENCE_SYSTEM.md, sections a.2 and a.3):

* only the first statement is read, comments are skipped, and tokenizing errors give an empty list;
* the list is read from the first SELECT outside parentheses, so ``(SELECT ...) UNION ...`` gives an empty list;
* a keyword stops the parse: ``SELECT DISTINCT ...`` gives an empty list;
* an un-aliased function call stops the parse (the items before it are kept);
* an aliased function call maps to the function name as written: ``COUNT(x) AS n`` gives ``('n', 'COUNT')``;
* any other aliased expression keeps its alias as source: ``a - b AS d`` gives ``('d', 'd')``;
* ``*`` and ``t.*`` give ``('*', '*')``; names lose their table prefix and quotes, and keep their case.
"""

import re

from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

__all__ = ["has_top_level_order_by", "parse_select_list"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_CLAUSE_END = frozenset(
    {
        TokenType.DISTINCT,
        TokenType.ALL,
        TokenType.FROM,
        TokenType.INTO,
        TokenType.WHERE,
        TokenType.GROUP_BY,
        TokenType.HAVING,
        TokenType.ORDER_BY,
        TokenType.LIMIT,
        TokenType.OFFSET,
        TokenType.FETCH,
        TokenType.UNION,
        TokenType.EXCEPT,
        TokenType.INTERSECT,
        TokenType.WINDOW,
    }
)
_NOT_NAMES = _CLAUSE_END | {
    TokenType.SELECT,
    TokenType.ALIAS,
    TokenType.NULL,
    TokenType.TRUE,
    TokenType.FALSE,
    TokenType.AND,
    TokenType.OR,
    TokenType.NOT,
    TokenType.IS,
    TokenType.IN,
    TokenType.LIKE,
    TokenType.ILIKE,
    TokenType.BETWEEN,
    TokenType.CASE,
    TokenType.WHEN,
    TokenType.THEN,
    TokenType.ELSE,
    TokenType.END,
}
_EXPRESSION_ENDS = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.END, TokenType.NUMBER})
_OPENERS = {TokenType.L_PAREN: 1, TokenType.L_BRACKET: 1, TokenType.R_PAREN: -1, TokenType.R_BRACKET: -1}


def _is_name(token: Token) -> bool:
    """Tell whether a token can be a column, table, function or alias name."""
    if token.token_type == TokenType.IDENTIFIER:
        return True
    if token.token_type in _NOT_NAMES or token.token_type.name.endswith("STRING"):
        return False
    return bool(_WORD.fullmatch(token.text))


def _first_statement(sql: str) -> list[tuple[int, Token]]:
    """Tokenize the first statement of ``sql`` into ``(depth, token)`` pairs; empty on a tokenizing error."""
    try:
        tokens = Postgres().tokenizer_class().tokenize(sql)
    except TokenError:
        return []
    statement, depth = [], 0
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON and depth == 0:
            break
        step = _OPENERS.get(token.token_type, 0)
        depth += min(step, 0)
        statement.append((depth, token))
        depth += max(step, 0)
    return statement


def _select_items(statement: list[tuple[int, Token]]) -> list[list[tuple[int, Token]]]:
    """Split the first depth-0 SELECT list into items, up to the first depth-0 clause keyword."""
    start = next((i for i, (d, t) in enumerate(statement) if d == 0 and t.token_type == TokenType.SELECT), None)
    if start is None:
        return []
    items: list[list[tuple[int, Token]]] = [[]]
    for depth, token in statement[start + 1 :]:
        if depth == 0 and token.token_type in _CLAUSE_END:
            break
        if depth == 0 and token.token_type == TokenType.COMMA:
            items.append([])
        else:
            items[-1].append((depth, token))
    return items


def _split_alias(item: list[tuple[int, Token]]) -> tuple[list[tuple[int, Token]], str | None]:
    """Separate an item into its expression and its alias (``AS name`` or a trailing bare name)."""
    for i, (depth, token) in enumerate(item):
        if depth == 0 and token.token_type == TokenType.ALIAS:
            alias = item[i + 1][1] if i + 1 < len(item) else None
            if alias is None or not _is_name(alias) or i + 2 != len(item):
                raise ValueError("malformed alias")
            return item[:i], alias.text
    if len(item) >= 2 and item[-1][0] == 0 and _is_name(item[-1][1]):
        before = item[-2][1]
        if before.token_type in _EXPRESSION_ENDS or before.token_type.name.endswith("STRING") or _is_name(before):
            return item[:-1], item[-1][1].text
    return item, None


def _strip_cast(expr: list[tuple[int, Token]]) -> list[tuple[int, Token]]:
    """Drop a trailing depth-0 ``::type`` cast."""
    for i, (depth, token) in enumerate(expr):
        if depth == 0 and token.token_type == TokenType.DCOLON:
            return expr[:i]
    return expr


def _dotted_name(tokens: list[Token]) -> str | None:
    """Return the last part of ``a.b.c`` (or ``*`` for ``t.*``), or None if the tokens are not a dotted name."""
    if len(tokens) % 2 == 0:
        return None
    names, dots = tokens[::2], tokens[1::2]
    if any(dot.token_type != TokenType.DOT for dot in dots):
        return None
    if all(_is_name(name) for name in names):
        return names[-1].text
    if all(_is_name(name) for name in names[:-1]) and names[-1].token_type == TokenType.STAR:
        return "*"
    return None


def _source(expr: list[tuple[int, Token]]) -> tuple[str | None, bool]:
    """Return ``(name, is_function)`` of a column reference or function call, or ``(None, False)``."""
    tokens = [token for _, token in _strip_cast(expr)]
    name = _dotted_name(tokens)
    if name is not None:
        return name, False
    if len(tokens) >= 3 and tokens[-1].token_type == TokenType.R_PAREN:
        open_at = next((i for i, t in enumerate(tokens) if t.token_type == TokenType.L_PAREN), None)
        head = _dotted_name(tokens[:open_at]) if open_at else None
        if head not in (None, "*") and all(depth > 0 for depth, _ in expr[open_at + 1 : len(tokens) - 1]):
            return head, True
    return None, False


def parse_select_list(sql: str) -> list[tuple[str, str]]:
    """Parse the top-level SELECT list of ``sql`` into ``(output_name, source_name)`` pairs, as the reference does.

    Args:
        sql: The SQL text; only its first statement is read.

    Returns:
        One pair per item, in SELECT-list order, up to the first item that stops the parse; an empty list when
        parsing fails.

    Examples:
        >>> parse_select_list("SELECT o.oid AS ztf_id, ndet FROM object o")
        [('ztf_id', 'oid'), ('ndet', 'ndet')]
        >>> parse_select_list('SELECT oid AS "ZTF id" FROM object')
        [('ZTF id', 'oid')]
        >>> parse_select_list("SELECT DISTINCT oid FROM object")
        []
        >>> parse_select_list("SELECT COUNT(oid) AS n FROM object")
        [('n', 'COUNT')]
        >>> parse_select_list("SELECT magmax - magmin AS d FROM magstat")
        [('d', 'd')]
        >>> parse_select_list("SELECT oid, COUNT(*), ndet AS n FROM object GROUP BY oid")
        [('oid', 'oid')]
        >>> parse_select_list("SELECT o.*, p.class_name AS c FROM object o")
        [('*', '*'), ('c', 'class_name')]
        >>> parse_select_list("-- note\\nSELECT oid FROM object; SELECT candid AS c FROM detection")
        [('oid', 'oid')]
        >>> parse_select_list("SELECT 'unterminated")
        []
    """
    pairs: list[tuple[str, str]] = []
    for item in _select_items(_first_statement(sql)):
        if not item:
            return []
        try:
            expr, alias = _split_alias(item)
        except ValueError:
            return []
        name, is_function = _source(expr)
        if alias is None and is_function:
            break
        if alias is None:
            text = name if name is not None else " ".join(token.text for _, token in expr)
            pairs.append((text, text))
        else:
            pairs.append((alias, name if name is not None else alias))
    return pairs


def has_top_level_order_by(sql: str) -> bool:
    """Tell whether the first statement of ``sql`` ends with an ORDER BY outside parentheses.

    Examples:
        >>> has_top_level_order_by("SELECT oid FROM object ORDER BY ndet DESC LIMIT 5")
        True
        >>> has_top_level_order_by("SELECT oid FROM (SELECT oid FROM object ORDER BY ndet) AS s")
        False
    """
    return any(depth == 0 and token.token_type == TokenType.ORDER_BY for depth, token in _first_statement(sql))
