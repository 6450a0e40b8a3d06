"""The object page in Debian's headless Chromium (Playwright, no browser download): the light curve zooms, hovers,
switches magnitude and flux and folds; nothing is loaded from outside the workbench (the sky view's Aladin Lite
included)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.serve.conftest import make_bench, requests_outside, serving


@pytest.fixture(scope="module")
def ztf_url(tiny_dsn) -> Iterator[str]:
    bench = make_bench(tiny_dsn)
    try:
        with serving(bench) as url:
            yield url
    finally:
        bench.close()


@pytest.fixture(scope="module")
def multisurvey_url(multisurvey_dsn) -> Iterator[str]:
    bench = make_bench(multisurvey_dsn, catalog="multisurvey")
    try:
        with serving(bench) as url:
            yield url
    finally:
        bench.close()


def most_detected(tiny_dsn: str) -> str:
    import psycopg

    with psycopg.connect(tiny_dsn) as connection:
        return connection.execute("SELECT oid FROM object ORDER BY ndet DESC, oid LIMIT 1").fetchone()[0]


def curve(page, expression: str):
    """Evaluate `expression` with ``plot`` bound to the light curve's Plotly element."""
    return page.evaluate(f"() => {{ const plot = document.getElementById('light-curve'); return {expression}; }}")


Y_RANGE = "document.getElementById('light-curve')._fullLayout.yaxis.range"


def _is_error(message) -> bool:
    """A console error, but for the workbench's missing favicon (no page of it has one)."""
    return message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico")


def open_curve(page, url: str) -> None:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if _is_error(message) else None)
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    page.wait_for_selector("#light-curve .main-svg")
    assert not errors, errors


def test_the_light_curve_zooms_and_hovers(page, ztf_url, tiny_dsn):
    open_curve(page, f"{ztf_url}/objects/ztf/{most_detected(tiny_dsn)}")
    assert curve(page, "plot.data.every(trace => trace.type === 'scatter')")  # SVG: few points
    before = curve(page, "plot._fullLayout.xaxis.range.slice()")
    box = page.locator("#light-curve .nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.5)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.5, steps=8)
    page.mouse.up()
    page.wait_for_function(
        f"() => document.getElementById('light-curve')._fullLayout.xaxis.range[1] - "
        f"document.getElementById('light-curve')._fullLayout.xaxis.range[0] < {(before[1] - before[0]) * 0.5}"
    )
    page.dblclick("#light-curve .nsewdrag")  # back to the whole curve, both axes as they were
    page.wait_for_function(
        "(before) => { const layout = document.getElementById('light-curve')._fullLayout;"
        " return Math.abs(layout.xaxis.range[0] - before[0]) + Math.abs(layout.xaxis.range[1] - before[1])"
        " < 1e-6 * (before[1] - before[0]); }",
        arg=before,
    )
    page.wait_for_timeout(500)  # the redraw after the reset

    # the screen position of the detection farthest in time from its neighbours, from the axes' own conversion
    x, y, mjd, mag = curve(
        page,
        "(() => { const layout = plot._fullLayout, trace = plot.data[0], box = plot.getBoundingClientRect();"
        " const gap = (i) => Math.min(i ? trace.x[i] - trace.x[i - 1] : Infinity,"
        " i + 1 < trace.x.length ? trace.x[i + 1] - trace.x[i] : Infinity);"
        " let at = 0; for (let i = 1; i < trace.x.length; i++) if (gap(i) > gap(at)) at = i;"
        " return [box.left + layout._size.l + layout.xaxis.l2p(trace.x[at]),"
        " box.top + layout._size.t + layout.yaxis.l2p(trace.y[at]), trace.x[at], trace.y[at]]; })()",
    )
    page.mouse.move(x, y)
    page.wait_for_selector("#light-curve .hoverlayer .hovertext")
    tooltip = page.text_content("#light-curve .hoverlayer .hovertext")
    assert f"MJD {mjd:.5f}" in tooltip and f"mag {mag:.3f}" in tooltip and "UTC" in tooltip


def test_a_long_light_curve_is_drawn_with_webgl(page, ztf_url, tiny_dsn):
    open_curve(page, f"{ztf_url}/objects/ztf/{most_detected(tiny_dsn)}")
    kinds = curve(
        page,
        "(() => { const n = 100000, columns = data.points;"
        " for (const name of Object.keys(columns)) columns[name] = Array.from({length: n}, (_, i) => columns[name][i % "
        "columns[name].length]); drawCurve(); return plot.data.map(trace => trace.type); })()",
    )
    assert kinds and set(kinds) == {"scattergl"}


def test_magnitude_and_flux_switch_and_the_curve_folds(page, multisurvey_url, multisurvey_dsn):
    import psycopg

    with psycopg.connect(multisurvey_dsn) as connection:
        oid = connection.execute(
            "SELECT oid FROM lsst_forced_photometry WHERE sid = 1 AND psfflux < 0 GROUP BY oid ORDER BY oid LIMIT 1"
        ).fetchone()[0]
    open_curve(page, f"{multisurvey_url}/objects/multisurvey/{oid}?sid=1")
    assert curve(page, "plot._fullLayout.yaxis.range[0] > plot._fullLayout.yaxis.range[1]")  # brighter up
    assert "magnitude" in curve(page, "plot._fullLayout.yaxis.title.text")
    page.check("#unit-flux")
    page.wait_for_function(f"() => {Y_RANGE}[0] < {Y_RANGE}[1]")
    assert "nJy" in curve(page, "plot._fullLayout.yaxis.title.text")
    assert curve(page, "plot.data.some(trace => trace.y.some(value => value < 0))")  # negative fluxes are drawn
    page.check("#unit-mag")
    page.wait_for_function(f"() => {Y_RANGE}[0] > {Y_RANGE}[1]")
    assert curve(page, "plot.data.some(trace => trace.name.endsWith('limit'))")  # ...and become limits

    page.fill("#period", "0.75")
    page.click("#fold-button")
    page.wait_for_function("() => document.getElementById('light-curve')._fullLayout.xaxis.title.text.includes('0.75')")
    xs = curve(page, "plot.data.flatMap(trace => trace.x)")
    assert min(xs) >= 0 and max(xs) < 2 and max(xs) > 1  # two cycles of phase
    page.click("#unfold-button")
    page.wait_for_function("() => document.getElementById('light-curve')._fullLayout.xaxis.title.text === 'MJD'")


def test_a_ztf_object_on_multisurvey_says_it_has_no_fluxes(page, multisurvey_url, multisurvey_dsn):
    import psycopg

    with psycopg.connect(multisurvey_dsn) as connection:
        oid = connection.execute("SELECT oid FROM object WHERE sid = 0 ORDER BY oid LIMIT 1").fetchone()[0]
    page.goto(f"{multisurvey_url}/objects/multisurvey/{oid}")
    page.wait_for_selector("#curve-message:not([hidden])")
    assert "ztf catalog" in page.inner_text("#curve-message")
    assert page.locator("#light-curve .main-svg").count() == 0


def test_every_request_of_the_page_stays_on_the_workbench(page, multisurvey_url, multisurvey_dsn):
    import psycopg

    with psycopg.connect(multisurvey_dsn) as connection:
        oid = connection.execute("SELECT ssobjectid FROM lsst_mpc_orbits ORDER BY ssobjectid LIMIT 1").fetchone()[0]
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    open_curve(page, f"{multisurvey_url}/objects/multisurvey/{oid}")
    page.wait_for_selector("#track .main-svg")
    page.mouse.move(400, 400)
    page.check("#unit-flux")
    page.wait_for_selector("#sky[data-drawn=done]")  # Aladin Lite and its WebAssembly, from the workbench too
    page.wait_for_timeout(300)
    assert any(url.endswith("/vendor/plotly.min.js") for url in requested)
    assert any(url.endswith("/static/vendor/aladin-lite/aladin.js") for url in requested)
    track = page.evaluate("() => document.getElementById('sky').aladin.getOverlays().flatMap(l => l.sources || [])")
    assert len(track) == curve(page, "document.getElementById('track').data[0].x.length") > 1
    assert not requests_outside(requested, multisurvey_url)
