"""`python -m benchmarks.serve_load` loads a workbench on loopback and reports one JSON object."""

import json

import pytest

from benchmarks.serve_load import main


def test_a_small_load_reports_statuses_health_connections_and_memory(tiny_dsn, admin_dsn_tiny, capsys):
    argv = ["--asks", "4", "--queries", "2", "--answer-s", "0.05", "--query-timeout-s", "1", "--max-s", "60"]
    argv += ["--fair-rounds", "3", "--flood-threads", "4"]
    assert main([*argv, "--dsn", tiny_dsn, "--admin-dsn", admin_dsn_tiny]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["benchmark"] == "serve_load" and report["params"]["asks"] == 4
    assert report["statuses"]["ask"] == {"200": 4} and sum(report["statuses"]["run_sql"].values()) == 2
    assert report["health_ms"]["n"] >= 1 and report["after"]["connections"]["running_a_query"] == 0
    assert report["before"]["rss_mb"] > 0 and report["after"]["rss_mb"] > 0
    fairness = report["fairness"]
    assert fairness["client_b"]["alone"]["ask_ms"]["n"] == 3 and fairness["client_b"]["under_flood"]["run_sql_ms"]["n"]
    assert set(fairness["p95_ratio"]) == {"ask", "run_sql"} and fairness["flood_requests"]
    assert fairness["spoofed_header_believed"] is False and fairness["clients_recorded_for_a"] == ["127.0.0.2"]


def test_dsn_without_admin_dsn_is_a_bad_command_line(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--dsn", "postgresql://x@127.0.0.1:1/x"])
    assert caught.value.code == 2 and "--dsn and --admin-dsn go together" in capsys.readouterr().err
