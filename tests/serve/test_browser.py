"""The page in a real headless Chromium (Debian's, driven by Playwright; no browser download).

Where Chromium is not installed the test skips, unless ALERCE_T2S_REQUIRE_BROWSER is set (as in CI, where
`.ci/run` installs it with `scripts/install_system_packages.sh --browser`): then it fails. Screenshots go to the
test's tmp folder.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from astropy.table import Table

from tests.conftest import free_port
from tests.serve.conftest import OTHER_READING_SQL, POSITIONS_SQL, make_disagreeing_bench, serving

EDITED_SQL = "SELECT oid, meanra, meandec FROM object ORDER BY oid DESC LIMIT 7"


def chromium_path() -> str:
    found = os.environ.get("ALERCE_T2S_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("ALERCE_T2S_REQUIRE_BROWSER"):
            pytest.fail("Chromium is missing; run: bash scripts/install_system_packages.sh --browser")
        pytest.skip("Chromium is not installed (scripts/install_system_packages.sh --browser installs it as root)")
    return found


@pytest.fixture
def base_url(bench) -> Iterator[str]:
    """The workbench served by uvicorn on a free loopback port, in a thread."""
    with serving(bench) as url:
        yield url


@pytest.fixture
def disagreeing_url(tiny_dsn) -> Iterator[str]:
    """A workbench whose candidates disagree, served like `base_url`."""
    bench = make_disagreeing_bench(tiny_dsn)
    try:
        with serving(bench) as url:
            yield url
    finally:
        bench.close()


@pytest.fixture
def page() -> Iterator:
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True)
        context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
        context.set_default_timeout(30_000)
        try:
            yield context.new_page()
        finally:
            context.close()
            browser.close()


def downloaded(page, selector: str) -> Path:
    with page.expect_download() as info:
        page.click(selector)
    return Path(info.value.path())


def image_loaded(page, selector: str) -> bool:
    return page.eval_on_selector(selector, "image => image.complete && image.naturalWidth > 0")


def test_ask_edit_download_and_plot_in_a_browser(page, base_url, tmp_path):
    console = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(base_url)
    assert page.inner_text("#model") == "fake/scripted" and page.inner_text("#engine") == "postgres"
    page.fill("#question", "Where are the first objects?")
    page.click("#ask-button")

    page.wait_for_selector('#stages li[data-stage="explanation"].done')
    stages = page.eval_on_selector_all(
        "#stages li", "items => items.map(item => item.dataset.stage + ':' + item.className)"
    )
    assert stages == [
        "dates:done",
        "schema_linking:done",
        "classification:done",
        "generation:done",
        "execution:done",
        "explanation:done",
    ]
    assert POSITIONS_SQL in page.inner_text('#stages li[data-stage="generation"]')

    page.wait_for_selector("#answer")
    assert page.input_value("#sql") == POSITIONS_SQL
    assert page.inner_text("#row-count").startswith("120 rows")
    assert page.locator("#rows tbody tr").count() == 50
    page.wait_for_selector("#sky[data-drawn=done]")  # the sky view (tests/serve/test_sky_browser.py)
    assert downloaded(page, "#sky-png").read_bytes().startswith(b"\x89PNG")
    assert page.locator("#history-list li").count() == 1
    page.screenshot(path=str(tmp_path / "answer.png"), full_page=True)

    rows = pd.read_csv(downloaded(page, "#download-csv"))
    assert len(rows) == 120 and list(rows.columns) == ["oid", "meanra", "meandec", "ndet"]
    votable = Table.read(io.BytesIO(downloaded(page, "#download-votable").read_bytes()), format="votable")
    assert len(votable) == 120 and str(votable["meandec"].unit) == "deg"
    assert list(votable["oid"]) == list(rows["oid"])

    page.fill("#sql", EDITED_SQL)
    page.click("#rerun")
    page.wait_for_selector("#row-count")
    assert page.input_value("#sql") == EDITED_SQL and page.inner_text("#row-count").startswith("7 rows")
    assert page.locator("#rows tbody tr").count() == 7 and page.locator("#history-list li").count() == 2
    edited = pd.read_csv(downloaded(page, "#download-csv"))
    assert list(edited["oid"]) == sorted(edited["oid"], reverse=True) and edited["oid"].min() > rows["oid"].max()

    page.select_option("#oid", edited["oid"][0])
    page.click("#plot-lightcurve")
    page.wait_for_function(
        "() => document.querySelector('#lightcurve') && document.querySelector('#lightcurve').complete"
    )
    assert image_loaded(page, "#lightcurve")
    page.screenshot(path=str(tmp_path / "edited.png"), full_page=True)
    assert (tmp_path / "answer.png").stat().st_size > 10_000
    assert not [text for text in console if "Security Policy" in text]  # the page loads only what its policy allows


def test_a_refused_sql_is_shown_as_a_message_in_the_browser(page, base_url):
    page.goto(base_url)
    page.fill("#question", "Anything")
    page.click("#ask-button")
    page.wait_for_selector("#answer")
    page.fill("#sql", "DELETE FROM object")
    page.click("#rerun")
    page.wait_for_selector("#answer-error")
    assert page.inner_text("#answer-error") == "Only one SELECT or WITH statement is allowed, got DELETE. [refused]"


def test_a_page_of_another_site_cannot_frame_the_workbench(page, base_url, tmp_path):
    (tmp_path / "frame.html").write_text(f'<!doctype html><iframe id="victim" src="{base_url}/"></iframe>')
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    other_site = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=other_site.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{other_site.server_port}/frame.html")
        page.wait_for_selector("#victim")
        page.wait_for_timeout(2_000)
        framed = [frame for frame in page.frames if frame is not page.main_frame]
        assert framed and all(frame.query_selector("#ask-form") is None for frame in framed)
    finally:
        other_site.shutdown()


def test_a_follow_up_continues_the_conversation_in_a_browser(page, base_url):
    page.goto(base_url)
    page.fill("#question", "Where are the objects?")
    page.click("#ask-button")
    page.wait_for_selector("#follow-up-form")
    assert "The rows the query returns." in page.inner_text("#explanation")
    page.fill("#follow-up", "same for 2024")
    page.click("#follow-up-button")
    page.wait_for_selector("#answer-follows")
    assert page.inner_text("#answer-follows") == "follow-up of: Where are the objects?"
    assert page.inner_text("#answer-question") == "same for 2024"
    assert "2024: 60310 ≤ mjd < 60676 (2024-01-01 to 2025-01-01 UTC)" in page.inner_text("#dates")
    assert page.locator("#history-list li.thread").count() == 1
    assert page.locator("#history-list .follow-ups li").all_inner_texts() == ["same for 2024 follow-up"]


def test_choosing_an_alternative_runs_it_in_a_browser(page, disagreeing_url):
    page.goto(disagreeing_url)
    page.fill("#question", "Where are the objects?")
    page.click("#ask-button")
    page.wait_for_selector("#alternatives")
    assert page.input_value("#sql") == POSITIONS_SQL
    assert "limit 60 instead of 120 · 60 rows" in page.inner_text("#alternatives")
    page.click("#run-alternative-1")
    page.wait_for_function(f"() => document.querySelector('#sql')?.value === {OTHER_READING_SQL!r}")
    assert page.inner_text("#row-count").startswith("60 rows") and page.locator("#rows tbody tr").count() == 50
    assert page.inner_text("#answer-question") == "Where are the objects?"
    assert page.locator("#history-list li.thread").count() == 1


def test_a_session_id_planted_from_another_port_does_not_see_the_victims_answers(page, bench, base_url):
    """The red team's fixation: a page on another port of 127.0.0.1 sets the workbench's cookie to an id the
    workbench issued to the attacker; the victim's next answer must not appear in the attacker's history."""
    import httpx

    from serve.pages import SESSION_COOKIE
    from serve.sessions import cookie_name_of

    host = base_url.removeprefix("http://")
    name = cookie_name_of(SESSION_COOKIE, host, secure=False)
    planted = httpx.get(f"{base_url}/", timeout=10).cookies[name]

    class Planter(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Set-Cookie", f"{name}={planted}; Path=/; HttpOnly; SameSite=Lax")
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><p>nothing to see</p>")

        def log_message(self, *args: object) -> None:
            pass

    other_site = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Planter)
    threading.Thread(target=other_site.serve_forever, daemon=True).start()
    try:
        page.goto(base_url)  # the victim has a session of its own
        page.goto(f"http://127.0.0.1:{other_site.server_port}/")  # which the other port's page replaces
        cookies = {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}
        assert cookies[name] == planted
        page.goto(base_url)
        page.fill("#question", "What does the victim ask?")
        page.click("#ask-button")
        page.wait_for_selector("#answer")
        assert page.locator("#history-list li").count() == 1
        seen = httpx.get(f"{base_url}/", cookies={name: planted}, timeout=10).text
        assert "What does the victim ask?" not in seen
        assert {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}[name] != planted
    finally:
        other_site.shutdown()
