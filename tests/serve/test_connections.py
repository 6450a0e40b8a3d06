"""The HTTP server's own limits, through uvicorn as ``python -m serve`` runs it: proxy headers believed from named
proxies only, connections capped in all and per peer, headers bounded in time, the accept loop's complaint
rate-limited, and cookies named per instance and Secure behind a trusted HTTPS proxy."""

import asyncio
import contextlib
import logging
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from serve.connections import LOG_EVERY_S, uvicorn_config
from serve.pages import SESSION_COOKIE
from serve.sessions import cookie_name
from serve.settings import ServeSettings
from tests.serve.conftest import make_bench, serving, waiting_bench
from tests.serve.test_sessions import history_links

PARTIAL_HEADERS = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def client_at(address: str, **options: object) -> httpx.Client:
    """An HTTP client whose connections come from the loopback `address`."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10, **options)


@pytest.fixture
def held(tiny_dsn):
    """Serve a workbench that holds every question until `release` is set, one queued question per client;
    make one with ``held(**settings)`` and get ``(url, release)``."""
    release = threading.Event()
    with contextlib.ExitStack() as stack:

        def serve_held(**settings: object) -> tuple[str, threading.Event]:
            bench = waiting_bench(
                tiny_dsn, lambda: release.wait(60), one_at_a_time=True, max_queued_per_client=1, **settings
            )
            stack.callback(bench.close)
            stack.callback(release.set)
            return stack.enter_context(serving(bench)), release

        yield serve_held


# -- item 3: proxy headers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("proxies", "spoofed_is_another_client"),
    [(None, False), ("10.9.9.9", False), ("127.0.0.1", True), ("127.0.0.0/8, ::1", True)],
)
def test_x_forwarded_for_counts_only_from_a_proxy_the_operator_named(held, proxies, spoofed_is_another_client):
    url, _ = held(forwarded_allow_ips=proxies)
    with client_at("127.0.0.1") as local:
        assert local.post(f"{url}/jobs", data={"question": "mine?"}).status_code == 200  # its one place
        spoofed = local.post(f"{url}/jobs", data={"question": "again?"}, headers={"X-Forwarded-For": "10.1.2.3"})
    if spoofed_is_another_client:
        assert spoofed.status_code == 200  # the proxy's word is taken: 10.1.2.3 is a client of its own
    else:
        assert spoofed.status_code == 429 and "you have 1 in the queue" in spoofed.json()["error"]


def test_a_loopback_client_cannot_claim_anothers_address_to_take_its_place(held):
    """The red team's attack: a spoofed X-Forwarded-For naming the other client fills the other client's share."""
    url, _ = held()
    with client_at("127.0.0.1") as attacker, client_at("127.0.0.2") as victim:
        claim = {"X-Forwarded-For": "127.0.0.2"}
        assert attacker.post(f"{url}/jobs", data={"question": "a?"}, headers=claim).status_code == 200
        assert victim.post(f"{url}/jobs", data={"question": "mine?"}).status_code == 200


def test_the_default_configuration_believes_no_proxy():
    config = uvicorn_config(object(), ServeSettings())
    assert config.proxy_headers is False and config.forwarded_allow_ips in ("", [])


# -- item 6: connections ---------------------------------------------------------------------------------------------


def connect(url: str, address: str = "127.0.0.1") -> socket.socket:
    """Open a TCP connection to the server of `url` from `address`, sending nothing yet."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=5, source_address=(address, 0))
    return sock


def answer_of(sock: socket.socket, wait_s: float) -> bytes | None:
    """What the server sends within `wait_s` seconds: its bytes, b"" when it closed, None when it said nothing."""
    sock.settimeout(wait_s)
    try:
        return sock.recv(4096)
    except TimeoutError:
        return None
    except ConnectionResetError:
        return b""


@pytest.fixture
def limited(tiny_dsn) -> Iterator:
    """Serve a workbench with the connection limits given as ``limited(**settings)``; yield its URL."""
    with contextlib.ExitStack() as stack:

        def serve_limited(**settings: object) -> str:
            bench = make_bench(tiny_dsn, **settings)
            stack.callback(bench.close)
            return stack.enter_context(serving(bench))

        yield serve_limited


def test_connections_over_the_per_client_and_total_caps_are_refused_or_take_a_half_open_ones_place(limited):
    url = limited(max_connections=4, max_connections_per_client=2, header_timeout_s=30)
    with contextlib.ExitStack() as held:

        def opened(address: str) -> socket.socket:
            sock = held.enter_context(connect(url, address))
            time.sleep(0.2)  # the server has counted it in (or out)
            return sock

        first = [opened("127.0.0.1") for _ in range(2)]
        assert (answer_of(opened("127.0.0.1"), 3) or b"").startswith(b"HTTP/1.1 503")  # a third of one peer
        second = [opened("127.0.0.2") for _ in range(2)]  # all four places taken
        third = opened("127.0.0.3")  # takes the place of the oldest half-open one of a peer holding two
        assert answer_of(first[0], 2) == b"" and answer_of(third, 0.2) is None
        fourth = opened("127.0.0.4")
        assert answer_of(second[0], 2) == b"" and answer_of(fourth, 0.2) is None
        refused = opened("127.0.0.5")  # every peer holds one: no place for a fifth
        assert (answer_of(refused, 3) or b"").startswith(b"HTTP/1.1 503")
        assert all(answer_of(sock, 0.2) is None for sock in (first[1], second[1], third, fourth))
    assert httpx.get(f"{url}/api/health", timeout=5).status_code == 200  # closed ones are counted out


def test_a_connection_whose_headers_do_not_come_is_closed_after_the_header_timeout(limited):
    url = limited(header_timeout_s=1.0)
    with connect(url) as silent, connect(url) as partial, httpx.Client(timeout=10) as kept_alive:
        partial.sendall(PARTIAL_HEADERS)
        started = time.monotonic()
        assert answer_of(silent, 5) == b"" and answer_of(partial, 5) == b""
        assert 0.8 < time.monotonic() - started < 4
        assert kept_alive.get(f"{url}/api/health").status_code == 200  # a whole request is answered
        time.sleep(0.3)
        assert kept_alive.get(f"{url}/api/health").status_code == 200  # and the idle connection reused in time


def test_a_request_that_takes_longer_than_the_header_timeout_is_not_cut(held):
    url, release = held(header_timeout_s=0.5)
    threading.Timer(1.5, release.set).start()
    answered = httpx.post(f"{url}/api/ask", json={"question": "slow to answer?"}, timeout=30)
    assert answered.status_code == 200


def test_health_answers_while_one_peer_holds_many_half_open_connections(limited):
    url = limited(max_connections=100, max_connections_per_client=20, header_timeout_s=30)
    with contextlib.ExitStack() as held:
        for _ in range(60):  # three times its share, each with a request's first bytes
            sock = held.enter_context(connect(url, "127.0.0.1"))
            with contextlib.suppress(OSError):
                sock.sendall(PARTIAL_HEADERS)
        time.sleep(0.5)
        with client_at("127.0.0.2") as other:
            started = time.monotonic()
            assert other.get(f"{url}/api/health").status_code == 200
            assert time.monotonic() - started < 2


FLOODER = """
import socket, sys
host, port, per_address, *addresses = sys.argv[1:]
held = []
for address in addresses:
    for _ in range(int(per_address)):
        try:
            sock = socket.create_connection((host, int(port)), timeout=5, source_address=(address, 0))
            sock.sendall(b"GET /api/health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Slow: ")
            held.append(sock)
        except OSError:
            pass
print(len(held), flush=True)
sys.stdin.read()
"""
"""Holds half-open connections from several addresses (in a process of its own, with files of its own)."""


@contextlib.contextmanager
def open_files_at_most(extra: int) -> Iterator[None]:
    """Lower this process's open-file limit to the files open now and `extra` more, for the block."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_health_answers_while_half_open_connections_from_many_addresses_pass_the_open_file_limit(tiny_dsn):
    """The red team's ~20,000 half-open connections, scaled to a limit of 300 more files (the server runs here)."""
    bench = make_bench(tiny_dsn, header_timeout_s=60)  # the header timeout does not come to the rescue
    try:
        # The client is made first: making one reads the CA bundle, a file this process may not open under the flood.
        with client_at("127.0.0.20") as other, open_files_at_most(300), serving(bench) as url:
            parts = urlsplit(url)
            addresses = [f"127.0.0.{n}" for n in range(1, 9)]
            flood = subprocess.Popen(
                [sys.executable, "-c", FLOODER, parts.hostname, str(parts.port), "100", *addresses],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                assert int(flood.stdout.readline()) >= 300  # more than the files the server may open
                started = time.monotonic()
                assert other.get(f"{url}/api/health").status_code == 200
                assert time.monotonic() - started < 2
            finally:
                flood.stdin.close()
                flood.wait(10)
    finally:
        bench.close()


def test_the_accept_loops_out_of_files_complaint_is_logged_once_per_period(caplog):
    uvicorn_config(object(), ServeSettings())  # installs the filter on asyncio's logger
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            for _ in range(5_000):  # what asyncio's accept loop says at each failed accept()
                loop.call_exception_handler(
                    {"message": "socket.accept() out of system resource", "exception": OSError(24, "Too many")}
                )
            loop.call_exception_handler({"message": "something else", "exception": ValueError("x")})
    finally:
        loop.close()
    lines = [record.getMessage() for record in caplog.records]
    assert sum("out of system resource" in line for line in lines) <= 1
    assert "something else" in lines  # other complaints pass
    assert LOG_EVERY_S >= 1


# -- cookies ----------------------------------------------------------------------------------------------------------


def session_cookie_header(response: httpx.Response) -> str:
    return next(value for key, value in response.headers.multi_items() if key == "set-cookie")


@pytest.mark.parametrize(("proxies", "secure"), [("127.0.0.1", True), (None, False), ("10.9.9.9", False)])
def test_cookies_are_secure_behind_https_from_a_trusted_proxy_only(limited, proxies, secure):
    url = limited(forwarded_allow_ips=proxies)
    port = urlsplit(url).port
    page = httpx.get(f"{url}/", headers={"X-Forwarded-Proto": "https"}, timeout=10)
    cookie = session_cookie_header(page)
    name = cookie.split("=", 1)[0]
    assert name == cookie_name(SESSION_COOKIE, port, secure=secure)
    assert name.startswith("__Host-") is secure and ("; secure" in cookie.lower()) is secure
    assert "path=/" in cookie.lower() and "domain=" not in cookie.lower()  # what __Host- asks of a cookie


def test_a_session_behind_a_trusted_https_proxy_keeps_its_history(limited):
    url = limited(forwarded_allow_ips="127.0.0.1")
    https = {"X-Forwarded-Proto": "https"}

    def sent_back(response: httpx.Response) -> dict[str, str]:  # what a browser on https sends next
        return {"Cookie": session_cookie_header(response).split(";", 1)[0], **https}

    cookie = sent_back(httpx.get(f"{url}/", headers=https, timeout=10))
    rerun = httpx.post(f"{url}/answers/x/rerun", data={"sql": "SELECT 1 AS n"}, headers=cookie, timeout=30)
    assert rerun.status_code == 303
    page = httpx.get(f"{url}/", headers=sent_back(rerun), timeout=10)
    assert history_links(page.text) == 1


def test_two_workbenches_on_one_host_keep_their_sessions_and_tokens_apart(tiny_dsn):
    token = "t" * 32
    first, second = make_bench(tiny_dsn, token=token), make_bench(tiny_dsn, token=token)
    try:
        with serving(first) as one, serving(second) as two, httpx.Client(timeout=30) as browser:
            for url in (one, two):  # a browser shares cookies between the ports of a host
                assert browser.get(f"{url}/?token={token}").status_code == 200
            assert browser.post(f"{one}/answers/x/rerun", data={"sql": "SELECT 1 AS n"}).status_code == 303
            assert browser.post(f"{two}/answers/x/rerun", data={"sql": "SELECT 2 AS n"}).status_code == 303
            pages = [browser.get(f"{url}/") for url in (one, two)]
        assert [page.status_code for page in pages] == [200, 200]  # neither token cookie replaced the other's
        assert [history_links(page.text) for page in pages] == [1, 1]  # nor either session the other's
    finally:
        first.close()
        second.close()
