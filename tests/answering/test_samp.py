"""answer.send(): a real SAMP hub (pyvo.samp, astropy's) and a receiving client get table.load.votable and read the
table with its positions' UCDs."""

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import pytest
from astropy.table import Table
from pyvo.samp import SAMPHubServer, SAMPIntegratedClient

from answering import Answer, AnsweringError

FRAME = pd.DataFrame({"oid": ["ZTF18aaaaaaa", "ZTF18aaaaaab"], "meanra": [10.5, 11.0], "meandec": [-3.2, 2.0]})


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """A hub of its own (lock file in tmp_path, named by $SAMP_HUB), standard profile only."""
    lockfile = tmp_path / "samp.lock"
    server = SAMPHubServer(web_profile=False, lockfile=str(lockfile), pool_size=2)
    server.start()
    monkeypatch.setenv("SAMP_HUB", f"std-lockurl:{lockfile.as_uri()}")
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def receiving_client(keep: Callable[[dict], Any]) -> Iterator[tuple[list, threading.Event]]:
    """A client called "receiver" subscribed to table.load.votable: ``keep(params)`` of each table it is sent goes
    to the list, and the event is set."""
    received: list = []
    arrived = threading.Event()
    client = SAMPIntegratedClient(name="receiver")
    client.connect()

    def load(private_key, sender_id, mtype, params, extra):
        received.append(keep(params))
        arrived.set()

    client.bind_receive_notification("table.load.votable", load)
    try:
        yield received, arrived
    finally:
        client.disconnect()


@pytest.fixture
def receiver(hub):
    """A receiving client that loads the tables it is sent: (params, table) of each."""
    with receiving_client(lambda params: (params, Table.read(params["url"], format="votable"))) as got:
        yield got


def test_send_reaches_a_receiving_client_with_positions_recognised(receiver):
    received, arrived = receiver
    answer = Answer(question="two objects", sql="SELECT oid, meanra, meandec FROM object", frame=FRAME)
    assert answer.send() == ["receiver"]
    assert arrived.wait(10), "the receiver got no table.load.votable"
    params, table = received[0]
    assert params["name"] == "two objects"
    assert list(table["oid"]) == list(FRAME["oid"])
    assert table["meanra"].meta["ucd"].startswith("pos.eq.ra") and table["meandec"].meta["ucd"].startswith("pos.eq.dec")
    assert str(table["meanra"].unit) == "deg"


def test_send_to_a_recipient_by_name(receiver):
    answer = Answer(question="q", sql="SELECT oid, meanra, meandec FROM object", frame=FRAME)
    assert answer.send("RECEIVER", name="mine") == ["receiver"]
    with pytest.raises(AnsweringError, match="no SAMP client called 'topcat' loads tables"):
        answer.send("topcat")


def test_without_a_hub_the_error_says_what_to_start(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMP_HUB", f"std-lockurl:{(tmp_path / 'none.lock').as_uri()}")
    answer = Answer(question="q", sql="SELECT oid, meanra, meandec FROM object", frame=FRAME)
    with pytest.raises(AnsweringError, match="no SAMP hub is running; start TOPCAT or Aladin"):
        answer.send()
