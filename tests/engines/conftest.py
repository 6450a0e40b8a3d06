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
from db.tap.server import SYNC_LIMIT_S, tap_session
from engines.tap.settings import TAP_SYNC_LIMIT_ENV


@pytest.fixture(scope="session")
def tap_url(pg_server: ServerSettings, tiny_server) -> Iterator[str]:
    """TAP URL of a local DaCHS serving the tiny database of the test server.

    Commands are told the service's sync limit (``$ALERCE_TAP_SYNC_LIMIT_S``), so queries with a limit at least as
    long run in sync mode instead of as jobs, as a user of the local service would set it.
    """
    if shutil.which("dachs") is None and not os.environ.get("ALERCE_T2S_REQUIRE_TAP"):
        pytest.skip("GAVO DaCHS is not installed (scripts/install_system_packages.sh installs it as root)")
    with tap_session(pg_server) as url, pytest.MonkeyPatch.context() as patch:
        patch.setenv(TAP_SYNC_LIMIT_ENV, str(SYNC_LIMIT_S))
        yield url
