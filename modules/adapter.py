"""The adapter a program is compiled with and run with (recorded in the artifact's manifest)."""

import dspy

__all__ = ["ADAPTERS", "make_adapter"]

ADAPTERS = ("chat", "json")
"""Adapter names: ``chat`` = ``dspy.ChatAdapter()`` (JSON fallback on parse errors), ``json`` = ``JSONAdapter()``."""


def make_adapter(name: str) -> dspy.Adapter:
    """Return a fresh adapter for a name of ``ADAPTERS``.

    Raises:
        ValueError: The name is not in ``ADAPTERS``.
    """
    if name == "chat":
        return dspy.ChatAdapter()
    if name == "json":
        return dspy.JSONAdapter()
    raise ValueError(f"Unknown adapter {name!r}; choose from {', '.join(ADAPTERS)}.")
