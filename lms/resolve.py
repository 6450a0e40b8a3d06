"""Turn a model string from the command line into a configured ``dspy.LM`` (a ``RetryingLM``, which counts retries).

``local/<name>`` runs a shipped GGUF model in process (``lms.local_models``); any other ``provider/model`` string
goes to DSPy's engines (openai/..., anthropic/..., gemini/..., ollama_chat/...).

Example:
    >>> model_slug("openai/gpt-4.1-mini")
    'openai-gpt-4.1-mini'
    >>> model_slug(None)
    'local-gemma3-270m'
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

import dspy

from lms.errors import MissingApiKey, UnknownModel
from lms.llama_engine import LlamaSettings, build_engine
from lms.local_models import DEFAULT_LOCAL_MODEL, LOCAL_PREFIX, local_model
from lms.retries import RetryingLM

__all__ = [
    "API_KEY_ENV_VARS",
    "DEFAULT_LOCAL_MODEL",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_NUM_RETRIES",
    "LOCAL_MAX_TOKENS",
    "model_slug",
    "resolve_lm",
]

DEFAULT_MAX_TOKENS = 1024
LOCAL_MAX_TOKENS = 320
"""Answer budget of local models: enough for one SQL statement; tiny models that loop stop here, not at 1024."""
DEFAULT_NUM_RETRIES = 5
# Providers whose key we can check before the first call; others (ollama_chat, vertex_ai, ...) pass unchecked.
API_KEY_ENV_VARS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
}
# OpenAI reasoning models refuse temperature 0 and small budgets (DSPY_GUIDE.md §5.1).
_REASONING_MODEL = re.compile(r"^(o[1345]|gpt-5(?!.*-chat))")
_ENGINE_KEYS = {field.name for field in dataclasses.fields(LlamaSettings)} - {"max_tokens"}


def resolve_lm(model: str | None = None, **settings: Any) -> dspy.LM:
    """Build the LM for a model string.

    Args:
        model: ``provider/model`` (e.g. "openai/gpt-4.1-mini", "local/smollm2-135m"); None means the default local
            model.
        **settings: Passed to ``RetryingLM`` (temperature, max_tokens, cache, num_retries, api_key, ...); for a local
            model ``n_ctx``, ``seed`` and ``n_threads`` configure llama.cpp instead.

    Returns:
        A ``RetryingLM`` (a ``dspy.LM``); a local model's weights load on its first call.

    Raises:
        UnknownModel: the string has no provider, or names a local model we do not ship.
        MissingApiKey: the provider's API key is not in the environment and no ``api_key`` was given.
        LocalModelUnavailable: llama-cpp-python or the model's package is not installed.
    """
    model = (model or DEFAULT_LOCAL_MODEL).strip()
    provider, _, name = model.partition("/")
    if not provider or not name:
        raise UnknownModel(
            model,
            f"Model '{model}' has no provider: write it as provider/model, e.g. openai/gpt-4.1-mini or "
            f"{DEFAULT_LOCAL_MODEL}.",
        )
    if model.startswith(LOCAL_PREFIX):
        return _local_lm(model, settings)
    _check_api_key(model, provider, settings)
    defaults: dict[str, Any] = {"cache": True, "num_retries": DEFAULT_NUM_RETRIES}
    if _REASONING_MODEL.match(name.rsplit("/", 1)[-1].lower()):
        defaults |= {"temperature": 1.0, "max_tokens": 16_000}
    else:
        defaults |= {"temperature": 0.0, "max_tokens": DEFAULT_MAX_TOKENS}
    return RetryingLM(model, **(defaults | settings))


def _local_lm(model: str, settings: dict[str, Any]) -> dspy.LM:
    spec = local_model(model)
    engine_settings = {key: settings.pop(key) for key in list(settings) if key in _ENGINE_KEYS}
    engine = build_engine(spec.name, settings=LlamaSettings(**engine_settings))
    defaults = {"temperature": 0.0, "max_tokens": LOCAL_MAX_TOKENS, "cache": True}
    return RetryingLM(f"{LOCAL_PREFIX}{spec.name}", engine=engine, **(defaults | settings))


def _check_api_key(model: str, provider: str, settings: dict[str, Any]) -> None:
    env_vars = API_KEY_ENV_VARS.get(provider.lower())
    if not env_vars or settings.get("api_key") or settings.get("api_base"):
        return
    if not any(os.environ.get(var) for var in env_vars):
        raise MissingApiKey(model, env_vars)


def model_slug(model: str | None) -> str:
    """Name a model for folder and file names: lowercase, ``/`` and other separators become ``-``.

    Args:
        model: The model string; None means the default local model.

    Returns:
        A slug such as "openai-gpt-4.1-mini".
    """
    slug = re.sub(r"[^a-z0-9.]+", "-", (model or DEFAULT_LOCAL_MODEL).lower())
    return slug.strip("-.")
