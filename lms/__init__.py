"""Language models for the pipeline: model strings, API-key checks, the in-process llama.cpp engine, the project's
own retries (``RetryingLM``), usage and cost (``lms.usage``) and fake LMs for tests and benchmarks (``lms.fake``).

Example:
    >>> from lms import model_slug
    >>> model_slug("local/gemma3-270m")
    'local-gemma3-270m'
"""

from lms.errors import LMConfigError, LMUnusable, LocalModelUnavailable, MissingApiKey, UnknownModel
from lms.llama_engine import LlamaCppEngine, LlamaSettings, build_engine
from lms.lm_watch import FATAL_LM_ERRORS, LMWatch
from lms.local_models import LOCAL_MODELS, LOCAL_PREFIX, LocalModel, demo_model_notice, local_model
from lms.resolve import DEFAULT_LOCAL_MODEL, model_slug, resolve_lm
from lms.retries import RetryingLM, retries_in_thread, retries_total

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "FATAL_LM_ERRORS",
    "LOCAL_MODELS",
    "LOCAL_PREFIX",
    "LMConfigError",
    "LMUnusable",
    "LMWatch",
    "LlamaCppEngine",
    "LlamaSettings",
    "LocalModel",
    "LocalModelUnavailable",
    "MissingApiKey",
    "RetryingLM",
    "UnknownModel",
    "build_engine",
    "demo_model_notice",
    "local_model",
    "model_slug",
    "resolve_lm",
    "retries_in_thread",
    "retries_total",
]
