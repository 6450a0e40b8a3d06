"""The adapter a program is compiled with and run with (recorded in the artifact's manifest)."""

import dspy

from lms import DEFAULT_LOCAL_MODEL, LOCAL_PREFIX
from modules.options import ADAPTERS
from modules.predictors.prefix_cache_adapter import PrefixCacheAdapter

__all__ = ["ADAPTERS", "default_adapter", "make_adapter"]


def default_adapter(model: str | None) -> str:
    """Name the adapter of an uncompiled program and of a new compile for `model` (an artifact keeps its own).

    A provider's model gets ``compact``: it pays per token, and the default K candidates multiply each call (its
    prompt puts what repeats across questions first, for the provider's prompt cache). An
    embedded ``local/...`` model (None: the default one) keeps ``chat``, whose fuller template these small models
    were compiled and measured with.

    Examples:
        >>> default_adapter("openai/gpt-4.1-mini"), default_adapter("local/gemma3-270m"), default_adapter(None)
        ('compact', 'chat', 'chat')
    """
    return "chat" if (model or DEFAULT_LOCAL_MODEL).startswith(LOCAL_PREFIX) else "compact"


def make_adapter(name: str) -> dspy.Adapter:
    """Return a fresh adapter for a name of ``ADAPTERS``.

    Raises:
        ValueError: The name is not in ``ADAPTERS``.
    """
    if name == "compact":
        return PrefixCacheAdapter()
    if name == "chat":
        return dspy.ChatAdapter()
    if name == "json":
        return dspy.JSONAdapter()
    raise ValueError(f"Unknown adapter {name!r}; choose from {', '.join(ADAPTERS)}.")
