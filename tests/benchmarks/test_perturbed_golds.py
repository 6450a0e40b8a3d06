"""`python -m benchmarks.perturbed_golds` writes valid, deterministic, perturbed gold queries."""

import sqlglot

from benchmarks.perturbed_golds import main


def test_writes_the_first_n_perturbed_golds_deterministically(dev_csv_path, tmp_path, capsys):
    first, again = tmp_path / "a.sql", tmp_path / "b.sql"
    assert main(["--dataset", str(dev_csv_path), "--count", "5", "--out", str(first)]) == 0
    assert main(["--dataset", str(dev_csv_path), "--count", "5", "--out", str(again)]) == 0
    assert first.read_text() == again.read_text()
    statements = [s for s in first.read_text().split(";\n") if s.strip()]
    assert len(statements) == 5 and all(sqlglot.parse_one(s, read="postgres") for s in statements)
    assert "wrote 5 perturbed gold queries" in capsys.readouterr().err


def test_a_missing_dataset_is_one_line_and_exit_1(tmp_path, capsys):
    assert main(["--dataset", str(tmp_path / "none.csv"), "--out", str(tmp_path / "x.sql")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: Dataset not found") and err.count("\n") == 1


def test_an_unwritable_output_is_one_line_and_exit_1(dev_csv_path, tmp_path, capsys):
    out = tmp_path / "missing-folder" / "x.sql"
    assert main(["--dataset", str(dev_csv_path), "--count", "2", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write {out}") and err.count("\n") == 1
