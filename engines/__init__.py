"""The execution contract: one `Engine` protocol and `Result`, typed errors, the SQL guard, PostgreSQL, TAP + ADQL."""

from engines.bounded import BoundedEngine
from engines.engine import ENGINE_NAMES, Engine, Result
from engines.errors import DatabaseUnavailable, EngineError, ErrorKind, ExecutionError, GuardError
from engines.forwarding import ForwardingEngine
from engines.postgres import PostgresEngine, PostgresSettings
from engines.settings import EngineSettings
from engines.tap_settings import TapSettings

__all__ = [
    "ENGINE_NAMES",
    "BoundedEngine",
    "DatabaseUnavailable",
    "Engine",
    "EngineError",
    "EngineSettings",
    "ErrorKind",
    "ExecutionError",
    "ForwardingEngine",
    "GuardError",
    "PostgresEngine",
    "PostgresSettings",
    "Result",
    "TapSettings",
]
