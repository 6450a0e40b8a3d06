"""Numbers in the documentation come from ``benchmarks/results/<name>.json`` (written by ``python -m
benchmarks.record``), never typed by hand.

A page writes ``[[name: path.to.value]]`` (``path`` walks the file's ``result``; ``|FORMAT`` after it applies a
Python format spec, e.g. ``[[prompt_tokens: k1.total|,]]``), and ``[[name: source]]`` for the line that says how
the numbers were measured (command, commit, machine load).
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO_DIR / "benchmarks" / "results"
DOCS_DIR = REPO_DIR / "docs"

TOKEN = re.compile(r"\[\[(?P<name>[a-z0-9_]+):\s*(?P<path>[\w.\-]+)(?:\|(?P<spec>[^\]]*))?\]\]")


class NumberError(ValueError):
    """A documented number has no result file, no such value, or a stale file."""


@dataclass(frozen=True)
class Reference:
    """One ``[[name: path]]`` in a page."""

    page: str
    name: str
    path: str
    spec: str


def references(text: str, page: str) -> list[Reference]:
    """The number references of one page's Markdown."""
    return [Reference(page, m["name"], m["path"], m["spec"] or "") for m in TOKEN.finditer(text)]


def load_result(name: str) -> dict[str, Any]:
    file = RESULTS_DIR / f"{name}.json"
    if not file.is_file():
        raise NumberError(f"no result file benchmarks/results/{name}.json: run `python -m benchmarks.record {name}`")
    return json.loads(file.read_text(encoding="utf-8"))


def value(name: str, path: str) -> Any:
    """The value at ``path`` (dot-separated keys, or list indexes) in the result of benchmark ``name``."""
    node: Any = load_result(name)["result"]
    for key in path.split("."):
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            raise NumberError(f"benchmarks/results/{name}.json has no result.{path} (at '{key}')")
    if isinstance(node, dict | list):
        raise NumberError(f"benchmarks/results/{name}.json: result.{path} is not a single value")
    return node


def source_line(name: str) -> str:
    """How the numbers of ``name`` were measured, for the page."""
    entry = load_result(name)
    load = entry["load_average"]["before"][0]
    return (
        f"Measured by `{entry['command']}` at commit `{entry['commit'][:7]}` on {entry['created_at'][:10]} "
        f"({entry['cpus']} cores, 1-minute load average {load:g} before the run; file "
        f"`benchmarks/results/{name}.json`)."
    )


def render(text: str, page: str = "") -> str:
    """Replace every reference in ``text`` by its value; raise NumberError for one that cannot be rendered."""

    def one(match: re.Match[str]) -> str:
        name, path, spec = match["name"], match["path"], match["spec"] or ""
        if path == "source":
            return source_line(name)
        try:
            return format(value(name, path), spec)
        except (TypeError, ValueError) as err:
            if isinstance(err, NumberError):
                raise NumberError(f"{page}: {err}") from None
            raise NumberError(f"{page}: cannot format result.{path} of {name} with '{spec}': {err}") from None

    return TOKEN.sub(one, text)


def stale_reason(name: str) -> str | None:
    """Why the result file of ``name`` is older than the code it measures, or None when it is current.

    Current means: recorded from a clean tree at a commit this repository has, and no commit since touched the
    paths it measures.
    """
    entry = load_result(name)
    commit, paths = entry.get("commit") or "", entry.get("measures") or []
    if entry.get("dirty"):
        return f"it was recorded with uncommitted changes to {', '.join(paths)}"
    known = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=REPO_DIR, check=False, capture_output=True
    )
    if not commit or known.returncode != 0:
        return f"its commit '{commit[:12]}' is not in this repository"
    changed = subprocess.run(
        ["git", "diff", "--name-only", commit, "HEAD", "--", *paths],
        cwd=REPO_DIR,
        check=False,
        capture_output=True,
        text=True,
    ).stdout.split()
    if changed:
        return f"{len(changed)} measured file(s) changed since {commit[:7]}, e.g. {changed[0]}"
    return None


# What reads as a measurement when typed in prose: a quantity with a unit of time, size, share or ratio (a range
# like "650 to 1,120 tokens" counts once), a count out of a total ("57 of the 58"), or a price ("$0.0193").
# Settings and limits are documented in the generated reference instead.
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_MEASUREMENT = re.compile(
    rf"(?<![\w.\-/$]){_NUMBER}(?:\s?(?:to|-|\u2013)\s?{_NUMBER})?"
    r"(?:\s?(?:ms|s|min|minutes|seconds|hours|%|kB|MB|MiB|GB|GiB|tokens(?:/s)?|\u00d7)|x|\s(?:times\b))(?![\w/])"
    r"|(?<![\w.])\d[\d,]* of (?:the |its |all |these )?\d[\d,]*(?![\w.])"
    rf"|(?<![\w.])\${_NUMBER}(?![\w.])"
)
# A table cell holding nothing but a number, past the first column (which labels the row: a layer, a step).
_BARE_CELL = re.compile(rf"[\u2212+\-]?{_NUMBER}")
# Code spans may wrap onto the next line of their paragraph (read per line, their backticks would pair wrongly).
_NOT_PROSE = re.compile(
    r"^```.*?^```|`(?:[^`\n]|\n(?![ \t]*\n))*?`|\[\[[^\]]*\]\]|<!--.*?-->|\]\([^)]*\)", re.MULTILINE | re.DOTALL
)


def _bare_table_numbers(prose: str) -> list[str]:
    """The table cells of ``prose`` that hold a bare number, each with the start of its row."""
    found = []
    for line in prose.splitlines():
        cells = line.strip().strip("|").split("|")
        if line.lstrip().startswith("|") and len(cells) > 1:
            found += [
                f"{line.strip()[:40]} ({cell.strip()})" for cell in cells[1:] if _BARE_CELL.fullmatch(cell.strip())
            ]
    return found


def hand_typed_measurements(text: str) -> list[str]:
    """The measurement-like numbers typed in a page's prose and tables (code, number references and link targets
    aside)."""
    prose = _NOT_PROSE.sub(" ", text)
    typed = [" ".join(prose[max(0, m.start() - 30) : m.end() + 10].split()) for m in _MEASUREMENT.finditer(prose)]
    return typed + _bare_table_numbers(prose)
