"""Aladin Lite, vendored unmodified from its npm package (scripts/vendor_aladin_lite.sh), and the hashes of the style
sheet and the constant style attributes it inserts, which the content security policy allows by those hashes alone."""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from pathlib import Path

__all__ = ["ALADIN_PATH", "AladinMissingError", "aladin_style_hashes"]

ALADIN_PATH = Path(__file__).with_name("static") / "vendor" / "aladin-lite" / "aladin.js"
"""The bundle the sky view imports (``/static/vendor/aladin-lite/aladin.js``)."""
_STYLE_VARIABLE = re.compile(r'classList\.add\("aladin-css"\),\w+\.innerHTML=(\w+)')
_STYLE_ATTRIBUTE = re.compile(r'style="([^"\'<>\\]+)"')
_JS_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|.)")


class AladinMissingError(RuntimeError):
    """The vendored bundle is missing, or is a version whose style sheet is not where the workbench looks."""


@functools.cache
def aladin_style_hashes() -> tuple[str, ...]:
    """The CSP sources (``'sha256-…'``) of what Aladin Lite styles inline: the style sheet it puts in a ``<style>``
    element (one JavaScript string in the bundle, decoded here as the browser will hash it) and the constant
    ``style="…"`` attributes of the HTML it writes.

    Raises:
        AladinMissingError: The vendored bundle is missing or no longer holds its style sheet where this looks.
    """
    try:
        text = ALADIN_PATH.read_text(encoding="utf-8")
    except OSError as err:
        raise AladinMissingError(f"Aladin Lite is missing ({err}); run bash scripts/vendor_aladin_lite.sh") from err
    variable = _STYLE_VARIABLE.search(text)
    literal = variable and re.search(rf"[,;\s]{variable.group(1)}='([^']*)'", text)
    if not literal:
        raise AladinMissingError(f"no style sheet found in {ALADIN_PATH}; its version is not one the workbench knows")
    styles = [_JS_ESCAPE.sub(_unescape, literal.group(1)), *dict.fromkeys(_STYLE_ATTRIBUTE.findall(text))]
    return tuple(f"'sha256-{base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()}'" for style in styles)


def _unescape(escape: re.Match[str]) -> str:
    code = escape.group(1)
    if code.startswith("u{"):
        return chr(int(code[2:-1], 16))
    if code.startswith("u") and len(code) == 5:
        return chr(int(code[1:], 16))
    return {"n": "\n", "t": "\t", "r": "\r"}.get(code, code)
