"""The answers the workbench keeps in memory, within a count and a byte budget, and each page session's history."""

from __future__ import annotations

import collections
import dataclasses
import threading
import time
from typing import Any

from answering import Answer

__all__ = ["AnswerStore", "Record", "answer_bytes"]


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
        conversation: The conversation (thread) the answer belongs to: the id of its first answer.
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
        """Make an answer that starts a conversation name it."""
        if not self.conversation:
            object.__setattr__(self, "conversation", self.id)

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
    """Estimate the memory an answer holds: its rows (twice on TAP, where the service's table is kept too) and texts."""
    texts = sum(len(text) for text in (answer.question, answer.sql, answer.adql, answer.error or ""))
    if answer.frame is None:
        return texts
    rows = int(answer.frame.memory_usage(index=True, deep=True).sum())
    return texts + rows * (2 if answer.service_table is not None else 1)


class AnswerStore:
    """Kept answers and page histories (thread-safe).

    The oldest answers go first when there are more than `max_answers` or they hold more than `max_bytes` (the
    newest one stays whatever its size: its page is about to show it). A page session's history keeps its
    `max_history` newest answers, and the least recently answered sessions beyond `max_sessions` are forgotten.
    """

    def __init__(self, *, max_answers: int, max_bytes: int, max_sessions: int, max_history: int) -> None:
        self.max_answers = max_answers
        self.max_bytes = max_bytes
        self.max_sessions = max_sessions
        self.max_history = max_history
        self._lock = threading.Lock()
        self._records: collections.OrderedDict[str, tuple[Record, int]] = collections.OrderedDict()
        self._bytes = 0
        self._histories: collections.OrderedDict[str, collections.deque[str]] = collections.OrderedDict()

    @property
    def size_bytes(self) -> int:
        """Estimated bytes of the answers kept."""
        with self._lock:
            return self._bytes

    def keep(self, record: Record, session: str | None) -> None:
        """Keep `record`, in the history of `session` when one is given (page sessions only)."""
        size = answer_bytes(record.answer)
        with self._lock:
            self._records[record.id] = (record, size)
            self._bytes += size
            while len(self._records) > 1 and (len(self._records) > self.max_answers or self._bytes > self.max_bytes):
                _, (_, dropped) = self._records.popitem(last=False)
                self._bytes -= dropped
            if session:
                self._remember(session, record.id)

    def get(self, answer_id: str) -> Record | None:
        """Return a kept answer, or None."""
        with self._lock:
            found = self._records.get(answer_id)
        return None if found is None else found[0]

    def latest_in(self, conversation: str) -> Record | None:
        """Return the newest kept answer of a conversation, or None."""
        with self._lock:
            found = [record for record, _ in self._records.values() if record.conversation == conversation]
        return found[-1] if found else None

    def history(self, session: str) -> list[Record]:
        """Return the session's answers still kept, newest first."""
        with self._lock:
            ids = list(self._histories.get(session, ()))
            return [self._records[i][0] for i in reversed(ids) if i in self._records]

    def _remember(self, session: str, answer_id: str) -> None:
        history = self._histories.pop(session, None) or collections.deque(maxlen=self.max_history)
        history.append(answer_id)
        self._histories[session] = history
        while len(self._histories) > self.max_sessions:
            self._histories.popitem(last=False)
