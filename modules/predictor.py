"""Build a stage's predictor, with or without a reasoning field, under a stable attribute name."""

import dspy

from catalog import Catalog, linked_names

__all__ = ["make_predictor", "rules_fitted_to"]


def make_predictor(signature: type[dspy.Signature], reasoning: bool, *, rules: str = "") -> dspy.Predict:
    """Return a `dspy.Predict` for `signature`, with the catalog's `rules` after its instructions and, when asked,
    a `reasoning` output first.

    Unlike `dspy.ChainOfThought`, this keeps the predictor at the same attribute path either way, so
    `named_predictors()` and artifact keys do not depend on the reasoning switch. The rules (``Catalog.sql_rules``)
    make the SQL-writing prompts specific to the catalog the program writes for.
    """
    if rules:
        signature = signature.with_instructions(f"{signature.instructions}\n{rules}")
    if reasoning:
        field = dspy.OutputField(desc="short step-by-step reasoning")
        signature = signature.prepend(name="reasoning", field=field, type_=str)
    return dspy.Predict(signature)


def rules_fitted_to(predictor: dspy.Predict, catalog: Catalog, schema_text: str) -> dict[str, type[dspy.Signature]]:
    """The call's signature without the catalog's scoped rules that the linked `schema_text` does not need.

    Returns ``{"signature": ...}`` to pass with the call, or ``{}`` when every rule applies or the instructions no
    longer hold the rules verbatim (an optimiser rewrote them): then the predictor's own signature is sent.
    """
    tables, columns = linked_names(schema_text)
    instructions = predictor.signature.instructions
    kept = instructions
    for rule in catalog.scoped_rules:
        if not rule.applies(tables, columns):
            kept = kept.replace(f"\n{rule.text}", "", 1)
    return {"signature": predictor.signature.with_instructions(kept)} if kept != instructions else {}
