"""The workbench's query gate: each client's share of the engine, and what the program reads through it."""

import pandas as pd

from engines.engine import Result
from engines.fake import FakeEngine
from modules.vocabulary import clear_cache, read_vocabulary
from serve.gate import QUERIES_WITHOUT_A_POOL, gated
from tests.at_once import AtOnce


class _SlowEngine(FakeEngine):
    """Answers every query with one empty column after 0.1 s; counts the queries running at once."""

    def __init__(self, concurrency: int | None) -> None:
        self.concurrency = concurrency
        self.at_once = AtOnce()

    def fingerprint(self) -> str:
        return f"slow-{self.concurrency}"

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        with self.at_once.call():
            return Result(frame=pd.DataFrame({"unused": []}), elapsed_s=0.1, truncated=False)


def test_a_gated_engine_runs_for_one_client_what_its_share_allows():
    assert gated(_SlowEngine(None), wait_s=1).concurrency == QUERIES_WITHOUT_A_POOL - 1
    assert gated(_SlowEngine(2), wait_s=1).concurrency == 1


def test_the_vocabulary_read_through_a_gate_never_waits_for_a_slot():
    clear_cache()
    inner = _SlowEngine(None)
    read_vocabulary(gated(inner, wait_s=0.0))  # a query over the client's share would be refused as busy at once
    assert inner.at_once.most == QUERIES_WITHOUT_A_POOL - 1
    clear_cache()
