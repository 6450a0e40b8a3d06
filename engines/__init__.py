"""The execution contract: one `Engine` protocol and `Result`, typed errors, the SQL guard, PostgreSQL, TAP + ADQL."""

from cli.lazy_exports import lazy_exports

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

# Imported on first use: a command's --help must not wait for the program (benchmarks/startup.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "BoundedEngine": "engines.bounded",
        "ENGINE_NAMES": "engines.settings",
        "Engine": "engines.engine",
        "Result": "engines.engine",
        "DatabaseUnavailable": "engines.errors",
        "EngineError": "engines.errors",
        "ErrorKind": "engines.errors",
        "ExecutionError": "engines.errors",
        "GuardError": "engines.errors",
        "ForwardingEngine": "engines.forwarding",
        "PostgresEngine": "engines.postgres",
        "PostgresSettings": "engines.postgres",
        "EngineSettings": "engines.settings",
        "TapSettings": "engines.tap.settings",
    },
)
