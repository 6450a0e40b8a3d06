"""Install the q3c spatial functions into a database: the real extension when the server has it, else SQL fallbacks."""

import logging
from pathlib import Path
from typing import Literal

import psycopg

logger = logging.getLogger(__name__)

FALLBACK_SQL_PATH = Path(__file__).with_name("q3c_fallback.sql")

Q3cMode = Literal["extension", "fallback"]


def is_q3c_available(conn: psycopg.Connection) -> bool:
    """Tell whether the server can run ``CREATE EXTENSION q3c``.

    Args:
        conn: Any connection to the server.

    Returns:
        True if q3c is among the server's available extensions.
    """
    row = conn.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'q3c'").fetchone()
    return bool(row and row[0])


def install_q3c(conn: psycopg.Connection, *, force_fallback: bool = False) -> Q3cMode:
    """Create the q3c functions in schema public of the connected database.

    Uses the real extension when available (needs a superuser connection), otherwise runs
    ``q3c_fallback.sql``, which defines the exact tests of q3c_dist, q3c_sindist, q3c_join,
    q3c_radial_query, q3c_ellipse_query, q3c_ellipse_join, q3c_poly_query and q3c_in_poly.

    Args:
        conn: Connection to the target database; the caller commits.
        force_fallback: Install the SQL fallback even when the extension is available (for tests).

    Returns:
        ``"extension"`` or ``"fallback"``: what was installed.
    """
    if not force_fallback and is_q3c_available(conn):
        conn.execute("CREATE EXTENSION IF NOT EXISTS q3c SCHEMA public")
        logger.debug("installed the q3c extension")
        return "extension"
    conn.execute(FALLBACK_SQL_PATH.read_text(encoding="utf-8"))
    logger.debug("installed the q3c SQL fallback functions")
    return "fallback"
