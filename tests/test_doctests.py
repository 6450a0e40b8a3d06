"""Every project module with docstring examples runs them, and they pass; the modules are found, not listed."""

import doctest
import importlib
import os
import re
from pathlib import Path

import pytest

REPO_DIR = Path(__file__).resolve().parents[1]
_EXAMPLE = re.compile(r"^\s*>>> ", re.MULTILINE)


def modules_with_examples(root: Path) -> list[str]:
    """Return the dotted names of the modules under `root` whose text holds a ``>>>`` example.

    The folder tests/ and hidden folders (.venv, .git, .ci) are skipped; a package's examples are in __init__.py.
    """
    names = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith(".") and name != "__pycache__")
        relative = Path(folder).relative_to(root)
        if relative.parts[:1] == ("tests",):
            subfolders.clear()
            continue
        for file in sorted(name for name in files if name.endswith(".py")):
            if _EXAMPLE.search((Path(folder) / file).read_text(encoding="utf-8")):
                parts = (*relative.parts, file.removesuffix(".py"))
                names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


MODULES = modules_with_examples(REPO_DIR)


def test_modules_with_examples_are_found_outside_tests_and_hidden_folders(tmp_path):
    example = '"""Double.\n\n>>> 2 * 2\n4\n"""\n'
    files = {
        "top.py": example,
        "pkg/__init__.py": example,
        "pkg/sub/deep.py": example,
        "pkg/plain.py": '"""No examples, though it mentions >>> in prose."""\n',
        "tests/test_x.py": example,
        ".venv/lib/site.py": example,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert modules_with_examples(tmp_path) == ["pkg", "pkg.sub.deep", "top"]


def test_the_project_has_modules_with_examples():
    assert MODULES  # an empty list would skip test_doctests_pass silently


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
