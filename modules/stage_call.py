"""Call one predictor without letting bad LM output crash the run."""

import logging

import dspy

from modules.failures import FailureKind, StageFailure

__all__ = ["call_predictor"]

logger = logging.getLogger(__name__)

_FATAL_LM_ERRORS = (dspy.LMConfigurationError, dspy.LMAuthError, dspy.LMBillingError)


def call_predictor(
    stage: str, predictor: dspy.Predict, **inputs: object
) -> tuple[dspy.Prediction | None, StageFailure | None]:
    """Run `predictor` and turn a parse or LM failure into a typed `StageFailure`.

    Configuration, authentication and billing errors still raise: they would fail every question alike.

    Args:
        stage: Stage name recorded in the failure.
        predictor: The predictor to call.
        **inputs: The signature's input fields.

    Returns:
        (prediction, None) on success, (None, failure) otherwise.
    """
    try:
        return predictor(**inputs), None
    except dspy.AdapterParseError as err:
        failure = StageFailure(stage, FailureKind.PARSE, _first_line(err))
    except _FATAL_LM_ERRORS:
        raise
    except dspy.LMError as err:
        failure = StageFailure(stage, FailureKind.LM_ERROR, f"{type(err).__name__}: {_first_line(err)}")
    logger.info("stage %s failed (%s): %s", stage, failure.kind, failure.message)
    return None, failure


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
