"""Take the object page's pictures for the documentation (docs/images/object-*.png) from the real page.

Throwaway embedded servers build the ztf and multisurvey replicas at --scale (seed 0); a workbench per catalog is
served on loopback and Debian's Chromium (Playwright) opens, for each picture, the object that a query on the replica
picks: the ztf object whose first-ranked class is SNIa with the highest probability; the LSST diaObject (sid 1) most
probably a variable star (VS, rank 1: the multi-survey catalog's classifiers have no RR Lyrae class) whose period
(Multiband_period) lies in the RR Lyrae range, 0.2 to 1 day, folded at that period; the solar-system object (sid 2)
with an orbit and the most detections. Nothing names an object by hand. Each picture is the top of the page
(summary, light curve, sky view).
"""

import argparse
import contextlib
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg

from benchmarks.common import free_port, throwaway_data_dir
from benchmarks.object_view import served
from db.server import ServerSettings, up
from engines import EngineSettings
from lms.fake import fake_lm, render_answer
from modules.settings import ProgramSettings
from serve import ServeSettings
from serve.workbench import open_workbench

EXAMPLES = """examples:
  python -m docsgen.screenshots
  python -m docsgen.screenshots --scale default --out docs/images

Writes object-ztf-sn-ia.png, object-lsst-rr-lyrae.png and object-solar-system.png; exit codes: 0 done, 1 no such
object in the replica or no Chromium, 2 bad command line."""

IMAGES_DIR = Path(__file__).resolve().parent.parent / "docs" / "images"
PICTURES = {
    "object-ztf-sn-ia": (
        "ztf",
        "SELECT p.oid, NULL FROM probability p JOIN object o ON o.oid = p.oid WHERE p.class_name = 'SNIa' "
        "AND p.ranking = 1 ORDER BY p.probability DESC, o.ndet DESC, p.oid LIMIT 1",
    ),
    "object-lsst-rr-lyrae": (
        "multisurvey",
        "SELECT p.oid, p.sid FROM probability p JOIN taxonomy t ON t.classifier_id = p.classifier_id "
        "AND t.class_id = p.class_id JOIN feature f ON f.oid = p.oid AND f.sid = p.sid "
        "JOIN feature_name_lut n ON n.feature_id = f.feature_id WHERE t.class_name = 'VS' AND p.ranking = 1 "
        "AND p.sid = 1 AND n.feature_name = 'Multiband_period' AND f.feature_value BETWEEN 0.2 AND 1.0 "
        "ORDER BY p.probability DESC, p.oid LIMIT 1",
    ),
    "object-solar-system": (
        "multisurvey",
        "SELECT o.oid, o.sid FROM object o JOIN lsst_mpc_orbits m ON m.ssobjectid = o.oid WHERE o.sid = 2 "
        "ORDER BY o.n_det DESC, o.oid LIMIT 1",
    ),
}
"""Each picture's catalog and the query that picks its object (oid, sid)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m docsgen.screenshots",
        description=__doc__.splitlines()[0],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--scale", default="tiny", help="replica scale to build (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=IMAGES_DIR, help="folder of the pictures (default: docs/images)")
    return parser


@contextlib.contextmanager
def catalog_url(catalog: str, scale: str) -> Iterator[tuple[str, str]]:
    """Build the catalog's replica in a throwaway server and serve a workbench on it; yield its URL and reader DSN."""
    with throwaway_data_dir(f"alerce-t2s-shots-{catalog}-") as data_dir:
        info = up(ServerSettings(data_dir=data_dir, port=free_port(), scale=scale, seed=0, catalog=catalog))
        engine = EngineSettings(dsn=info.reader_dsn, catalog=catalog)
        lm = fake_lm(lambda call: render_answer({"sql": "SELECT 1 AS n"}))
        program = ProgramSettings(uncompiled=True)
        bench = open_workbench("fake/docs", ServeSettings(), program=program, engine=engine, lm=lm)
        try:
            with served(bench) as url:
                yield url, info.reader_dsn
        finally:
            bench.close()


def take(page, url: str, path: Path, *, fold: bool) -> None:
    """Open the object page at `url`, wait for its plots (folded at the page's period when `fold`), and save it."""
    page.goto(url)
    page.wait_for_selector("#light-curve .main-svg, #curve-message:not([hidden])")
    page.wait_for_selector("#sky[data-drawn=done]")
    if fold:
        if not page.input_value("#period"):
            raise LookupError(f"{url} has no period to fold at")
        page.click("#fold-button")
        page.wait_for_function("() => document.getElementById('light-curve')._fullLayout.xaxis.title.text !== 'MJD'")
    page.wait_for_timeout(500)
    bottom = page.evaluate("() => document.getElementById('sky-section').getBoundingClientRect().bottom + scrollY")
    page.screenshot(path=str(path), full_page=True, clip={"x": 0, "y": 0, "width": 1200, "height": bottom + 10})


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    args = build_parser().parse_args(argv)
    chromium = os.environ.get("ALERCE_T2S_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("error: Chromium is missing; run: bash scripts/install_system_packages.sh --browser", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as playwright:
            # software WebGL (SwiftShader) for plotly.js's and Aladin Lite's canvases on machines without a GPU
            browser = playwright.chromium.launch(
                executable_path=chromium, headless=True, args=["--enable-unsafe-swiftshader"]
            )
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            for catalog in ("ztf", "multisurvey"):
                with catalog_url(catalog, args.scale) as (url, dsn):
                    for name, (of_catalog, sql) in PICTURES.items():
                        if of_catalog != catalog:
                            continue
                        with psycopg.connect(dsn) as connection:
                            found = connection.execute(sql).fetchone()
                        if found is None:
                            raise LookupError(f"the {catalog} replica has no object for {name}")
                        query = "" if found[1] is None else f"?sid={found[1]}"
                        path = args.out / f"{name}.png"
                        take(page, f"{url}/objects/{catalog}/{found[0]}{query}", path, fold="rr-lyrae" in name)
                        print(path)
            browser.close()
    except (LookupError, psycopg.Error) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
