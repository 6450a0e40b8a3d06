"""The examples of the README and the guides: their code blocks, and the commands their shell blocks run.

A block that cannot run as it stands says why in an HTML comment on the line before it,
``<!-- example: needs a provider's key -->``; the tests run or parse every other block and skip the marked ones
with that reason.
"""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass

from docsgen.reference import parser_of

__all__ = ["Block", "code_blocks", "commands", "parser_for"]

_FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL)
_MARKER = re.compile(r"<!--\s*example:\s*(?P<reason>.+?)\s*-->\s*$")
_SHELL = {"bash", "sh", "shell", "console"}
_SUBCOMMANDS = {("serve", "web"): "build_web_parser", ("serve", "worker"): "build_worker_parser"}


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: str
    line: int
    lang: str
    code: str
    skip_reason: str | None

    @property
    def is_shell(self) -> bool:
        return self.lang in _SHELL

    @property
    def is_python(self) -> bool:
        return self.lang in {"python", "py"}


def code_blocks(text: str, page: str) -> list[Block]:
    """The fenced code blocks of a page's Markdown, each with the reason it cannot run (None: it can)."""
    blocks = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = _MARKER.search(before)
        line = text.count("\n", 0, match.start()) + 1
        reason = marker["reason"] if marker else None
        blocks.append(Block(page, line, match["lang"], match["code"], reason))
    return blocks


def commands(code: str) -> list[list[str]]:
    """The ``python -m NAME ...`` command lines of a shell block, as argument lists (NAME first).

    Continuation lines are joined, a ``$`` prompt, comments, redirections and what follows a pipe or ``&&`` are
    dropped; output lines of a console block (not starting with ``$``) are ignored.
    """
    found = []
    console = any(line.startswith("$ ") for line in code.splitlines())
    for line in code.replace("\\\n", " ").splitlines():
        if console and not line.startswith("$ "):
            continue
        line = line.removeprefix("$ ").strip()
        for part in re.split(r"\s(?:&&|\|\|?|;)\s", line):
            words = shlex.split(part, comments=True)
            if len(words) >= 3 and words[:2] == ["python", "-m"]:
                cut = next((i for i, word in enumerate(words) if word[:1] in {">", "<"} or word == "2>"), None)
                found.append(words[2:cut])
    return found


def parser_for(argv: list[str]) -> tuple[argparse.ArgumentParser, list[str]] | None:
    """The parser of command line ``argv`` (``python -m`` dropped) and the arguments it reads; None for a command
    without a documented parser (a benchmark, whose options its own ``--help`` lists)."""
    name, rest = argv[0], argv[1:]
    if rest and (name, rest[0]) in _SUBCOMMANDS:
        import serve.processes

        return getattr(serve.processes, _SUBCOMMANDS[(name, rest[0])])(), rest[1:]
    try:
        return parser_of(name), rest
    except (KeyError, AttributeError):
        return None
