"""The workbench's own database on the embedded server: sessions, answers, jobs and usage, apart from the catalogs.

The catalog databases are rebuilt at will (``python -m db up --scale ...``); the workbench's state must outlive
every rebuild, so it lives in a database of its own that nothing drops.
"""

from urllib.parse import quote

import psycopg
from psycopg import sql

from db.cluster import ADMIN_ROLE, Cluster
from db.errors import ServerError
from db.server import default_data_dir, default_port

__all__ = ["STATE_DATABASE", "embedded_state_dsn"]

STATE_DATABASE = "alerce_t2s_state"


def embedded_state_dsn() -> str:
    """Start the embedded server if needed, create the state database if missing, and return its owner's DSN.

    Raises:
        ServerError: The server cannot be initialised, started or reached.
    """
    cluster = Cluster(default_data_dir())
    with cluster.lock():
        if not cluster.is_initialized():
            cluster.init()
        cluster.start(default_port())
        port = cluster.running_port()
        if port is None:
            raise ServerError(f"The server in {cluster.data_dir} stopped unexpectedly; see {cluster.log_file}.")
        password = quote(cluster.admin_password(), safe="")
        base = f"postgresql://{ADMIN_ROLE}:{password}@127.0.0.1:{port}"
        try:
            with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
                found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (STATE_DATABASE,)).fetchone()
                if found is None:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(STATE_DATABASE)))
        except psycopg.Error as err:
            raise ServerError(f"Cannot create the workbench's database on port {port}: {str(err).strip()}") from err
    return f"{base}/{STATE_DATABASE}"
