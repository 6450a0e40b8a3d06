"""Plausible mistakes in a gold query, per catalog: the mutations ``benchmarks.db_fidelity`` tries.

A gold query is discriminative on a database when at least one mutation returns a different answer
(``benchmarks.db_fidelity`` says which part of the answer it compares).

Example:
    >>> [desc for desc, _ in mutations("SELECT oid FROM object WHERE ndet > 5 AND firstmjd > 59000")]
    ['mjd 59000 -1', 'mjd 59000 +1', 'drop where[0] ndet > 5', 'drop where[0] firstmjd > 59000']
    >>> [sql for _, sql in mutations("SELECT oid FROM probability WHERE classifier_id = 3", "multisurvey")][:1]
    ['SELECT oid FROM probability WHERE classifier_id = 1']
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG

__all__ = ["MUTATIONS", "Mutations", "mutations"]

_CLASSIFIER_SWAP = {"lc_classifier": "stamp_classifier", "stamp_classifier": "lc_classifier"}
_THRESHOLD_FACTORS = (0.8, 1.25)
_BOUNDS = (exp.GT, exp.GTE, exp.LT, exp.LTE)


@dataclass(frozen=True)
class Mutations:
    """The plausible mistakes tried on one catalog's gold queries.

    Attributes:
        classifier_names: A classifier name -> the one it is confused with.
        classifier_ids: A classifier id (``classifier_id = 3``) -> the one it is confused with.
        other_clauses: Also drop the conditions of HAVING, and those of JOIN ... ON that compare with a constant.
        thresholds: Also move each numeric bound (``n_det >= 10``, not an MJD) by a fifth, down and up.
    """

    classifier_names: Mapping[str, str]
    classifier_ids: Mapping[int, int] = field(default_factory=dict)
    other_clauses: bool = False
    thresholds: bool = False


def _multisurvey_mutations() -> Mutations:
    rows = list(load_catalog("multisurvey").rows["classifier"])
    following = rows[1:] + rows[:1]
    return Mutations(
        {row["classifier_name"]: other["classifier_name"] for row, other in zip(rows, following, strict=True)},
        {int(row["classifier_id"]): int(other["classifier_id"]) for row, other in zip(rows, following, strict=True)},
        other_clauses=True,
        thresholds=True,
    )


MUTATIONS = {"ztf": Mutations(_CLASSIFIER_SWAP), "multisurvey": _multisurvey_mutations()}
"""The mutations of each catalog's gold queries."""


def _is_ranking_one(node: exp.Expression) -> bool:
    if not isinstance(node, exp.EQ):
        return False
    col, lit = node.this, node.expression
    return (
        isinstance(col, exp.Column)
        and col.name.lower() == "ranking"
        and isinstance(lit, exp.Literal)
        and lit.this in ("1", "1.0")
    )


def _conjuncts(where: exp.Where) -> list[exp.Expression]:
    return list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]


def mutations(sql: str, catalog: str = DEFAULT_CATALOG) -> list[tuple[str, str]]:
    """(description, mutated SQL) pairs for a gold query on a catalog."""
    rules = MUTATIONS[catalog]
    tree = sqlglot.parse_one(sql, read="postgres")
    out: list[tuple[str, str]] = []

    def variant(desc: str, edit) -> None:
        t = tree.copy()
        if edit(t):
            out.append((desc, t.sql(dialect="postgres")))

    def drop_ranking(t) -> bool:
        hits = [n for n in t.find_all(exp.EQ) if _is_ranking_one(n)]
        for n in hits:
            n.replace(exp.true())
        return bool(hits)

    variant("drop ranking = 1", drop_ranking)
    variant("swap classifier", lambda t: _swap_classifier(t, rules))
    for s_i, ordered in enumerate(_top_n_keys(tree)):
        variant(f"flip order {ordered.sql(dialect='postgres')[:50]}", lambda t, s=s_i: _flip(t, s))
    mjds = [n for n in tree.find_all(exp.Literal) if not n.is_string and _as_float(n.this) > 50000]
    for i, lit in enumerate(mjds):
        for delta in (-1, 1):
            variant(f"mjd {lit.this} {delta:+d}", lambda t, i=i, d=delta: _shift(t, i, d))
    wheres = list(tree.find_all(exp.Where))
    for w_i, where in enumerate(wheres):
        for c_i, conj in enumerate(_conjuncts(where)):
            variant(
                f"drop where[{w_i}] {conj.sql(dialect='postgres')[:60]}",
                lambda t, w=w_i, c=c_i: _drop_conjunct(t, w, c),
            )
    if rules.other_clauses:
        for c_i, conj in enumerate(_other_conditions(tree)):
            variant(f"drop {conj.sql(dialect='postgres')[:60]}", lambda t, c=c_i: _drop_other(t, c))
    if rules.thresholds:
        for b_i, bound in enumerate(_bounds(tree)):
            for factor in _THRESHOLD_FACTORS:
                variant(
                    f"bound {bound.sql(dialect='postgres')[:50]} x{factor}", lambda t, b=b_i, f=factor: _move(t, b, f)
                )
    return out


def _swap_classifier(tree: exp.Expression, rules: Mutations) -> bool:
    """Name the classifier a gold query names as the one it is confused with (by name, or by id)."""
    names = [n for n in tree.find_all(exp.Literal) if n.is_string and n.this in rules.classifier_names]
    ids = [
        n.expression
        for n in tree.find_all(exp.EQ)
        if isinstance(n.this, exp.Column)
        and n.this.name.lower() == "classifier_id"
        and isinstance(n.expression, exp.Literal)
        and int(_as_float(n.expression.this)) in rules.classifier_ids
    ]
    for n in names:
        n.replace(exp.Literal.string(rules.classifier_names[n.this]))
    for n in ids:
        n.replace(exp.Literal.number(rules.classifier_ids[int(_as_float(n.this))]))
    return bool(names or ids)


def _top_n_keys(tree: exp.Expression) -> list[exp.Ordered]:
    """The first ORDER BY key of each SELECT that also has a LIMIT: its direction picks which rows are kept."""
    out = []
    for select in tree.find_all(exp.Select):
        order = select.args.get("order")
        if order is not None and order.expressions and select.args.get("limit") is not None:
            out.append(order.expressions[0])
    return out


def _flip(tree: exp.Expression, index: int) -> bool:
    """Read a top-n the other way round ("the most" for "the fewest"): the first key's direction is reversed."""
    ordered = _top_n_keys(tree)[index]
    ordered.set("desc", not ordered.args.get("desc"))
    ordered.set("nulls_first", None)
    return True


def _other_conditions(tree: exp.Expression) -> list[exp.Expression]:
    """Conditions of HAVING, and those of JOIN ... ON that compare a column with a constant."""
    out = []
    for having in tree.find_all(exp.Having):
        out += list(having.this.flatten()) if isinstance(having.this, exp.And) else [having.this]
    for join in tree.find_all(exp.Join):
        on = join.args.get("on")
        for conj in (list(on.flatten()) if isinstance(on, exp.And) else [on]) if on is not None else []:
            if isinstance(conj, exp.In | exp.Binary) and any(
                isinstance(a, exp.Literal) for a in conj.iter_expressions()
            ):
                out.append(conj)
    return out


def _drop_other(tree: exp.Expression, index: int) -> bool:
    _other_conditions(tree)[index].replace(exp.true())
    return True


def _bounds(tree: exp.Expression) -> list[exp.Literal]:
    """Numeric constants that bound a column (not MJDs, not inside a function call such as a cone search)."""
    return [
        n
        for n in tree.find_all(exp.Literal)
        if not n.is_string
        and isinstance(n.parent, _BOUNDS)
        and 0 < abs(_as_float(n.this)) < 50000
        and n.find_ancestor(exp.Anonymous, exp.Func) is None
    ]


def _move(tree: exp.Expression, index: int, factor: float) -> bool:
    bound = _bounds(tree)[index]
    bound.replace(exp.Literal.number(round(_as_float(bound.this) * factor, 6)))
    return True


def _as_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def _shift(t, index: int, delta: int) -> bool:
    lits = [n for n in t.find_all(exp.Literal) if not n.is_string and _as_float(n.this) > 50000]
    lits[index].replace(exp.Literal.number(_as_float(lits[index].this) + delta))
    return True


def _drop_conjunct(t, w_i: int, c_i: int) -> bool:
    conj = _conjuncts(list(t.find_all(exp.Where))[w_i])[c_i]
    conj.replace(exp.true())
    return True
