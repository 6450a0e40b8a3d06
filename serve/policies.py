"""What one client may hold of what all clients share, as interfaces any backend can implement.

The in-memory workbench implements them in ``serve.gate`` (``QueryGate``) and ``serve.store`` (``AnswerStore``); a
store or queue kept elsewhere (PostgreSQL, for several web processes) implements the same methods and reuses
``fair_victim``, so the fairness rules do not depend on where the state lives:

- executions: a client holds at most its share of the connections, the next free one goes to the waiting client
  that runs the fewest, and a wait behind other clients is bounded;
- kept answers and page histories: what goes first when they are over budget is the oldest of the client that
  holds the most, so one client's flood evicts its own answers and histories, not another's.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from serve.store import Record, fair_victim

__all__ = ["ExecutionShares", "KeptAnswers", "fair_victim"]


class ExecutionShares(Protocol):
    """Slots of the engine's connections, shared fairly between clients."""

    def slot(self, client: str, *, own_wait_s: float | None = None) -> AbstractContextManager[None]:
        """Hold a slot of `client` for the block (see ``serve.gate.QueryGate.slot``).

        Raises:
            engines.errors.DatabaseBusy: No slot came free in time.
        """
        ...


class KeptAnswers(Protocol):
    """Answers kept for their pages and downloads, and page histories, each client within its share."""

    @property
    def size_bytes(self) -> int:
        """Estimated bytes of the answers kept."""
        ...

    def keep(self, record: Record, history: str | None, *, client: str = "") -> None:
        """Keep `record` for `client`, in `history` when one is given."""
        ...

    def get(self, answer_id: str) -> Record | None:
        """Return a kept answer, or None."""
        ...

    def latest_in(self, conversation: str) -> Record | None:
        """Return the newest kept answer of a conversation, or None."""
        ...

    def history(self, history: str) -> list[Record]:
        """Return the answers of a history still kept, newest first."""
        ...

    def history_of(self, session: str | None) -> str:
        """Return the history a page session id names now ("" when none)."""
        ...

    def rotate(self, session: str | None, new_session: str, *, client: str = "") -> str:
        """Give `session`'s history (a new one when it has none) to `new_session`, forget `session`, return the
        history."""
        ...
