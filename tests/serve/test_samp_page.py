"""The answer page's SAMP button (serve/static/samp.js) in Debian's headless Chromium against astropy's own hub with
the Web Profile (pyvo.samp), and a receiving client that loads the table; the page's download URL for SAMP clients
when the workbench asks for a token."""

from __future__ import annotations

import contextlib
import io
import queue
import re
import threading
import urllib.request
from collections.abc import Iterator

import pytest
from astropy.io.votable import parse
from astropy.table import Table

from serve.access import content_security_policy
from tests.answering.test_samp import receiving_client
from tests.conftest import free_port
from tests.serve.conftest import POSITIONS_SQL, client_of, make_bench, serving
from tests.serve.test_browser import chromium_path

TOKEN = "t" * 32


class AcceptingDialog:
    """Stands for the hub's consent dialog: accepts every web client, and records who asked (the hub sets the two
    queues when it starts)."""

    queue_request: queue.Queue
    queue_result: queue.Queue

    def __init__(self) -> None:
        self.origins: list[str] = []
        self.stop = threading.Event()

    def answer(self) -> None:
        while not self.stop.is_set():
            try:
                _identity, _address, origin = self.queue_request.get(timeout=0.1)
            except queue.Empty:
                continue
            self.origins.append(origin)
            self.queue_result.put(True)


@pytest.fixture
def web_hub(tmp_path, monkeypatch) -> Iterator[tuple[str, AcceptingDialog]]:
    """A hub with the Web Profile on a free port (21012 is the standard's, maybe taken here); yield its URL."""
    from pyvo.samp import SAMPHubServer

    dialog = AcceptingDialog()
    lockfile = tmp_path / "samp.lock"
    port = free_port()
    hub = SAMPHubServer(web_profile=True, web_profile_dialog=dialog, web_port=port, lockfile=str(lockfile))
    hub.start()
    monkeypatch.setenv("SAMP_HUB", f"std-lockurl:{lockfile.as_uri()}")
    answering = threading.Thread(target=dialog.answer, daemon=True)
    answering.start()
    try:
        yield f"http://localhost:{port}", dialog
    finally:
        dialog.stop.set()
        answering.join(5)
        hub.stop()


@pytest.fixture
def receiver(web_hub) -> Iterator[tuple[list[dict], threading.Event]]:
    """A standard-profile receiving client on the Web Profile hub; records the params of what it is sent."""
    with receiving_client(lambda params: params) as got:
        yield got


@pytest.fixture
def browser_page() -> Iterator:
    """A page of Debian's headless Chromium (as test_browser's, without downloads)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()


@contextlib.contextmanager
def served(tiny_dsn: str, hub_url: str) -> Iterator[str]:
    """A workbench whose page sends to the hub at `hub_url`, served; yield its URL."""
    bench = make_bench(tiny_dsn, samp_hub_url=hub_url)
    try:
        with serving(bench) as url:
            yield url
    finally:
        bench.close()


def send_from_the_page(page, url: str, status_start: str) -> str:
    """Ask on the page, click its send button, and return the status line once it starts with `status_start`."""
    page.goto(url)
    page.fill("#question", "Where are the first objects?")
    page.click("#ask-button")
    page.click("#samp-send")
    page.wait_for_function(f"() => document.getElementById('samp-status').textContent.startsWith('{status_start}')")
    return page.inner_text("#samp-status")


def test_the_page_sends_its_votable_to_a_samp_client(browser_page, tiny_dsn, web_hub, receiver):
    hub_url, dialog = web_hub
    received, arrived = receiver
    with served(tiny_dsn, hub_url) as url:
        console: list[str] = []
        browser_page.on("console", lambda message: console.append(message.text))
        assert send_from_the_page(browser_page, url, "Sent") == "Sent to receiver."
        assert arrived.wait(10), "the receiver got no table.load.votable"
        params = received[0]
        assert dialog.origins == [url]  # the hub was asked about this page, as a user would be
        assert params["name"] == "Where are the first objects?"
        assert params["table-id"].startswith("alerce-")
        assert re.fullmatch(rf"{url}/answers/[\w-]+/download/votable", params["url"])
        with urllib.request.urlopen(params["url"], timeout=10) as response:  # as TOPCAT fetches it
            document = response.read()
        assert not [text for text in console if "Content Security Policy" in text]
    table = Table.read(io.BytesIO(document), format="votable")
    assert len(table) == 120 and table.colnames[:3] == ["oid", "meanra", "meandec"]
    assert table["meanra"].meta["ucd"].startswith("pos.eq.ra") and table["meandec"].meta["ucd"].startswith("pos.eq.dec")
    assert str(table["meanra"].unit) == "deg"
    votable = parse(io.BytesIO(document))
    fields = {field.name: field for field in votable.get_first_table().fields}
    systems = {system.ID: system.system for system in votable.resources[0].coordinate_systems}
    assert systems[fields["meanra"].ref] == "ICRS" and systems[fields["meandec"].ref] == "ICRS"


def test_without_a_hub_the_page_says_so_in_one_line(browser_page, tiny_dsn):
    nowhere = f"http://localhost:{free_port()}"  # nothing listens there
    with served(tiny_dsn, nowhere) as url:
        status = send_from_the_page(browser_page, url, "No")
    assert status == (
        f"No SAMP hub answers at {nowhere}: start TOPCAT or Aladin (each runs one, with the Web Profile) "
        "and send again."
    )


def test_the_page_may_connect_only_to_itself_and_the_hub(client):
    page = client.get("/")
    policy = page.headers["content-security-policy"]
    assert policy == content_security_policy("http://localhost:21012")
    assert re.search(r"connect-src 'self' data: http://localhost:21012;", policy)  # data: the sky view's WebAssembly
    assert '<script src="/static/samp.js"></script>' in page.text
    assert client.get("/static/samp.js").status_code == 200


def test_a_bad_hub_address_is_refused():
    from serve import ServeSettings

    with pytest.raises(ValueError, match="is not http://HOST:PORT"):
        ServeSettings(samp_hub_url="http://localhost:21012; script-src *")


def test_with_a_token_the_url_sent_opens_that_download_alone(tiny_dsn):
    bench = make_bench(tiny_dsn, token=TOKEN)
    try:
        with client_of(bench) as browser, client_of(bench) as topcat:
            record = bench.run_sql(POSITIONS_SQL)
            other = bench.run_sql("SELECT oid, meanra, meandec FROM object ORDER BY oid LIMIT 3")
            page = browser.get(f"/answers/{record.id}?token={TOKEN}").text
            sent = re.search(r'data-url="([^"]+)"', page).group(1).replace("&amp;", "&")
            assert sent.startswith(f"/answers/{record.id}/download/votable?key=") and TOKEN not in sent
            fetched = topcat.get(sent)  # no cookie, no token: only the key
            assert fetched.status_code == 200 and len(Table.read(io.BytesIO(fetched.content), format="votable")) == 120
            key = sent.partition("?")[2]
            assert topcat.get(f"/answers/{other.id}/download/votable?{key}").status_code == 401
            assert topcat.get(f"/answers/{record.id}/download/csv?{key}").status_code == 401
            assert topcat.get(f"/answers/{record.id}?{key}").status_code == 401
            assert topcat.post(sent).status_code == 401
    finally:
        bench.close()


def test_a_hub_without_a_table_loader_is_told_apart_from_no_hub(browser_page, tiny_dsn, web_hub):
    hub_url, dialog = web_hub
    with served(tiny_dsn, hub_url) as url:
        status = send_from_the_page(browser_page, url, "The SAMP hub runs")
    assert status == "The SAMP hub runs, but no application on it loads tables: start TOPCAT or Aladin and send again."
    assert dialog.origins == [url]
