"""ask and evaluate with --engine tap against the local DaCHS: correction, VOTable, verdicts, a dead URL."""

import functools
import io
import time

import pandas as pd
import pytest
from astropy.table import Table

import lms
from answering.cli import main as ask_main
from data.loader import load_dataset
from engines import EngineSettings
from evaluate import main as evaluate_main
from lms.fake import fake_lm, render_answer

WINDOW_SQL = "SELECT oid, row_number() OVER (ORDER BY ndet DESC) AS place FROM object"
FIXED_SQL = "SELECT oid, ndet FROM object ORDER BY ndet DESC LIMIT 3"


@pytest.fixture
def window_then_fixed(monkeypatch):
    """A fake LM whose generation writes a window function and whose self-correction writes plain SQL."""
    fields = {
        "tables": {"tables": ["object"]},
        "columns": {"columns": {"object": ["oid", "ndet"]}},
        "difficulty": {"difficulty": "simple"},
        "plan": {"plan": ["Rank objects by ndet."]},
        "correct": {"sql": FIXED_SQL},
    }
    calls = []

    def answer(call):
        calls.append(call)
        return render_answer(fields.get(call.stage, {"sql": WINDOW_SQL}))

    lm = fake_lm(answer)
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: lm)
    return calls


def test_ask_on_tap_answers_after_one_unsupported_correction(capsys, tap_url, window_then_fixed):
    argv = ["Top objects by detections", "--model", "fake/window", "--engine", "tap", "--tap-url", tap_url]
    code = ask_main([*argv, "--show", "sql,adql,attempts"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "1. unsupported: Not available on TAP (ADQL): window functions (OVER ...)" in err
    assert "2. ok" in err
    assert out.startswith(f"{FIXED_SQL}\n\nSELECT TOP 3 object.oid, object.ndet FROM ztf.object AS object")
    correction = [call for call in window_then_fixed if call.stage == "correct"]
    assert len(correction) == 1


def test_ask_on_tap_writes_a_votable_astropy_reads(capsys, tap_url, window_then_fixed):
    argv = ["Top objects", "--model", "fake/window", "--engine", "tap", "--tap-url", tap_url, "--format", "votable"]
    assert ask_main(argv) == 0
    table = Table.read(io.BytesIO(capsys.readouterr().out.encode()), format="votable")
    assert table.colnames == ["oid", "ndet"] and len(table) == 3


def test_ask_on_postgres_writes_a_votable_too(capsys, tiny_dsn, window_then_fixed):
    argv = ["Top objects", "--model", "fake/window", "--dsn", tiny_dsn, "--format", "votable"]
    assert ask_main(argv) == 0
    table = Table.read(io.BytesIO(capsys.readouterr().out.encode()), format="votable")
    assert table.colnames == ["oid", "place"] and list(table["place"][:3]) == [1, 2, 3]


def test_ask_with_a_dead_tap_url_fails_in_one_line_within_15_s(capsys, window_then_fixed):
    started = time.monotonic()
    argv = ["Anything", "--model", "fake/window", "--engine", "tap", "--tap-url", "http://127.0.0.1:9/tap", "-q"]
    code = ask_main(argv)
    err = capsys.readouterr().err
    assert code == 1
    assert time.monotonic() - started < 15
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: Cannot use the TAP service at http://127.0.0.1:9/tap: ")


def test_ask_over_the_row_cap_shows_the_truncation(capsys, tap_url, monkeypatch):
    fields = {"tables": {"tables": ["detection"]}, "difficulty": {"difficulty": "simple"}}
    lm = fake_lm(lambda call: render_answer(fields.get(call.stage, {"sql": "SELECT candid FROM detection"})))
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: lm)
    monkeypatch.setattr("engines.options.EngineSettings", functools.partial(EngineSettings, max_rows=50))
    code = ask_main(["All detections", "--model", "fake/all", "--engine", "tap", "--tap-url", tap_url])
    assert code == 0
    assert "(20 of 50+ rows shown; raise --limit to see more)" in capsys.readouterr().out


def test_evaluate_golds_on_tap_gives_the_postgres_verdicts(dev_csv_path, tiny_dsn, tap_url, tmp_path):
    examples = load_dataset(dev_csv_path, "dev")
    golds = tmp_path / "golds.csv"
    pd.DataFrame({"req_id": [e.req_id for e in examples], "sql": [e.gold_sql for e in examples]}).to_csv(golds)
    verdicts = {}
    for engine in ("postgres", "tap"):
        report = tmp_path / engine
        argv = ["--predictions", str(golds), "--dataset", str(dev_csv_path), "--report", str(report), "-q"]
        argv += ["--gold-cache", str(tmp_path / "gold"), "--engine", engine, "--dsn", tiny_dsn, "--tap-url", tap_url]
        assert evaluate_main(argv) == 0
        frame = pd.read_csv(report / "per_question.csv").set_index("req_id")
        verdicts[engine] = frame[["row_pm", "col_pm"]]
    differ = verdicts["postgres"].compare(verdicts["tap"]).index.tolist()
    assert set(differ) <= {28}, differ


def test_ask_about_the_multisurvey_catalog_on_tap(capsys, tap_url, monkeypatch):
    sql = "SELECT oid, sid, n_det FROM object WHERE sid = 1 ORDER BY n_det DESC, oid LIMIT 3"
    fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["oid", "sid", "n_det"]}}}
    lm = fake_lm(lambda call: render_answer(fields.get(call.stage, {"difficulty": "simple", "sql": sql})))
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: lm)
    argv = ["Most detected LSST objects", "--model", "fake/lsst", "--catalog", "multisurvey", "--engine", "tap"]
    assert ask_main([*argv, "--tap-url", tap_url, "--show", "sql,adql", "-q"]) == 0
    out = capsys.readouterr().out
    adql = (
        "SELECT TOP 3 object.oid, object.sid, object.n_det FROM alerce_tap.object AS object "
        "WHERE object.sid = 1 ORDER BY n_det DESC, oid"
    )
    assert out.startswith(f"{sql}\n\n{adql}\n\n oid ") and out.endswith("(3 rows)\n")
