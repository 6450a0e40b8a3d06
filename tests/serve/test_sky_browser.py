"""The sky view (Aladin Lite, vendored) in Debian's headless Chromium: a cone search shows its cone, centred and zoomed
on it, with its positions; an object's row opens its page, whose sky view shows the object; a HiPS survey that
cannot be reached leaves a plain coordinate view that says so, one that answers is drawn under the positions;
nothing is loaded from outside the workbench (but the survey the workbench names)."""

from __future__ import annotations

import http.server
import io
import re
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest
from PIL import Image

from tests.conftest import free_port
from tests.serve.conftest import make_bench, requests_outside, serving

RADIUS_DEG = 0.5
SKY = "document.getElementById('sky')"
RED_AT_EDGE = """([ra, dec, radius]) => {
    const aladin = document.getElementById('sky').aladin, canvas = aladin.view.catalogCanvas;
    const ratio = canvas.width / canvas.clientWidth;
    const [x, y] = aladin.world2pix(ra, dec + radius * 0.999).map(v => Math.round(v * ratio));
    const pixels = canvas.getContext('2d').getImageData(x - 3, y - 3, 7, 7).data;
    let found = 0;
    for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i] > 200 && pixels[i + 1] < 120 && pixels[i + 3] > 0) found++;
    }
    return found;
}"""
"""Red pixels of the overlay canvas around the point where a cone's circle crosses north of its centre."""


def cone_sql(tiny_dsn: str) -> tuple[str, float, float]:
    """A cone search around the tiny database's most crowded object, with its centre."""
    import psycopg

    with psycopg.connect(tiny_dsn) as connection:
        ra, dec = connection.execute(
            "SELECT a.meanra, a.meandec FROM object a JOIN object b ON q3c_join(a.meanra, a.meandec, b.meanra, "
            f"b.meandec, {RADIUS_DEG}) GROUP BY a.oid, a.meanra, a.meandec ORDER BY count(*) DESC, a.oid LIMIT 1"
        ).fetchone()
    sql = (
        f"SELECT oid, meanra, meandec, ndet FROM object WHERE q3c_radial_query(meanra, meandec, {ra:.6f}, {dec:.6f}, "
        f"{RADIUS_DEG}) ORDER BY oid"
    )
    return sql, round(ra, 6), round(dec, 6)


@pytest.fixture(scope="module")
def cone(tiny_dsn) -> tuple[str, float, float]:
    return cone_sql(tiny_dsn)


@pytest.fixture(scope="module")
def cone_url(tiny_dsn, cone) -> Iterator[str]:
    bench = make_bench(tiny_dsn, cone[0])
    try:
        with serving(bench) as url:
            yield url
    finally:
        bench.close()


@pytest.fixture(scope="module")
def offline_survey_url(tiny_dsn, cone) -> Iterator[str]:
    """A workbench naming a HiPS survey on a loopback port where nothing listens."""
    bench = make_bench(tiny_dsn, cone[0], hips_url=f"http://127.0.0.1:{free_port()}/hips/DSS")
    try:
        with serving(bench) as url:
            yield url
    finally:
        bench.close()


class FakeHips(http.server.BaseHTTPRequestHandler):
    """A HiPS survey on loopback: its properties file and one grey JPEG for every tile (CORS open, as real ones)."""

    PROPERTIES = (
        "creator_did = ivo://alerce-t2s/test/hips\nobs_title = test survey\ndataproduct_type = image\n"
        "hips_version = 1.4\nhips_frame = equatorial\nhips_order = 3\nhips_tile_width = 512\n"
        "hips_tile_format = jpeg\n"
    )
    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).asked.append(self.path)
        if self.path.endswith("/properties"):
            body, kind = self.PROPERTIES.encode(), "text/plain"
        else:
            buffer = io.BytesIO()
            Image.new("RGB", (512, 512), (90, 90, 90)).save(buffer, format="JPEG")
            body, kind = buffer.getvalue(), "image/jpeg"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def online_survey_url(tiny_dsn, cone) -> Iterator[str]:
    """A workbench naming the fake HiPS survey, served on another loopback port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeHips)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    bench = make_bench(tiny_dsn, cone[0], hips_url=f"http://127.0.0.1:{server.server_port}/hips")
    try:
        with serving(bench) as url:
            yield url
    finally:
        bench.close()
        server.shutdown()


def watch(page) -> tuple[list[str], list[str]]:
    """Record every request the page makes and every error it logs (the missing favicon apart)."""
    requested: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on("requestfailed", lambda request: requested.append(request.url))
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico")
            else None
        ),
    )
    return requested, errors


def ask(page, url: str) -> None:
    page.goto(url)
    page.fill("#question", "Which objects lie in the cone?")
    page.click("#ask-button")
    page.wait_for_selector("#answer")


def drawn_sky(page) -> str:
    page.wait_for_selector("#sky[data-drawn=done], #sky[data-drawn=failed]")
    assert page.get_attribute("#sky", "data-drawn") == "done", page.inner_text("#sky-note")
    return page.inner_text("#sky-note")


def test_a_cone_search_shows_its_cone_in_the_sky_view(page, cone_url, cone, tmp_path):
    _, ra, dec = cone
    requested, errors = watch(page)
    ask(page, cone_url)
    note = drawn_sky(page)
    assert "Plain coordinate view" in note and f"cone at RA {ra}°, Dec {dec}°, radius 1800″" in note
    circles = page.evaluate(
        f"() => {SKY}.aladin.getOverlays().flatMap(layer => layer.overlayItems || [])"
        ".map(item => [item.centerRaDec[0], item.centerRaDec[1], item.radiusDegrees])"
    )
    assert circles == [[pytest.approx(ra), pytest.approx(dec), RADIUS_DEG]]
    centre = page.evaluate(f"() => {SKY}.aladin.getRaDec()")
    height = page.evaluate(f"() => {SKY}.aladin.getFov()[1]")
    assert centre == [pytest.approx(ra, abs=0.05), pytest.approx(dec, abs=0.05)]
    assert 2 * RADIUS_DEG < height < 4 * RADIUS_DEG  # zoomed on the cone, not the whole sky

    # the cone is drawn: the overlay canvas is red where the circle crosses the cone's northern edge
    red = page.evaluate(RED_AT_EDGE, [ra, dec, RADIUS_DEG])
    assert red > 0
    rows = page.locator("#rows tbody tr").count()
    sources = page.evaluate(f"() => {SKY}.aladin.getOverlays().flatMap(layer => layer.sources || []).length")
    assert sources == rows > 1
    page.screenshot(path=str(tmp_path / "cone.png"), full_page=True)

    assert any(url.endswith("/static/vendor/aladin-lite/aladin.js") for url in requested)
    assert not requests_outside(requested, cone_url)
    assert not errors, errors


def test_an_object_opens_from_its_result_row_with_the_object_on_the_sky(page, cone_url):
    requested, errors = watch(page)
    ask(page, cone_url)
    link = page.locator("#rows tbody tr a.object").first
    oid = link.inner_text()
    link.click()
    page.wait_for_url(f"**/objects/ztf/{oid}")
    assert oid in page.inner_text("#object-title")
    page.wait_for_selector("#light-curve .main-svg")
    drawn_sky(page)
    position = page.evaluate(f"() => {SKY}.aladin.getRaDec()")
    ra, dec = re.match(r"RA ([\d.]+)°, Dec ([+-][\d.]+)°", page.inner_text("#object-position")).groups()
    assert position == [pytest.approx(float(ra), abs=1e-6), pytest.approx(float(dec), abs=1e-6)]
    assert page.evaluate(f"() => {SKY}.aladin.getOverlays().flatMap(layer => layer.sources || []).length") == 1
    assert not requests_outside(requested, cone_url)
    assert not errors, errors


def test_a_survey_that_cannot_be_reached_leaves_a_plain_coordinate_view(page, offline_survey_url):
    ask(page, offline_survey_url)
    note = drawn_sky(page)
    assert "Plain coordinate view: the sky survey http://127.0.0.1:" in note and "cannot be reached (offline)" in note
    policy = page.evaluate("async () => (await fetch('/')).headers.get('content-security-policy')")
    assert "img-src 'self' data: http://127.0.0.1:" in policy


def test_a_survey_that_answers_is_shown_under_the_positions(page, online_survey_url):
    FakeHips.asked.clear()
    ask(page, online_survey_url)
    note = drawn_sky(page)
    assert note.startswith("Survey: http://127.0.0.1:") and "/hips (HiPS)." in note
    page.wait_for_function("() => document.getElementById('sky').aladin.getBaseImageLayer() !== undefined")
    page.wait_for_timeout(2000)
    assert "/hips/properties" in FakeHips.asked
    assert any(path.endswith(".jpg") for path in FakeHips.asked), FakeHips.asked  # its tiles were asked for
