"""Build a stage's predictor, with or without a reasoning field, under a stable attribute name."""

import dspy

__all__ = ["make_predictor"]


def make_predictor(signature: type[dspy.Signature], reasoning: bool) -> dspy.Predict:
    """Return a `dspy.Predict` for `signature`, prepending a `reasoning` output when asked.

    Unlike `dspy.ChainOfThought`, this keeps the predictor at the same attribute path either way, so
    `named_predictors()` and artifact keys do not depend on the reasoning switch.
    """
    if reasoning:
        field = dspy.OutputField(desc="short step-by-step reasoning")
        signature = signature.prepend(name="reasoning", field=field, type_=str)
    return dspy.Predict(signature)
