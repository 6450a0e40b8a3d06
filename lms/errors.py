"""Errors raised while choosing and building a language model.

Every class derives from ``LMConfigError`` so a command can catch one class and print one line.
"""

from __future__ import annotations

__all__ = ["LMConfigError", "LMUnusable", "LocalModelUnavailable", "MissingApiKey", "UnknownModel"]


class LMConfigError(Exception):
    """A model string or a model's environment cannot give a working LM."""


class UnknownModel(LMConfigError):
    """The model string is malformed or names a local model we do not ship.

    Attributes:
        model: The model string as given.
    """

    def __init__(self, model: str, message: str) -> None:
        super().__init__(message)
        self.model = model


class MissingApiKey(LMConfigError):
    """The provider needs an API key and none of its environment variables is set.

    Attributes:
        model: The model string as given.
        env_vars: The environment variables that would provide the key, in order of preference.
    """

    def __init__(self, model: str, env_vars: tuple[str, ...]) -> None:
        names = " or ".join(env_vars)
        super().__init__(f"Model '{model}' needs an API key: set {names} in the environment.")
        self.model = model
        self.env_vars = env_vars


class LocalModelUnavailable(LMConfigError):
    """A local model cannot run because a package or its weights are missing.

    Attributes:
        model: The local model string (``local/...``).
        package: The pip requirement that provides what is missing.
    """

    def __init__(self, model: str, package: str, detail: str) -> None:
        super().__init__(f"Local model '{model}' is unavailable: {detail}. Install it with: pip install {package}")
        self.model = model
        self.package = package


class LMUnusable(LMConfigError):
    """The LM cannot answer at all: a call failed in a way every call would, or every call of a run failed.

    Attributes:
        kind: The failing call's error class name (``LMAuthError``, ``LMTransportError``, ...).
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind
