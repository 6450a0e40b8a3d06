"""The local DaCHS as an engine that never answers from a stale copy of the embedded database.

Every query (and the fingerprint result caches key on) first checks that the copy DaCHS serves is still the build
of its database (`db.tap.copy.check_copy`, a file read and one query as the reader). A stale or unchecked copy
stops the query with `DatabaseUnavailable`: one line saying why and which `tap up` refreshes it. It is not an
`ExecutionError`, so nothing treats it as a fault of the SQL or caches it as a gold error.
"""

import functools
import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from db.tap.copy import Freshness, PublishedCopy, check_copy
from engines.engine import Result
from engines.errors import DatabaseUnavailable
from engines.forwarding import ForwardingEngine

if TYPE_CHECKING:
    from engines.adql.pasted import PastedADQL
    from engines.adql.translation import Translation
    from engines.tap.engine import TapEngine

__all__ = ["CurrentCopyEngine"]


class CurrentCopyEngine(ForwardingEngine):
    """A TAP engine on the local DaCHS that runs a query only while the served copy is current.

    Args:
        inner: The TAP engine on the local DaCHS's URL.
        check: Tells whether the served copy is current (default: `check_copy` of the engine's catalog).
    """

    def __init__(self, inner: "TapEngine", check: Callable[[], Freshness] | None = None) -> None:
        super().__init__(inner)
        self._check = check or functools.partial(check_copy, inner.catalog)

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run `sql` on the local DaCHS once its copy is known to be current.

        Raises:
            DatabaseUnavailable: The copy is stale or cannot be checked (one line, with the command to refresh it).
        """
        self._current_copy()
        return self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)

    def execute_adql(self, adql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run ADQL written by a person once the copy is known to be current (see `execute`)."""
        self._current_copy()
        return self.inner.execute_adql(adql, timeout_s=timeout_s, max_rows=max_rows)

    def prepare_adql(self, adql: str) -> "PastedADQL":
        """The pasted ADQL as the TAP engine would send it (``TapEngine.prepare_adql``)."""
        return self.inner.prepare_adql(adql)

    def translate(self, sql: str) -> "Translation":
        """The ADQL of a guarded statement (``TapEngine.translate``)."""
        return self.inner.translate(sql)

    def fingerprint(self) -> str:
        """The TAP engine's fingerprint with the served build in it: a republished copy has another one."""
        copy = json.dumps(self._current_copy().identity(), sort_keys=True)
        text = "\x1f".join([self.inner.fingerprint(), copy])
        return f"{self.name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"

    def _current_copy(self) -> PublishedCopy:
        freshness = self._check()
        if not freshness.current or freshness.copy is None:
            raise DatabaseUnavailable(freshness.message(self.inner.settings.url))
        return freshness.copy
