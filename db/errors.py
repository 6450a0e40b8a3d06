"""Exceptions of the embedded test bed: its PostgreSQL server and the local TAP service."""

from engines.errors import EngineError

__all__ = ["ServerError"]


class ServerError(EngineError):
    """The embedded PostgreSQL server (or the local DaCHS) could not be started, stopped or inspected.

    It derives from `engines.errors.EngineError`: opening an engine on the embedded database starts the server.
    """
