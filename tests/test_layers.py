"""The layer order of docs/maintainer/layout.md holds: import-linter's contracts, and `python -m ask` never loads the
compile package (optimizers), not even when it answers a question with the committed artifact."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

ASK_IN_A_FRESH_INTERPRETER = """
import json, sys
import ask  # what `python -m ask` imports
from answering import load
from engines.fake import FakeEngine
from engines.engine import Result
from lms.fake import fake_lm, render_answer
import pandas as pd

class Rows(FakeEngine):
    def fingerprint(self):
        return "fake-rows"

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        return Result(frame=pd.DataFrame({"oid": ["a"]}), elapsed_s=0.0, truncated=False)

lm = fake_lm(lambda call: render_answer({"sql": "SELECT oid FROM object"}))
with load("local/gemma3-270m", engine=Rows(), lm=lm) as t2s:
    answer = t2s.ask("Which objects are there?")
print(json.dumps({"manifest": t2s.manifest is not None, "rows": len(answer.frame),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] == "optimizers")}))
"""


LINT = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"


def test_every_import_follows_the_layer_order_and_no_circle():
    # In a process of its own: import-linter configures logging, which would silence this run's loggers.
    done = subprocess.run([sys.executable, "-c", LINT], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_asking_with_the_committed_artifact_loads_no_module_of_the_compile_package():
    done = subprocess.run(
        [sys.executable, "-c", ASK_IN_A_FRESH_INTERPRETER], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"manifest": True, "rows": 1, "loaded": []}
