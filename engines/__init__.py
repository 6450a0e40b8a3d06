"""Execution engines: one interface (`Engine`), PostgreSQL and ALeRCE's TAP service behind it, the ADQL dialect."""

from engines.engine import ENGINE_NAMES, Engine, Result
from engines.postgres import PostgresEngine

__all__ = ["ENGINE_NAMES", "Engine", "PostgresEngine", "Result"]
