"""A worker process whose generation stage announces itself in a file, then hangs (to be killed mid-question).

Usage: python -m tests.serve.state_worker_process CATALOG_DSN STORE_DSN KEY_FILE MARKER STALLED_AFTER_S
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from lms.fake import EXPLANATION, fake_lm, render_answer
from serve.state.worker import WorkerSettings, run_worker
from tests.serve.state_benches import open_shared

_FIELDS = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["oid"]}}}
_FIELDS |= {"difficulty": {"difficulty": "simple"}, "explanation": EXPLANATION}


def main(argv: list[str]) -> None:
    dsn, store_dsn, key_file, marker, stalled_after_s = argv

    def answer(call):
        if call.stage == "direct":
            Path(marker).write_text("answering\n")
            time.sleep(600)  # killed before this ends
        return render_answer(_FIELDS.get(call.stage, {"sql": "SELECT 1 AS n"}))

    bench = open_shared(dsn, store_dsn, Path(key_file), fake_lm(answer))
    run_worker(bench, WorkerSettings(concurrency=1, stalled_after_s=float(stalled_after_s)))


if __name__ == "__main__":
    main(sys.argv[1:])
