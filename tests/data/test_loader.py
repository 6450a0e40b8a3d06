"""Tests for data.loader: CSV parsing, placeholders, split files, path resolution and error messages."""

import hashlib
from pathlib import Path

import pytest

from data.errors import HOW_TO_GET_DATA, DataError, DatasetFormatError, DatasetNotFound
from data.loader import ENV_VAR, dataset_sha256, example_set, load_dataset, resolve_dataset_path, split_file

HEADER = "req_id,request,table_info,external_knowledge,domain_knowledge,gold_query,difficulty\n"
ROWS = (
    '7,"Which objects are bright?","[\'object\']",0,"\n-- bright means magnitude below 15\n",'
    '"\nSELECT oid\nFROM object\nWHERE magmean < 15\n",simple\n'
    '3,"How many alerts?","[\'detection\', \'object\']","-- mjd date for June 1 = 60096.0",,'
    '"SELECT count(*) FROM detection",medium\n'
)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def csv_file(tmp_path):
    return _write(tmp_path / "mine.csv", HEADER + ROWS)


def test_load_dataset_reads_multiline_fields_and_cleans_placeholders(csv_file):
    first, second = load_dataset(csv_file)
    assert first.question == "Which objects are bright?"
    assert first.external_knowledge == ""
    assert first.domain_knowledge == "-- bright means magnitude below 15"
    assert first.gold_sql == "SELECT oid\nFROM object\nWHERE magmean < 15"
    assert (first.difficulty, first.tables, first.req_id) == ("simple", ["object"], 7)
    assert second.external_knowledge == "-- mjd date for June 1 = 60096.0"
    assert second.domain_knowledge == ""
    assert second.tables == ["detection", "object"]


def test_load_dataset_marks_inputs(csv_file):
    example = load_dataset(csv_file)[0]
    assert set(example.inputs().keys()) == {"question", "external_knowledge", "domain_knowledge"}
    assert set(example.labels().keys()) == {"gold_sql", "difficulty", "tables", "req_id"}


@pytest.mark.parametrize("placeholder", ["0", "0.0", "", "nan", " 0 "])
def test_knowledge_placeholders_become_empty(tmp_path, placeholder):
    row = f'1,"q","[]","{placeholder}","{placeholder}","SELECT 1",simple\n'
    example = load_dataset(_write(tmp_path / "d.csv", HEADER + row))[0]
    assert (example.external_knowledge, example.domain_knowledge, example.tables) == ("", "", [])


def test_optional_columns_may_be_absent(tmp_path):
    file = _write(tmp_path / "d.csv", 'req_id,request,gold_query,difficulty\n1,"q","SELECT 1",simple\n')
    example = load_dataset(file)[0]
    assert (example.external_knowledge, example.domain_knowledge, example.tables) == ("", "", [])


@pytest.mark.parametrize(
    ("names", "split", "expected"),
    [
        (["dev.csv", "test.csv"], "dev", "dev.csv"),
        (["dev.csv", "test.csv"], "test", "test.csv"),
        (["txt2sql_alerce_train_v4_0.csv"], "dev", "txt2sql_alerce_train_v4_0.csv"),
        (["txt2sql_alerce_test_v4_0.csv", "dev.csv"], "test", "txt2sql_alerce_test_v4_0.csv"),
    ],
)
def test_split_file_finds_both_naming_styles(tmp_path, names, split, expected):
    for name in names:
        _write(tmp_path / name, HEADER + ROWS)
    assert split_file(tmp_path, split) == tmp_path / expected
    assert len(load_dataset(tmp_path, split)) == 2


def test_missing_split_in_folder_says_how_to_get_it(tmp_path):
    _write(tmp_path / "dev.csv", HEADER + ROWS)
    with pytest.raises(DatasetNotFound) as info:
        load_dataset(tmp_path, "test")
    assert str(info.value) == (
        f"No test split in '{tmp_path}': expected test.csv or txt2sql_alerce_test_v4_0.csv. {HOW_TO_GET_DATA}"
    )


def test_unknown_split_is_rejected(csv_file):
    with pytest.raises(DataError, match=r"^Unknown split 'train'; use one of: dev, test\.$"):
        load_dataset(csv_file, "train")


def test_missing_columns_are_named(tmp_path):
    file = _write(tmp_path / "d.csv", 'req_id,question,sql\n1,"q","SELECT 1"\n')
    with pytest.raises(DatasetFormatError) as info:
        load_dataset(file)
    assert info.value.missing_columns == ("request", "gold_query", "difficulty")
    assert str(info.value) == (
        f"'{file}' lacks the column(s) request, gold_query, difficulty; a benchmark CSV needs req_id, request, "
        "gold_query, difficulty (and optionally table_info, external_knowledge, domain_knowledge)."
    )


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('x,"q","[]",0,0,"SELECT 1",simple\n', "row 2: req_id 'x' is not an integer."),
        ('1,"q","object",0,0,"SELECT 1",simple\n', "req_id 1: table_info 'object' is not a list literal."),
        ('1,"q","[1, 2]",0,0,"SELECT 1",simple\n', "req_id 1: table_info '[1, 2]' is not a list of names."),
    ],
)
def test_bad_cells_are_reported_with_their_row(tmp_path, row, message):
    file = _write(tmp_path / "d.csv", HEADER + row)
    with pytest.raises(DatasetFormatError) as info:
        load_dataset(file)
    assert str(info.value) == f"'{file}', {message}"


def test_repeated_req_id_is_rejected(tmp_path):
    file = _write(tmp_path / "d.csv", HEADER + ROWS + ROWS)
    with pytest.raises(DatasetFormatError, match="req_id 7 appears more than once"):
        load_dataset(file)


def test_empty_file_is_malformed(tmp_path):
    with pytest.raises(DatasetFormatError, match="Cannot read"):
        load_dataset(_write(tmp_path / "d.csv", ""))


def test_resolve_prefers_argument_then_env_then_cache(tmp_path, monkeypatch, csv_file):
    cache = tmp_path / "cache"
    monkeypatch.setattr("data.loader.default_data_dir", lambda: cache)
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert resolve_dataset_path(str(csv_file)) == csv_file
    assert resolve_dataset_path(None) == tmp_path
    monkeypatch.delenv(ENV_VAR)
    with pytest.raises(DatasetNotFound) as info:
        resolve_dataset_path(None)
    assert str(info.value) == f"No dataset given and none downloaded in '{cache}'. {HOW_TO_GET_DATA}"
    cache.mkdir()
    _write(cache / "txt2sql_alerce_train_v4_0.csv", HEADER + ROWS)
    assert resolve_dataset_path(None) == cache


def test_resolve_reports_a_missing_path_and_its_source(tmp_path, monkeypatch):
    missing = tmp_path / "nope.csv"
    with pytest.raises(DatasetNotFound) as info:
        resolve_dataset_path(str(missing))
    assert str(info.value) == f"Dataset not found: '{missing}' (from --dataset). {HOW_TO_GET_DATA}"
    assert info.value.path == str(missing)
    monkeypatch.setenv(ENV_VAR, str(missing))
    with pytest.raises(DatasetNotFound, match=r"\(from ALERCE_T2S_DATA\)"):
        resolve_dataset_path(None)


def test_how_to_message_names_all_three_ways():
    assert "--dataset PATH" in HOW_TO_GET_DATA
    assert ENV_VAR in HOW_TO_GET_DATA
    assert "python -m data fetch" in HOW_TO_GET_DATA


def test_dataset_sha256_hashes_the_split_file(tmp_path, csv_file):
    assert dataset_sha256(csv_file) == hashlib.sha256(csv_file.read_bytes()).hexdigest()


def test_real_dev_split_loads(dev_csv_path):
    examples = load_dataset(dev_csv_path)
    assert len(examples) == 58
    assert [sum(e.difficulty == d for e in examples) for d in ("simple", "medium", "advanced")] == [32, 14, 12]
    assert len({e.req_id for e in examples}) == 58
    assert sum(e.external_knowledge == "" for e in examples) == 43
    assert sum(e.domain_knowledge == "" for e in examples) == 54
    assert all(e.tables and e.gold_sql and e.question for e in examples)
    assert dataset_sha256(dev_csv_path) == "18a596b50662cdcebaa2e540632d64803b271001d25eb9a68b44182f3cc9bb05"


def test_a_catalog_without_a_benchmark_defaults_to_its_example_set(tmp_path, monkeypatch, csv_file):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert resolve_dataset_path(None, "multisurvey") == example_set("multisurvey")
    assert resolve_dataset_path(str(csv_file), "multisurvey") == csv_file
    assert resolve_dataset_path(None) == tmp_path
    assert len(load_dataset(example_set("multisurvey"))) >= 60
    with pytest.raises(DataError, match=r"^No example set for catalog 'rubin'; there are ztf, multisurvey\.$"):
        example_set("rubin")
