"""The replica fingerprint script names every table whose rows changed, and refuses a missing baseline in one line."""

from benchmarks.replica_fingerprints import differences, main


def test_differences_name_changed_added_and_missing_tables() -> None:
    before = {"ztf": {"object": [3, "a"], "detection": [5, "b"]}, "multisurvey": {"band": [2, "c"]}}
    after = {"ztf": {"object": [3, "a"], "detection": [5, "x"], "allwise": [1, "d"]}}
    assert differences(before, after) == [
        "multisurvey.band: [2, 'c'] -> None",
        "ztf.allwise: None -> [1, 'd']",
        "ztf.detection: [5, 'b'] -> [5, 'x']",
    ]
    assert differences(after, after) == []


def test_a_missing_baseline_is_one_line_and_exit_1(tmp_path, capsys) -> None:
    assert main(["--compare", str(tmp_path / "none.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
