"""Responses UTF-8 can always encode: a lone surrogate in any text (the model's above all) becomes U+FFFD."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import HTMLResponse, JSONResponse

from fileio.text import encodable

__all__ = ["EncodableJSONResponse", "encodable_html"]


class EncodableJSONResponse(JSONResponse):
    """A JSON response in UTF-8, whatever text it holds."""

    def render(self, content: Any) -> bytes:
        """Serialize `content` as compact JSON in UTF-8."""
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return encodable(text).encode("utf-8")


def encodable_html(text: str, status_code: int = 200) -> HTMLResponse:
    """Return an HTML response in UTF-8, whatever text it holds."""
    return HTMLResponse(encodable(text), status_code=status_code)
