"""The object page (``/objects/<catalog>/<oid>``): one object's view with its interactive light curve, and the
plotting library it draws with, served from the installed plotly wheel (no CDN; the page's CSP stays 'self')."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd
from fastapi import APIRouter
from fastapi.responses import FileResponse, RedirectResponse, Response

from answering import AnsweringError
from answering.objects import ObjectView, fetch_object
from catalog.ztf_names import ZTF_NAME, ztf_oid_of
from engines.errors import EngineError
from serve.errors import WorkbenchError, failure_of
from serve.responses import encodable_html
from serve.sky import sky_data
from serve.workbench import Workbench

__all__ = ["CATALOGS", "ObjectNotFoundError", "object_router", "page_data", "plotly_path"]

CATALOGS = ("ztf", "multisurvey")
_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)
_ASSET_CACHE = "public, max-age=86400"
_INJECTED_STYLE = re.compile(r'getElementById\("([0-9a-f]{32,64})"\)\)\{var \w+=document\.createElement\("style"\)')


class ObjectNotFoundError(WorkbenchError):
    """No such catalog here, or no such object in it."""

    status = 404
    kind = "not_found"


def plotly_path() -> Path:
    """The plotly.js bundle inside the installed plotly wheel.

    Raises:
        WorkbenchError: The plotly package is not installed (it is a dependency of the project).
    """
    spec = importlib.util.find_spec("plotly")
    if spec is None or spec.origin is None:
        raise WorkbenchError("the plotly package is not installed; pip install plotly")
    return Path(spec.origin).with_name("package_data") / "plotly.min.js"


@functools.cache
def injected_style_ids() -> tuple[str, ...]:
    """Ids of the style sheets the plotly.js bundle injects as inline ``<style>`` elements unless an element of that
    id exists (maplibre's, for map traces, which this page does not draw): the page holds a placeholder of each, so
    the content security policy has nothing to block."""
    text = plotly_path().read_text(encoding="utf-8", errors="replace")
    return tuple(dict.fromkeys(_INJECTED_STYLE.findall(text)))


def object_router(bench: Workbench) -> APIRouter:
    """Build the object page's routes around one workbench (it serves one catalog)."""
    router = APIRouter(include_in_schema=False)

    @router.get("/vendor/plotly.min.js")
    def plotly_bundle() -> Response:
        return FileResponse(plotly_path(), media_type="text/javascript", headers={"Cache-Control": _ASSET_CACHE})

    @router.get("/objects/{catalog}/{oid}")
    def object_page(catalog: str, oid: str, sid: int | None = None) -> Response:
        _check_catalog(bench, catalog)
        if catalog == "multisurvey" and ZTF_NAME.fullmatch(oid):  # the integer oid is the page's one address
            query = "" if sid is None else f"?sid={sid}"
            return RedirectResponse(f"/objects/multisurvey/{ztf_oid_of(oid)}{query}", status_code=307)
        view = _view(bench, oid, sid)
        summary = view.to_dict(max_points=0)
        html = _TEMPLATES.get_template("object.html").render(
            view=view,
            summary=summary,
            data=_script_json(page_data(view, summary["classifications"])),
            sky=_script_json(sky_data(view.sky().to_dict(), bench.settings.hips_url)),
            engine=bench.engine_name,
            placeholders=injected_style_ids(),
        )
        return encodable_html(html)

    return router


def page_data(view: ObjectView, classifications: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the page's script draws: the points as columns (compact for 100,000 points), the period, the
    classifications (`classifications` when the caller has them already), the solar-system track and the one-line
    notes."""
    points = view.points
    columns = {name: _column(points[name]) for name in points.columns}
    track = {name: _column(view.track[name]) for name in ("mjd", "ra", "dec")}
    return {
        "title": view.title,
        "points": columns,
        "period_days": view.period,
        "classifications": view.to_dict(max_points=0)["classifications"]
        if classifications is None
        else classifications,
        "track": track,
        "notes": view.notes,
    }


def _script_json(data: dict[str, Any]) -> str:
    """JSON that can sit inside a ``<script type="application/json">`` element (no ``</script>`` can end it)."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _column(values: pd.Series) -> list[Any]:
    """A column as JSON values: NaN, infinities and missing values become null."""
    if pd.api.types.is_float_dtype(values):
        numbers = values.to_numpy(dtype=float)
        return np.where(np.isfinite(numbers), numbers, None).tolist()
    return values.astype(object).where(values.notna(), None).tolist()


def _check_catalog(bench: Workbench, catalog: str) -> None:
    if catalog not in CATALOGS:
        raise ObjectNotFoundError(f"no catalog {catalog[:40]!r}; the catalogs are {', '.join(CATALOGS)}")
    if catalog != bench.engine.catalog:
        raise ObjectNotFoundError(f"this workbench serves catalog {bench.engine.catalog}, not {catalog}")


def _view(bench: Workbench, oid: str, sid: int | None) -> ObjectView:
    try:
        return fetch_object(bench.engine, oid, sid=sid)
    except AnsweringError as err:
        raise ObjectNotFoundError(str(err)) from err
    except EngineError as err:
        raise failure_of(err) from err
