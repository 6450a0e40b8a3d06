"""Build the engine a command or the Python API asked for, from one settings object."""

import dataclasses
from pathlib import Path

from db.executor import ExecutorSettings
from db.server import embedded_admin_dsn, resolve_dsn
from engines.engine import ENGINE_NAMES, Engine
from engines.postgres import PostgresEngine
from engines.tap_settings import TapSettings, default_tap_url

__all__ = ["EngineSettings", "open_engine"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class EngineSettings:
    """Which engine runs the SQL, where, and how much a query may cost.

    Attributes:
        engine: ``postgres`` (a PostgreSQL database) or ``tap`` (a TAP service, as ADQL).
        dsn: PostgreSQL URL (default: ``$ALERCE_DSN``, else the embedded server); postgres only.
        tap_url: TAP service URL (default: ``$ALERCE_TAP_URL``, else ALeRCE's); tap only.
        timeout_s: Default time limit of one query, in seconds (None: the engine's default).
        max_rows: Default row cap (None: the engine's default).
        pool_size: Most concurrent PostgreSQL connections.
        connect_timeout_s: Time allowed to reach the database or service (None: the engine's default).
        ground: Gold-query files the embedded database must be grounded on (None: keep its grounding); used
            only when the embedded server is the database.
    """

    engine: str = "postgres"
    dsn: str | None = None
    tap_url: str | None = None
    timeout_s: float | None = None
    max_rows: int | None = None
    pool_size: int = 2
    connect_timeout_s: float | None = None
    ground: tuple[Path, ...] | None = None

    def __post_init__(self) -> None:
        """Reject unknown engine names."""
        if self.engine not in ENGINE_NAMES:
            raise ValueError(f"Unknown engine {self.engine!r}; choose one of {', '.join(ENGINE_NAMES)}.")


def open_engine(settings: EngineSettings | None = None) -> Engine:
    """Create the engine of `settings`; nothing connects until the first query.

    The PostgreSQL default (no DSN, no ``$ALERCE_DSN``) starts the embedded server, as every command does.
    """
    settings = settings or EngineSettings()
    limits = {"timeout_s": settings.timeout_s, "max_rows": settings.max_rows}
    limits["connect_timeout_s"] = settings.connect_timeout_s
    given = {key: value for key, value in limits.items() if value is not None}
    if settings.engine == "tap":
        from engines.tap import TapEngine  # pyvo and astropy load only when TAP is used

        return TapEngine(TapSettings(url=settings.tap_url or default_tap_url(), **given))
    dsn = resolve_dsn(settings.dsn, ground=settings.ground)
    admin = embedded_admin_dsn(dsn)  # lets the executor end a backend that ignores its timeout
    return PostgresEngine(ExecutorSettings(dsn=dsn, pool_size=settings.pool_size, admin_dsn=admin, **given))
