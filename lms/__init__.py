"""Language models for the pipeline: model strings, API-key checks, the in-process llama.cpp engine, the project's
own retries (``RetryingLM``), usage and cost (``lms.usage``) and fake LMs for tests and benchmarks (``lms.fake``).

Example:
    >>> from lms import model_slug
    >>> model_slug("local/gemma3-270m")
    'local-gemma3-270m'
"""

from cli.lazy_exports import lazy_exports

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

# Imported on first use: a command's --help must not wait for the program (benchmarks/startup.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "LMConfigError": "lms.errors",
        "LMUnusable": "lms.errors",
        "LocalModelUnavailable": "lms.errors",
        "MissingApiKey": "lms.errors",
        "UnknownModel": "lms.errors",
        "LlamaCppEngine": "lms.llama_engine",
        "LlamaSettings": "lms.llama_engine",
        "build_engine": "lms.llama_engine",
        "FATAL_LM_ERRORS": "lms.lm_watch",
        "LMWatch": "lms.lm_watch",
        "LOCAL_MODELS": "lms.local_models",
        "LOCAL_PREFIX": "lms.local_models",
        "LocalModel": "lms.local_models",
        "demo_model_notice": "lms.local_models",
        "local_model": "lms.local_models",
        "DEFAULT_LOCAL_MODEL": "lms.local_models",
        "model_slug": "lms.resolve",
        "resolve_lm": "lms.resolve",
        "RetryingLM": "lms.retries",
        "retries_in_thread": "lms.retries",
        "retries_total": "lms.retries",
    },
)
