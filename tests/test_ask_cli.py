"""`python -m ask`: output, formats and exit codes, run in-process with fake LMs on the tiny database."""

import dataclasses
import json
import time

import dspy
import pytest

import lms
from answering.cli import main
from lms.fake import fake_lm
from lms.resolve import DEFAULT_LOCAL_MODEL
from modules import AlerceText2SQL, PipelineSettings
from modules.artifacts.load import MANIFEST_FILE
from optimizers.saving import save_artifact
from tests.answering.scripts import BROKEN_SQL, LITERAL_SQL, demo_model_lm, scripted_lm

MODEL = "fake/scripted"
UNREACHABLE_DSN = "postgresql://reader@127.0.0.1:1/alerce"


@pytest.fixture
def use_lm(monkeypatch):
    """Make model resolution return the given fake LM; returns a setter."""

    def use(lm):
        monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: lm)
        return lm

    return use


def ask(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_the_sql_then_the_rows(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm())
    code, out, _ = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn)
    assert code == 0
    assert out == f"{LITERAL_SQL}\n\n n  | name\n----+------\n  1 | ZTF\n 22 | NULL\n(2 rows)\n"


def test_missing_artifact_warns_and_runs_uncompiled(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm())
    code, _, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn)
    assert code == 0
    assert (
        f"no compiled program for {MODEL} on the ztf catalog; running uncompiled — compile one with "
        f"python -m compile --catalog ztf --model {MODEL}" in err
    )


def test_json_is_one_valid_object(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm(difficulty="medium"))
    code, out, _ = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn, "--format", "json", "--limit", "1")
    payload = json.loads(out)
    assert code == 0
    assert payload["sql"] == LITERAL_SQL and payload["columns"] == ["n", "name"] and payload["rows"] == [[1, "ZTF"]]
    assert payload["truncated"] is True and payload["row_count"] == 2
    assert payload["difficulty"] == "medium" and payload["plan"] == ["Read object.", "Count rows."]
    assert payload["error"] is None and payload["usage"]["generation"]["calls"] == 1
    assert {"question", "attempts"} <= set(payload) and payload["catalog"] == "ztf"


def test_csv_keeps_stdout_parseable_and_show_goes_to_stderr(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm(difficulty="medium"))
    argv = ("How many?", "--model", MODEL, "--dsn", tiny_dsn, "--format", "csv", "--show", "sql,plan,attempts")
    code, out, err = ask(capsys, *argv)
    assert code == 0 and out == "n,name\n1,ZTF\n22,\n"
    assert "plan:\n  1. Read object.\n  2. Count rows.\n" in err and "attempts:\n  1. ok\n" in err
    assert LITERAL_SQL in err


def test_without_removes_the_stage_calls(capsys, use_lm, tiny_dsn):
    lm = use_lm(scripted_lm(difficulty="medium"))
    without = "schema_linking,decomposition,result_check"
    code, _, _ = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn, "--without", without)
    assert code == 0 and lm.engine_obj.stages() == ["difficulty", "direct", "explanation"]


def test_could_not_answer_exits_1_with_the_final_error(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm(BROKEN_SQL))
    code, out, err = ask(capsys, "Which objects?", "--model", MODEL, "--dsn", tiny_dsn, "-q")
    assert code == 1 and out == f"{BROKEN_SQL}\n\n"
    assert err.splitlines()[-1] == 'error: could not answer (missing_structure): relation "objekt" does not exist'


def test_garbage_lm_output_exits_1(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm("I cannot help with that."))
    code, out, err = ask(capsys, "Which objects?", "--model", MODEL, "--dsn", tiny_dsn, "-q")
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == (
        "error: could not answer (no_sql): the model gave no SELECT statement (generation empty: "
        "The answer holds no SELECT or WITH statement.)"
    )


def test_empty_question_exits_2(capsys):
    code, out, err = ask(capsys, " \t ")
    assert (code, out) == (2, "")
    assert err == 'error: the question is empty; ask something like "How many objects have more than 50 detections?"\n'


def test_huge_question_with_control_characters_exits_2(capsys):
    code, _, err = ask(capsys, "\x00\x1b" + "x" * 1_000_000)
    assert code == 2
    assert err == (
        "error: the question is 1,000,000 characters long; the limit is 8,000. Shorten it to the part that matters.\n"
    )


def test_unknown_model_exits_1_with_the_lms_message(capsys):
    code, out, err = ask(capsys, "How many?", "--model", "gpt4", "--dsn", UNREACHABLE_DSN)
    assert (code, out) == (1, "")
    assert err == (
        "error: Model 'gpt4' has no provider: write it as provider/model, e.g. openai/gpt-4.1-mini or "
        f"{DEFAULT_LOCAL_MODEL}.\n"
    )


def test_missing_api_key_exits_1(capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = ask(capsys, "How many?", "--model", "openai/gpt-4.1-mini", "--dsn", UNREACHABLE_DSN)
    assert code == 1
    assert err == "error: Model 'openai/gpt-4.1-mini' needs an API key: set OPENAI_API_KEY in the environment.\n"


def test_unreachable_database_exits_1_quickly(capsys, use_lm):
    lm = use_lm(scripted_lm())
    started = time.monotonic()
    code, _, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", UNREACHABLE_DSN, "-q")
    assert code == 1 and time.monotonic() - started < 10
    assert err.splitlines()[-1].startswith("error: Cannot connect to PostgreSQL at 127.0.0.1:1/alerce: ")
    assert err.endswith("Start the embedded database with `python -m db up`, or check --dsn / ALERCE_DSN.\n")
    assert len(err.splitlines()) == 2  # the missing-artifact warning, then the error
    assert lm.engine_obj.calls == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["q", "--without", "generation"], "argument --without: unknown stage 'generation'; choose from"),
        (["q", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["q", "--show", "rows"], "argument --show: unknown --show item 'rows'; choose from sql, adql, dates, expl"),
        (["q", "--as-of", "2026-13-01"], "argument --as-of: expected a date as YYYY-MM-DD, got '2026-13-01'"),
        (["q", "--limit", "0"], "argument --limit: must be more than 0, got 0"),
        (["q", "--candidates", "0"], "argument --candidates: must be more than 0, got 0"),
    ],
    ids=["without", "format", "show", "as_of", "limit", "candidates"],
)
def test_bad_command_line_exits_2(capsys, argv, message):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_shows_examples_and_exit_codes(capsys, flag):
    with pytest.raises(SystemExit) as caught:
        main([flag])
    out = capsys.readouterr().out
    assert caught.value.code == 0
    assert 'python -m ask "How many objects have more than 50 detections?"' in out
    assert "exit codes: 0 answered" in out and "--without STAGES" in out


def saved_artifact(folder, **manifest_changes):
    save_artifact(
        AlerceText2SQL(),
        folder,
        {"model": MODEL, "adapter": "chat", "pipeline": dataclasses.asdict(PipelineSettings())},
    )
    if manifest_changes:
        manifest = json.loads((folder / MANIFEST_FILE).read_text())
        (folder / MANIFEST_FILE).write_text(json.dumps(manifest | manifest_changes))
    return folder


def test_a_matching_artifact_loads_without_warning(capsys, use_lm, tiny_dsn, tmp_path):
    use_lm(scripted_lm())
    folder = saved_artifact(tmp_path / "art")
    code, _, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn, "--program", str(folder))
    assert code == 0 and "no compiled program" not in err


def test_an_artifact_from_another_program_version_is_refused(capsys, use_lm, tiny_dsn, tmp_path):
    use_lm(scripted_lm())
    folder = saved_artifact(tmp_path / "art", program_version=99)
    code, out, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn, "--program", str(folder), "-q")
    assert (code, out) == (1, "")
    # The wording after the differences belongs to modules.artifacts.load (tested there).
    assert err.startswith(
        f"error: The artifact '{folder / 'program.json'}' does not match the code: program_version 99 (saved) vs. 1 "
        "(code). "
    )
    assert err.endswith(f"recompile with python -m compile --model {MODEL}.\n") and err.count("\n") == 1


def test_a_missing_program_path_exits_1(capsys, use_lm, tmp_path):
    use_lm(scripted_lm())
    code, _, err = ask(capsys, "q", "--model", MODEL, "--dsn", UNREACHABLE_DSN, "--program", str(tmp_path / "none"))
    assert code == 1 and err.startswith(f"error: No compiled program at '{tmp_path / 'none'}'")


def test_a_refused_lm_call_exits_1_with_one_line(capsys, use_lm, tiny_dsn):
    def refuse(call):
        raise dspy.LMAuthError("Invalid API key.\nMore detail.", model=MODEL)

    use_lm(fake_lm(refuse))
    code, out, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn, "-q")
    assert (code, out) == (1, "")
    assert err.splitlines()[-1].startswith("error: the language model failed: ")
    assert "Invalid API key." in err.splitlines()[-1] and "Traceback" not in err


def test_show_dates_prints_the_question_ranges_as_of_the_given_date(capsys, use_lm, tiny_dsn):
    lm = use_lm(scripted_lm())
    question = "Which SNe Ia were first detected in September 2023?"
    argv = (question, "--model", MODEL, "--dsn", tiny_dsn, "--show", "dates", "--as-of", "2026-12-01")
    code, _, err = ask(capsys, *argv)
    assert code == 0
    assert "dates (as of 2026-12-01):\n  September 2023: 60188 ≤ mjd < 60218 (2023-09-01 to 2023-10-01 UTC)\n" in err
    seen = lm.engine_obj.calls[0].inputs["knowledge"]
    assert seen == '-- "September 2023": 60188.0 <= mjd < 60218.0 (2023-09-01 to 2023-10-01, UTC)'


def test_as_of_moves_relative_dates(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm())
    argv = ("Objects first seen last June?", "--model", MODEL, "--dsn", tiny_dsn, "--format", "json")
    payloads = [json.loads(ask(capsys, *argv, "--as-of", day)[1]) for day in ("2026-12-01", "2027-08-01")]
    assert [payload["as_of"] for payload in payloads] == ["2026-12-01", "2027-08-01"]
    assert [payload["dates"][0]["start_mjd"] for payload in payloads] == [61192.0, 61557.0]  # June 2026, June 2027


def test_show_explanation_prints_what_the_sql_returns(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm())
    code, out, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn, "--show", "explanation")
    assert code == 0 and "explanation" not in out
    assert "explanation:\n  The rows the query returns.\n  Conditions:\n    - each condition of the query\n" in err


def test_show_alternatives_says_when_the_candidates_agreed(capsys, use_lm, tiny_dsn):
    use_lm(scripted_lm())
    code, _, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn, "--show", "alternatives")
    assert code == 0 and "alternatives: (none; the candidates agreed, or there was one)\n" in err


def test_without_the_date_stage_show_dates_says_so(capsys, use_lm, tiny_dsn):
    lm = use_lm(scripted_lm())
    argv = ("Objects of September 2023?", "--model", MODEL, "--dsn", tiny_dsn, "--show", "dates", "--without", "dates")
    code, _, err = ask(capsys, *argv)
    assert code == 0 and "dates: (the date stage is off)\n" in err
    assert lm.engine_obj.calls[0].inputs["knowledge"] == ""


MULTISURVEY_SQL = "SELECT oid, sid, n_det FROM object WHERE sid = 1 ORDER BY n_det DESC, oid LIMIT 3"


def test_answers_about_the_multisurvey_catalog(capsys, use_lm, multisurvey_dsn):
    use_lm(scripted_lm(MULTISURVEY_SQL))
    code, out, _ = ask(
        capsys, "Most detected LSST objects", "--model", MODEL, "--catalog", "multisurvey", "--dsn", multisurvey_dsn
    )
    assert code == 0
    assert out.startswith(f"{MULTISURVEY_SQL}\n\n oid ") and out.endswith("(3 rows)\n")


def test_an_unknown_catalog_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["q", "--catalog", "rubin"])
    assert caught.value.code == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("argument --catalog: unknown catalog 'rubin'; choose one of ztf, multisurvey")
    )


def test_a_program_for_the_other_catalog_is_one_line_and_exit_1(capsys, use_lm, multisurvey_dsn, tmp_path):
    use_lm(scripted_lm(MULTISURVEY_SQL))
    folder = saved_artifact(tmp_path / "art")
    argv = ["q", "--model", MODEL, "--catalog", "multisurvey", "--dsn", multisurvey_dsn, "--program", str(folder)]
    code, out, err = ask(capsys, *argv, "-q")
    assert (code, out) == (1, "")
    assert err == (
        f"error: The artifact '{folder}' was compiled for the ztf catalog, not multisurvey; use --catalog ztf, "
        "or compile one with python -m compile --catalog multisurvey.\n"
    )


def test_a_table_of_the_other_catalog_is_one_line_and_exit_1(capsys, use_lm, multisurvey_dsn):
    use_lm(scripted_lm("SELECT oid, ndet FROM magstat"))
    argv = ["q", "--model", MODEL, "--catalog", "multisurvey", "--dsn", multisurvey_dsn, "--without", "self_correction"]
    code, _, err = ask(capsys, *argv, "-q")
    assert code == 1 and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == ['error: could not answer (missing_structure): relation "magstat" does not exist']


def test_an_answer_of_the_demo_model_ends_with_a_note(capsys, use_lm, tiny_dsn):
    use_lm(demo_model_lm())
    code, out, err = ask(capsys, "How many?", "--model", MODEL, "--dsn", tiny_dsn)  # the LM is named local/...
    assert code == 0 and "note" not in out
    assert err.splitlines()[-1].startswith("note: A small demo model wrote this SQL (local/gemma3-270m")
