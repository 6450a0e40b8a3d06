"""Call one predictor without letting bad LM output crash the run."""

import logging

import dspy

from fileio.text import encodable
from lms.lm_watch import FATAL_LM_ERRORS
from modules.run.failures import FailureKind, StageFailure

__all__ = ["call_predictor"]

logger = logging.getLogger(__name__)


def call_predictor(
    stage: str, predictor: dspy.Predict, **inputs: object
) -> tuple[dspy.Prediction | None, StageFailure | None]:
    """Run `predictor` and turn a parse or LM failure into a typed `StageFailure`.

    Fatal LM errors (``lms.FATAL_LM_ERRORS``: configuration, authentication, billing, unknown model, provider
    unreachable) still raise: they would fail every question alike.

    Args:
        stage: Stage name recorded in the failure.
        predictor: The predictor to call.
        **inputs: The signature's input fields.

    Returns:
        (prediction, None) on success, (None, failure) otherwise.
    """
    inputs = {name: _valid_text(value) for name, value in inputs.items()}
    try:
        return predictor(**inputs), None
    except dspy.AdapterParseError as err:
        failure = StageFailure(stage, FailureKind.PARSE, _first_line(err))
    except FATAL_LM_ERRORS:
        raise
    except dspy.LMError as err:
        failure = StageFailure(stage, FailureKind.LM_ERROR, f"{type(err).__name__}: {_first_line(err)}")
    logger.info("stage %s failed (%s): %s", stage, failure.kind, failure.message)
    return None, failure


def _valid_text(value: object) -> object:
    """Text that UTF-8 can encode: a lone surrogate (e.g. from a JSON escape in LM output) becomes U+FFFD."""
    return encodable(value) if isinstance(value, str) else value


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
