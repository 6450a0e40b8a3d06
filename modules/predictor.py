"""Build a stage's predictor, with or without a reasoning field, under a stable attribute name."""

import dspy

__all__ = ["make_predictor"]


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
