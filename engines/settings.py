"""Which engine runs the SQL, where, and how much a query may cost; each engine owns its settings and defaults."""

import dataclasses
from pathlib import Path
from typing import Any

from catalog import CATALOG_NAMES
from defaults.catalog import DEFAULT_CATALOG

__all__ = ["DSN_ENV", "ENGINE_NAMES", "MAX_ROWS", "EngineSettings"]

MAX_ROWS = 100_000
"""Rows a query keeps by default, on every engine; a longer result is truncated."""

ENGINE_NAMES = ("postgres", "tap")
"""Names accepted by `--engine` and `db.open_engine`."""

DSN_ENV = "ALERCE_DSN"
"""Environment variable naming the PostgreSQL database when no DSN is given (else: the embedded server)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class EngineSettings:
    """Which engine runs the SQL, where, and how much a query may cost; None: the engine's own default.

    Attributes:
        engine: ``postgres`` (a PostgreSQL database) or ``tap`` (a TAP service, as ADQL).
        catalog: Whose data the SQL runs on (``catalog.CATALOG_NAMES``): the embedded database of that catalog,
            or the catalog's schema on a TAP service. The program answers for the catalog of its engine.
        dsn: PostgreSQL URL (default: ``$ALERCE_DSN``, else the embedded server); postgres only.
        tap_url: TAP service URL (default: ``$ALERCE_TAP_URL``, else ALeRCE's); tap only.
        timeout_s: Default time limit of one query, in seconds (None: the engine's default).
        max_rows: Default row cap (None: the engine's default, ``MAX_ROWS``).
        pool_size: Most concurrent PostgreSQL connections (None: the engine's default).
        connect_timeout_s: Time allowed to reach the database or service (None: the engine's default).
        ground: Gold-query files the embedded database must be grounded on (None: keep its grounding); used
            only when the embedded server is the database.
    """

    engine: str = "postgres"
    catalog: str = DEFAULT_CATALOG
    dsn: str | None = None
    tap_url: str | None = None
    timeout_s: float | None = None
    max_rows: int | None = None
    pool_size: int | None = None
    connect_timeout_s: float | None = None
    ground: tuple[Path, ...] | None = None

    def __post_init__(self) -> None:
        """Reject unknown engine and catalog names."""
        if self.engine not in ENGINE_NAMES:
            raise ValueError(f"Unknown engine {self.engine!r}; choose one of {', '.join(ENGINE_NAMES)}.")
        if self.catalog not in CATALOG_NAMES:
            raise ValueError(f"Unknown catalog {self.catalog!r}; choose one of {', '.join(CATALOG_NAMES)}.")

    def given_to(self, own: type, **where: Any) -> Any:
        """Build an engine's own settings (`own`) from the fields it shares with these, where given, and `where`."""
        shared = {field.name for field in dataclasses.fields(own)} & {field.name for field in dataclasses.fields(self)}
        given = {name: getattr(self, name) for name in shared if getattr(self, name) is not None}
        return own(**(given | where))
