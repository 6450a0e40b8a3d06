"""The workbench's query gate: each client's share of the engine, fair between clients, and what the program reads
through it."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

from engines.engine import Result
from engines.errors import DatabaseBusy
from engines.fake import FakeEngine
from modules.value_check.vocabulary import clear_cache, read_vocabulary
from serve.gate import CLIENT, QUERIES_WITHOUT_A_POOL, QueryGate, gated
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


def test_a_gated_engine_leaves_no_shared_lane_above_it():
    """A bound above the gate (the program's BoundedEngine) would make every client queue in one lane."""
    assert gated(_SlowEngine(None), wait_s=1).concurrency is None
    assert gated(_SlowEngine(2), wait_s=1).gate.per_client == 1
    assert gated(_SlowEngine(None), wait_s=1).gate.per_client == QUERIES_WITHOUT_A_POOL - 1


def test_the_vocabulary_read_through_a_gate_stays_within_one_clients_share():
    clear_cache()
    inner = _SlowEngine(None)
    read_vocabulary(gated(inner, wait_s=0.0, own_wait_s=30))  # its queries queue behind each other, none refused
    assert inner.at_once.most == QUERIES_WITHOUT_A_POOL - 1
    clear_cache()


def hold(gate: QueryGate, client: str, release: threading.Event, started: threading.Event | None = None) -> None:
    with gate.slot(client):
        if started is not None:
            started.set()
        release.wait(10)


@pytest.mark.parametrize("capacity", [2, 3, 4])
def test_clients_together_never_run_more_than_the_pool(capacity):
    gate = QueryGate(capacity, wait_s=0.2)
    release = threading.Event()
    clients = [f"10.0.0.{n}" for n in range(capacity)]
    with ThreadPoolExecutor(capacity) as pool:
        holders = []
        for client in clients:  # each within its own share, the pool full after the last
            started = threading.Event()
            holders.append(pool.submit(hold, gate, client, release, started))
            assert started.wait(5)
        with pytest.raises(DatabaseBusy, match=f"{capacity} in all are running"):
            with gate.slot("10.0.1.1"):
                pass
        release.set()
        [holder.result() for holder in holders]


def test_the_next_free_slot_goes_to_the_client_running_the_fewest():
    gate = QueryGate(3, wait_s=5)  # two per client
    release_first, release_rest = threading.Event(), threading.Event()
    order: list[str] = []

    def wait_then_note(client: str) -> None:
        with gate.slot(client):
            order.append(client)

    with ThreadPoolExecutor(6) as pool:
        first = pool.submit(hold, gate, "a", release_first)
        rest = [pool.submit(hold, gate, client, release_rest) for client in ("a", "b")]
        time.sleep(0.3)
        assert (gate.running("a"), gate.running("b")) == (2, 1)  # the pool is full
        waiters = [pool.submit(wait_then_note, "a")]
        time.sleep(0.1)
        waiters.append(pool.submit(wait_then_note, "c"))  # came later, but runs nothing
        time.sleep(0.1)
        release_first.set()  # one of a's slots comes free: c, running none, takes it before a
        first.result()
        [waiter.result() for waiter in waiters]
        release_rest.set()
        [holder.result() for holder in rest]
    assert order == ["c", "a"]


def test_a_clients_own_queries_wait_behind_each_other_longer_than_behind_others():
    gate = QueryGate(2, wait_s=0.2)  # one per client
    release = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        started = threading.Event()
        holder = pool.submit(hold, gate, "a", release, started)
        assert started.wait(5)
        with pytest.raises(DatabaseBusy):  # a query written by hand: the busy wait
            with gate.slot("a"):
                pass
        threading.Timer(0.6, release.set).start()
        began = time.monotonic()
        with gate.slot("a", own_wait_s=5):  # a query of an answer: behind its own client's, up to own_wait_s
            waited_s = time.monotonic() - began
        holder.result()
    assert 0.4 < waited_s < 5


def test_one_clients_slow_answers_do_not_hold_anothers_queries():
    inner = _SlowEngine(2)
    engine = gated(inner, wait_s=2, own_wait_s=30)
    release = threading.Event()

    class _Held(_SlowEngine):
        def execute(self, sql, **kwargs):
            if sql == "slow":
                release.wait(10)
            return super().execute(sql, **kwargs)

    engine.inner = _Held(2)

    def run(client: str, sql: str) -> float:
        CLIENT.set(client)
        began = time.monotonic()
        engine.execute(sql)
        return time.monotonic() - began

    with ThreadPoolExecutor(4) as pool:
        slow = [pool.submit(run, "a", "slow") for _ in range(3)]  # a's own queue: one runs, two wait
        time.sleep(0.2)
        other_s = pool.submit(run, "b", "SELECT 1").result()
        release.set()
        [query.result() for query in slow]
    assert other_s < 1.0
