"""One local GAVO DaCHS per test run, publishing the tiny test database; stopped at the end if the run started it.

Where DaCHS is not installed (not Debian, no root) the TAP server tests skip, unless ALERCE_T2S_REQUIRE_TAP is
set (as in CI, where `.ci/run` installs it): then they fail.
"""

import os
import shutil
from collections.abc import Iterator

import pytest

from db.server import ServerSettings
from db.tap_server import tap_down, tap_status, tap_up


@pytest.fixture(scope="session")
def tap_url(pg_server: ServerSettings, tiny_server) -> Iterator[str]:
    """TAP URL of a local DaCHS serving the tiny database of the test server."""
    if shutil.which("dachs") is None and not os.environ.get("ALERCE_T2S_REQUIRE_TAP"):
        pytest.skip("GAVO DaCHS is not installed (scripts/install_system_packages.sh installs it as root)")
    was_running = tap_status().running
    url = tap_up(pg_server)
    try:
        yield url
    finally:
        if not was_running:
            tap_down()
