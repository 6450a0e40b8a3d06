"""The sky view's server side: an answer's positions and cones as JSON for the page's Aladin Lite view."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from answering import AnsweringError
from serve.errors import WorkbenchError
from serve.responses import EncodableJSONResponse
from serve.workbench import Workbench

__all__ = ["sky_data", "sky_router"]


def sky_router(bench: Workbench) -> APIRouter:
    """Build the route of an answer's sky data."""
    router = APIRouter(include_in_schema=False)

    @router.get("/answers/{answer_id}/sky.json")
    def answer_sky(answer_id: str) -> EncodableJSONResponse:
        try:
            view = bench.record(answer_id).answer.sky()
        except AnsweringError as err:
            raise WorkbenchError(str(err)) from err
        return EncodableJSONResponse(sky_data(view.to_dict(), bench.settings.hips_url))

    return router


def sky_data(view: dict[str, Any], hips_url: str) -> dict[str, Any]:
    """What the page's sky view draws: the view, the HiPS survey to try ("" for none) and the projection."""
    return view | {"hips_url": hips_url, "projection": "TAN" if view["fov_deg"] <= 90 else "AIT"}
