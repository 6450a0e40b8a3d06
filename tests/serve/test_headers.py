"""Every response forbids framing and sniffing; the page loads only its own script, style and pictures."""

import re

import pytest

from serve.access import CONTENT_SECURITY_POLICY
from tests.serve.test_pages import ask


@pytest.mark.parametrize("path", ["/", "/api/health", "/static/workbench.js", "/openapi.json", "/no-such-page"])
def test_every_response_forbids_framing(client, path):
    headers = client.get(path).headers
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    # the sky view's WebAssembly and its library's style hashes; never inline code or styles in general
    unsafe = set(re.findall(r"'[\w-]*unsafe[\w-]*'", CONTENT_SECURITY_POLICY))
    assert unsafe == {"'wasm-unsafe-eval'", "'unsafe-hashes'"}


def test_refusals_before_the_application_carry_the_headers_too(client):
    refused = client.get("/api/health", headers={"Host": "evil.example"})
    assert refused.status_code == 403 and refused.headers["x-frame-options"] == "DENY"


def test_the_page_loads_nothing_its_policy_refuses(client):
    answer_id = ask(client)[-1]["answer_id"]
    for page in (client.get("/").text, client.get(f"/answers/{answer_id}").text):
        assert "<style" not in page and " style=" not in page  # style-src 'self': no inline style
        scripts = re.findall(r"<script[^>]*>", page)
        assert '<script src="/static/workbench.js">' in scripts
        own = r'<script (type="module" )?src="/static/[\w.-]+\.js">'
        assert all(re.fullmatch(own, tag) for tag in scripts), scripts  # none inline
        assert re.search(r"<[^>]+\son[a-z]+=", page) is None  # no inline event handlers
        for url in re.findall(r'(?:src|href|action)="([^"]*)"', page):
            assert url.startswith("/") and not url.startswith("//"), url  # the page's own origin only
    for asset in ("/static/workbench.js", "/static/result_table.js", "/static/samp.js", "/static/workbench.css"):
        assert client.get(asset).status_code == 200


def test_the_api_documentation_page_loads_nothing_from_another_site(client):
    assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
    assert "/api/ask" in client.get("/openapi.json").json()["paths"]
