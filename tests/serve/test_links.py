"""No page links to a route that does not exist: every href, src and form action of the home page, an answer page
and an object page is requested (a link out of the workbench must be an absolute https URL)."""

from __future__ import annotations

import html
import re
from urllib.parse import urljoin, urlsplit

from tests.serve.test_pages import ask

_LINK = re.compile(r'\b(href|src|action)="([^"]*)"')
_FORM = re.compile(r"<form\b[^>]*>", re.IGNORECASE)


def links_of(page: str) -> tuple[set[str], set[str]]:
    """The page's own GET targets (hrefs, srcs, GET forms) and its POST form actions, as paths."""
    gets, posts = set(), set()
    for form in _FORM.findall(page):
        action = re.search(r'action="([^"]*)"', form)
        if action and 'method="post"' in form.lower():
            posts.add(html.unescape(action.group(1)))
    for attribute, value in _LINK.findall(page):
        target = html.unescape(value)
        if attribute == "action" and target in posts:
            continue
        gets.add(target)
    return gets, posts


def own(targets: set[str]) -> set[str]:
    """The targets on the workbench itself; any other must be an absolute https link out."""
    inside = set()
    for target in targets:
        parts = urlsplit(target)
        if parts.netloc:
            assert parts.scheme == "https" and not target.startswith("//"), f"a link out that is not https: {target}"
        else:
            inside.add(target)
    return inside


def test_every_link_of_the_pages_reaches_a_route(client):
    events = ask(client)
    answer = f"/answers/{events[-1]['answer_id']}"
    answer_page = client.get(answer).text
    oid = re.search(r'<a class="object" href="(/objects/[^"]+)"', answer_page)
    assert oid, "the answer page links its objects"
    pages = {"/": client.get("/").text, answer: answer_page, oid.group(1): client.get(html.unescape(oid.group(1))).text}
    checked = set()
    for path, page in pages.items():
        gets, posts = links_of(page)
        for target in sorted(own(gets)):
            url = urljoin(f"http://127.0.0.1:8000{path}", target)
            response = client.get(url, follow_redirects=False)
            if response.is_redirect:  # a deliberate redirect must land on a page that exists
                response = client.get(urljoin(url, response.headers["location"]))
            assert response.status_code == 200, f"{path} links to {target}: {response.status_code}"
            checked.add(urlsplit(url).path)
        for target in sorted(own(posts)):
            status = client.post(urljoin(f"http://127.0.0.1:8000{path}", target), follow_redirects=False).status_code
            assert status not in (404, 405), f"{path} posts to {target}, which has no route: {status}"
    assert {f"{answer}/download/votable", f"{answer}/sky.png", "/static/samp.js", "/vendor/plotly.min.js"} <= checked


def test_a_missing_route_or_answer_is_no_200_so_the_check_can_fail(client):
    assert client.get("/docs").status_code == 404 and client.get("/no/such/page").status_code == 404
    assert client.get("/answers/nope/download/votable").status_code == 400
