"""Open the engine a command or the Python API asked for, starting the embedded database when it is the target."""

from db.server import embedded_admin_dsn, resolve_dsn
from engines.engine import Engine
from engines.postgres import PostgresEngine, PostgresSettings
from engines.settings import EngineSettings
from engines.tap.settings import TapSettings, default_tap_url

__all__ = ["open_engine"]


def open_engine(settings: EngineSettings | None = None) -> Engine:
    """Create the engine of `settings`; nothing connects until the first query.

    The PostgreSQL default (no DSN, no ``$ALERCE_DSN``) starts the embedded server and builds the database of
    the settings' catalog, as every command does; on TAP the catalog names the schema its tables are published in.
    On the local DaCHS every query first checks that it serves the catalog's embedded database as it is now
    (`db.tap.current`).
    """
    settings = settings or EngineSettings()
    if settings.engine == "tap":
        from db.tap.current import CurrentCopyEngine
        from db.tap.server import is_local_url
        from engines.tap.engine import TapEngine  # pyvo and astropy load only when TAP is used

        engine = TapEngine(settings.given_to(TapSettings, url=settings.tap_url or default_tap_url()))
        return CurrentCopyEngine(engine) if is_local_url(engine.settings.url) else engine
    dsn = resolve_dsn(settings.dsn, ground=settings.ground, catalog=settings.catalog)
    # The admin DSN lets the executor end a backend that ignores its timeout.
    return PostgresEngine(settings.given_to(PostgresSettings, dsn=dsn, admin_dsn=embedded_admin_dsn(dsn)))
