"""The documentation: the site builds with warnings as errors, every documented number comes from a current
benchmark result, no measurement is typed by hand, and the examples of the README and the guides run or parse."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.record import MEASURES
from docsgen import numbers
from docsgen.examples import code_blocks, commands, parser_for

REPO_DIR = Path(__file__).resolve().parents[2]
README = REPO_DIR / "README.md"
# The security page records what each red-team round reported (their figures, with the round they came from).
PAGES = [README, *(p for p in sorted((REPO_DIR / "docs").rglob("*.md")) if p.name != "security.md")]
REFERENCES = sorted({ref.name for page in PAGES for ref in numbers.references(page.read_text("utf-8"), page.name)})
BLOCKS = [block for page in PAGES for block in code_blocks(page.read_text("utf-8"), str(page.relative_to(REPO_DIR)))]


def _id(block) -> str:
    return f"{block.page}:{block.line}"


def test_the_site_builds_offline_with_warnings_as_errors(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=REPO_DIR,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = (tmp_path / "site" / "results.html").read_text("utf-8")
    assert "[[" not in results and "Measured by" in results
    assert "ASK_QUERY_S" in (tmp_path / "site" / "reference" / "time-limits.html").read_text("utf-8")


def test_the_readme_is_short_and_its_links_exist():
    text = README.read_text("utf-8")
    assert len(text.splitlines()) < 200
    for target in __import__("re").findall(r"\]\(((?!https?:)[^)#]+)", text):
        assert (REPO_DIR / target).exists(), target


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_DIR)))
def test_no_measurement_is_typed_by_hand(page):
    assert numbers.hand_typed_measurements(page.read_text("utf-8")) == []


def test_the_check_finds_typed_measurements_and_spares_references():
    typed = "It took 3.1 ms per query, 57 of the 58 golds, 90 % of 1,024 tokens and 1.8x the throughput."
    assert len(numbers.hand_typed_measurements(typed)) == 5
    # Prices, ranges (counted once), a multiplication sign and a minus sign count too.
    typed = "It costs $0.0193 (\u22125 %) a question; calls are 650 to 1,120 tokens long, 3 \u00d7 more."
    assert len(numbers.hand_typed_measurements(typed)) == 4
    # In a table, a cell holding only a number is a measurement whose unit is in the header.
    table = "| run | tokens | price |\n|---|---|---|\n| K = 1 | 3,915 | $0.00257 |\n| K = 4 | 6417 | \u22120.5 |\n"
    assert len(numbers.hand_typed_measurements(table)) == 4
    # A code span wrapped onto the next line hides neither the prose after it nor the next span's neighbours.
    assert len(numbers.hand_typed_measurements("Run `python -m\nask` and wait 3 s for `it`.")) == 1
    spared = "Take [[db: gold_latency_ms.p50]] ms, `--timeout 30 s`, K = 4 candidates and\n```\n3 s\n```\n"
    assert numbers.hand_typed_measurements(spared) == []
    # A table's first column labels its rows (layers, steps); rendered numbers leave an empty cell behind.
    spared = "| layer | package |\n|---|---|\n| 7 | `serve/` |\n| 6 | [[db: x|,]] |\n| total | [[db: y|.0%]] |\n"
    assert numbers.hand_typed_measurements(spared) == []


@pytest.mark.parametrize("name", REFERENCES)
def test_every_documented_result_is_recorded_and_current(name):
    assert name in MEASURES, f"benchmarks.record does not know {name}"
    assert numbers.stale_reason(name) is None, numbers.stale_reason(name)


def test_every_documented_number_renders():
    for page in PAGES:
        numbers.render(page.read_text("utf-8"), page.name)  # raises NumberError for a missing file or value


def test_a_missing_value_or_file_fails_the_render(monkeypatch, tmp_path):
    (tmp_path / "made.json").write_text(json.dumps({"result": {"a": {"b": 1234.5}}}))
    monkeypatch.setattr(numbers, "RESULTS_DIR", tmp_path)
    assert numbers.render("x [[made: a.b|,.0f]] y") == "x 1,234 y"
    with pytest.raises(numbers.NumberError, match=r"no result\.a\.c"):
        numbers.render("[[made: a.c]]")
    with pytest.raises(numbers.NumberError, match="no result file"):
        numbers.render("[[absent: a]]")


def test_a_result_recorded_from_changed_or_unknown_code_is_stale(monkeypatch):
    entry = {"commit": "0" * 40, "dirty": False, "measures": ["engines/guard.py"]}
    monkeypatch.setattr(numbers, "load_result", lambda name: entry)
    assert "not in this repository" in numbers.stale_reason("x")
    entry["dirty"] = True
    assert "uncommitted" in numbers.stale_reason("x")
    first = subprocess.run(
        ["git", "rev-list", "--max-parents=0", "HEAD"], cwd=REPO_DIR, capture_output=True, text=True, check=True
    )
    entry.update(commit=first.stdout.split()[0], dirty=False, measures=["docsgen"])
    assert "changed since" in numbers.stale_reason("x")  # docsgen did not exist at the first commit


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.is_shell], ids=_id)
def test_shell_examples_parse_with_their_commands(block):
    for argv in commands(block.code):
        found = parser_for(argv)
        if found is None:
            assert argv[0].startswith("benchmarks."), argv
            continue
        parser, args = found
        try:
            parser.parse_args(args)
        except SystemExit as stop:
            pytest.fail(f"{block.page}:{block.line}: `python -m {' '.join(argv)}` does not parse (exit {stop.code})")


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.is_python], ids=_id)
def test_python_examples_compile_and_the_unmarked_ones_run(block, tmp_path, request):
    compile(block.code, f"{block.page}:{block.line}", "exec")
    if block.skip_reason:
        pytest.skip(block.skip_reason)
    # The examples run from another folder (an installed library), on the embedded default database.
    env = {**os.environ, "ALERCE_DSN": request.getfixturevalue("default_dsn"), "PYTHONPATH": str(REPO_DIR)}
    done = subprocess.run(
        [sys.executable, "-c", block.code], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
