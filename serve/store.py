"""The answers the workbench keeps in memory, within a count and a byte budget, and each page session's history."""

from __future__ import annotations

import collections
import dataclasses
import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

from answering import Answer

__all__ = ["AnswerStore", "Record", "answer_bytes", "fair_victim"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Record:
    """One answer kept for its page, downloads and plots.

    Attributes:
        id: Its key in URLs.
        answer: The answer (``frame`` None when it could not answer).
        source: ``ask`` (the program wrote the SQL), ``sql`` (the user's SQL box or ``run_sql``) or ``adql`` (the
            user's ADQL box, on TAP).
        model: The model that answered ("" for SQL the user wrote).
        engine: The engine the SQL ran on.
        input_tokens: LM input tokens of the answer.
        output_tokens: LM output tokens.
        cost_usd: Their price from LiteLLM's price map, or None (local or unknown model).
        created: Unix time.
        conversation: The conversation (thread) the answer belongs to: a random id of its own, never an answer's id
            (whoever has an answer's link must not be able to add turns to the owner's conversation).
        follows: The id of the answer this question followed up (None: it stands on its own).
    """

    id: str
    answer: Answer
    source: str
    model: str
    engine: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    created: float = dataclasses.field(default_factory=time.time)
    conversation: str = ""
    follows: str | None = None

    def __post_init__(self) -> None:
        """Give an answer that starts a conversation a new conversation id."""
        if not self.conversation:
            object.__setattr__(self, "conversation", secrets.token_urlsafe(16))

    def usage(self) -> dict[str, Any]:
        """Return the model, engine, tokens and cost, JSON-ready."""
        return {
            "model": self.model,
            "engine": self.engine,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
        }


def answer_bytes(answer: Answer) -> int:
    """Estimate the memory an answer holds: its rows (twice on TAP, where the service's table is kept too), texts
    and target list."""
    texts = sum(len(text) for text in (answer.question, answer.sql, answer.adql, answer.error or ""))
    texts += answer.targets.size_bytes() if answer.targets is not None else 0
    if answer.frame is None:
        return texts
    rows = int(answer.frame.memory_usage(index=True, deep=True).sum())
    return texts + rows * (2 if answer.service_table is not None else 1)


class AnswerStore:
    """Kept answers and page histories, each client within its share (thread-safe; ``serve.policies.KeptAnswers``).

    When there are more than `max_answers` answers or they hold more than `max_bytes`, the oldest answer of the
    client holding the most (in count, or in bytes) goes first; the newest answer stays whatever its size (its page
    is about to show it). A history keeps its `max_history` newest answers; beyond `max_sessions` histories, the
    least recently answered one of the client holding the most goes. So a client's flood of answers or of new
    sessions evicts its own, not another client's.

    A page session id names a history; ``rotate`` hands the history to a new id and forgets the old one (the
    workbench does so at each answer asked for), so an id planted in a victim's browser by someone who holds it
    never shows its holder what the victim asks next.
    """

    def __init__(self, *, max_answers: int, max_bytes: int, max_sessions: int, max_history: int) -> None:
        self.max_answers = max_answers
        self.max_bytes = max_bytes
        self.max_sessions = max_sessions
        self.max_history = max_history
        self._lock = threading.Lock()
        self._records: collections.OrderedDict[str, tuple[Record, int, str]] = collections.OrderedDict()
        self._bytes = 0
        self._answers_of: collections.Counter[str] = collections.Counter()
        self._bytes_of: collections.Counter[str] = collections.Counter()
        self._histories: collections.OrderedDict[str, tuple[collections.deque[str], str]] = collections.OrderedDict()
        self._history_of: dict[str, str] = {}  # page session id -> history
        self._session_of: dict[str, str] = {}  # history -> its page session id

    @property
    def size_bytes(self) -> int:
        """Estimated bytes of the answers kept."""
        with self._lock:
            return self._bytes

    def keep(self, record: Record, history: str | None, *, client: str = "") -> None:
        """Keep `record` for `client`, in `history` when one is given (page sessions only)."""
        size = answer_bytes(record.answer)
        with self._lock:
            self._records[record.id] = (record, size, client)
            self._bytes += size
            self._answers_of[client] += 1
            self._bytes_of[client] += size
            while len(self._records) > 1 and (len(self._records) > self.max_answers or self._bytes > self.max_bytes):
                self._drop_one(keep=record.id, by_bytes=self._bytes > self.max_bytes)
            if history:
                self._remember(history, record.id, client)

    def get(self, answer_id: str) -> Record | None:
        """Return a kept answer, or None."""
        with self._lock:
            found = self._records.get(answer_id)
        return None if found is None else found[0]

    def latest_in(self, conversation: str) -> Record | None:
        """Return the newest kept answer of a conversation, or None."""
        with self._lock:
            found = [record for record, _, _ in self._records.values() if record.conversation == conversation]
        return found[-1] if found else None

    def history(self, history: str) -> list[Record]:
        """Return the history's answers still kept, newest first."""
        with self._lock:
            ids = list(self._histories.get(history, ((), ""))[0])
            return [self._records[i][0] for i in reversed(ids) if i in self._records]

    def history_of(self, session: str | None) -> str:
        """Return the history the page session id names now ("" when it names none)."""
        with self._lock:
            return self._history_of.get(session or "", "")

    def rotate(self, session: str | None, new_session: str, *, client: str = "") -> str:
        """Give `session`'s history (a new, empty one when it has none) to `new_session`; `session` names nothing
        after. Return the history."""
        with self._lock:
            history = self._history_of.pop(session or "", None) or secrets.token_urlsafe(16)
            self._history_of[new_session] = history
            self._session_of[history] = new_session
            if history not in self._histories:
                self._histories[history] = (collections.deque(maxlen=self.max_history), client)
                self._forget_sessions_over_budget(keep=history)
            return history

    def _drop_one(self, *, keep: str, by_bytes: bool) -> None:
        """Drop the oldest answer (other than `keep`) of the client holding the most."""
        holdings = self._bytes_of if by_bytes else self._answers_of
        newest_client = self._records[keep][2]
        others = {c: n for c, n in holdings.items() if n and (c != newest_client or self._answers_of[c] > 1)}
        victim = fair_victim(others)
        answer_id = next(i for i, (_, _, c) in self._records.items() if c == victim and i != keep)
        _, size, client = self._records.pop(answer_id)
        self._bytes -= size
        self._count_out(client, size)

    def _count_out(self, client: str, size: int) -> None:
        self._answers_of[client] -= 1
        self._bytes_of[client] -= size
        if self._answers_of[client] <= 0:
            del self._answers_of[client], self._bytes_of[client]

    def _remember(self, history: str, answer_id: str, client: str) -> None:
        ids, owner = self._histories.pop(history, None) or (collections.deque(maxlen=self.max_history), client)
        ids.append(answer_id)
        self._histories[history] = (ids, owner)
        self._forget_sessions_over_budget(keep=history)

    def _forget_sessions_over_budget(self, *, keep: str) -> None:
        """Forget the least recently answered history of the client holding the most, until within budget."""
        while len(self._histories) > self.max_sessions:
            held = collections.Counter(owner for key, (_, owner) in self._histories.items() if key != keep)
            victim = fair_victim(held)
            history = next(key for key, (_, owner) in self._histories.items() if owner == victim and key != keep)
            del self._histories[history]
            self._history_of.pop(self._session_of.pop(history, ""), None)


def fair_victim(holdings: Mapping[str, int]) -> str | None:
    """Return the client whose oldest item goes first: the one holding the most (the first named of equals).

    Examples:
        >>> fair_victim({"a": 1, "b": 5, "c": 5}), fair_victim({})
        ('b', None)
    """
    if not holdings:
        return None
    return max(holdings, key=lambda client: holdings[client])
