"""An executor wrapper for the runner tests: it records every SQL it runs."""

import threading


class CountingExecutor:
    """Wrap an executor and record every SQL it runs."""

    def __init__(self, executor):
        self.executor = executor
        self.catalog = executor.catalog
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def execute(self, sql, *, timeout_s=None):
        with self._lock:
            self.calls.append(sql)
        return self.executor.execute(sql, timeout_s=timeout_s)

    def fingerprint(self):
        return self.executor.fingerprint()
