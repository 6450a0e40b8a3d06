"""Build a stage's predictor, with or without a reasoning field, under a stable attribute name."""

import dspy

from catalog import Catalog, linked_names
from modules.predictors.prefix_cache_adapter import laid_out

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

    Returns ``{"signature": ...}`` to pass with the call, or ``{}`` when the instructions hold no scoped rule
    verbatim (the catalog has none, or an optimiser rewrote them): then the predictor's own signature is sent. The
    scoped rules it keeps are marked as this question's own (``modules.predictors.prefix_cache_adapter.laid_out``),
    so that the provider's adapter sends them after what every question shares.
    """
    tables, columns = linked_names(schema_text)
    instructions = predictor.signature.instructions
    kept, own = instructions, []
    for rule in catalog.scoped_rules:
        if f"\n{rule.text}" not in kept:
            continue
        if rule.applies(tables, columns):
            own.append(rule.text)
        else:
            kept = kept.replace(f"\n{rule.text}", "", 1)
    if kept == instructions and not own:
        return {}
    own.sort(key=lambda text: instructions.index(f"\n{text}"))  # in the order the instructions give them
    return {"signature": laid_out(predictor.signature.with_instructions(kept), rules=own)}
