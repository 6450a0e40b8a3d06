"""Execution engines: one interface (`Engine`), PostgreSQL and ALeRCE's TAP service behind it, the ADQL dialect."""

from engines.engine import ENGINE_NAMES, Engine, Result
from engines.factory import EngineSettings, open_engine
from engines.postgres import PostgresEngine
from engines.tap_settings import TapSettings

__all__ = [
    "ENGINE_NAMES",
    "Engine",
    "EngineSettings",
    "PostgresEngine",
    "Result",
    "TapSettings",
    "open_engine",
]
