"""`pip install .` gives `import answering` and the commands from any folder, and installs no name that shadows
a module of the standard library or of another distribution in the environment."""

import importlib.metadata
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _top_level_names(dist: importlib.metadata.Distribution) -> set[str]:
    names = set((dist.read_text("top_level.txt") or "").split())
    for file in dist.files or ():
        first = file.parts[0]
        if first.endswith((".dist-info", ".egg-info", ".data", ".pth")) or first in ("..", "__pycache__"):
            continue
        names.add(first.removesuffix(".py").split(".")[0])
    return names


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv that sees this environment's dependencies (not this project) with the repository installed."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    # Path lines of a .pth are appended without running the .pth files there: the editable install stays off.
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    python = venv / "bin" / "python"
    # setuptools builds in the source folder (build/, *.egg-info): install a copy, so the checkout stays clean.
    source = tmp_path_factory.mktemp("source") / "repo"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(".*", "build", "site", "*.egg-info", "__pycache__"))
    done = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", str(source)],
        capture_output=True,
        text=True,
        cwd=source,
        timeout=300,
    )
    assert done.returncode == 0, f"pip install failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return python


def test_imports_and_commands_work_from_another_folder(installed, tmp_path):
    probe = "import answering, serve.pages; print(answering.__file__); print(callable(answering.run_sql))"
    done = subprocess.run([installed, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    where, callable_ = done.stdout.split()
    assert not Path(where).is_relative_to(REPO) and callable_ == "True"
    for command in ("ask", "serve", "evaluate", "compile", "db"):
        help_ = subprocess.run([installed, "-m", command, "--help"], capture_output=True, text=True, cwd=tmp_path)
        assert help_.returncode == 0 and help_.stdout.startswith(f"usage: python -m {command}"), help_.stderr


def test_package_data_is_installed(installed, tmp_path):
    probe = "from catalog import load_catalog; print(len(load_catalog('ztf').tables) > 0)"
    done = subprocess.run([installed, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout.strip() == "True", done.stderr


def test_no_installed_name_shadows_another_module(installed):
    site = subprocess.run(
        [installed, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True
    ).stdout.strip()
    ours = next(importlib.metadata.distributions(name="alerce-t2s", path=[site]))
    names = _top_level_names(ours)
    assert {"answering", "ask", "compile", "evaluate", "serve", "db"} <= names
    assert not names & {"tests", "benchmarks", "docsgen"}
    others = {
        name: dist.metadata["Name"]
        for dist in importlib.metadata.distributions()
        if dist.metadata["Name"] != "alerce-t2s"
        for name in _top_level_names(dist)
    }
    clashes = {name: others[name] for name in names if name in others}
    assert clashes == {}
    assert names & set(sys.stdlib_module_names) == set()
