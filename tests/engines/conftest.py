"""One local GAVO DaCHS per test run, publishing the tiny test database; stopped at the end if the run started it.

The run holds the server alone (`db.tap.server.tap_session`): another run needing it waits.

Where DaCHS is not installed (not Debian, no root) the TAP server tests skip, unless ALERCE_T2S_REQUIRE_TAP is
set (as in CI, where `.ci/run` installs it): then they fail.
"""

import os
import shutil
from collections.abc import Iterator

import pytest

from db.server import ServerSettings
from db.tap.server import tap_session


@pytest.fixture(scope="session")
def tap_url(pg_server: ServerSettings, tiny_server) -> Iterator[str]:
    """TAP URL of a local DaCHS serving the tiny database of the test server."""
    if shutil.which("dachs") is None and not os.environ.get("ALERCE_T2S_REQUIRE_TAP"):
        pytest.skip("GAVO DaCHS is not installed (scripts/install_system_packages.sh installs it as root)")
    with tap_session(pg_server) as url:
        yield url
