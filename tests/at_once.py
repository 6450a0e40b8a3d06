"""Counting how many calls of a fake engine overlap, for tests of how many queries run at once."""

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class AtOnce:
    """Wrap each call in `call()`: it holds for `hold_s`, and `most` is the largest number that overlapped."""

    def __init__(self, hold_s: float = 0.1) -> None:
        self.hold_s = hold_s
        self.running = self.most = 0
        self._lock = threading.Lock()

    @contextmanager
    def call(self) -> Iterator[None]:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            time.sleep(self.hold_s)
            yield
        finally:
            with self._lock:
                self.running -= 1
