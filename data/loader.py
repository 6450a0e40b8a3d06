"""Load the ALeRCE text-to-SQL benchmark CSVs into DSPy examples, and find them on disk."""

import ast
import hashlib
import os
from pathlib import Path

import dspy
import pandas as pd
import platformdirs

from data.errors import HOW_TO_GET_DATA, DataError, DatasetFormatError, DatasetNotFound
from data.options import ENV_VAR, SPLITS
from defaults.catalog import DEFAULT_CATALOG

__all__ = [
    "BENCHMARK_CATALOGS",
    "ENV_VAR",
    "EXAMPLE_SETS",
    "INPUT_FIELDS",
    "SPLITS",
    "SPLIT_FILES",
    "dataset_sha256",
    "default_data_dir",
    "example_set",
    "grounding_files",
    "load_dataset",
    "resolve_dataset_path",
    "split_file",
]

SPLIT_FILES = {
    "dev": ("dev.csv", "txt2sql_alerce_train_v4_0.csv"),
    "test": ("test.csv", "txt2sql_alerce_test_v4_0.csv"),
}
"""File names looked for in a dataset folder, per split: ours, then the paper's (its "train" file is our dev)."""
INPUT_FIELDS = ("question", "external_knowledge", "domain_knowledge")
REQUIRED_COLUMNS = ("req_id", "request", "gold_query", "difficulty")
OPTIONAL_COLUMNS = ("table_info", "external_knowledge", "domain_knowledge")
_ABSENT_KNOWLEDGE = {"", "0", "0.0", "nan", "none"}
EXAMPLE_SETS = {"ztf": "examples.csv", "multisurvey": "multisurvey_examples.csv"}
"""The project's own example questions per catalog, in ``data/examples/`` (``data/examples/README.md``)."""
BENCHMARK_CATALOGS = ("ztf",)
"""Catalogs the paper's benchmark asks about; for the others the default dataset is their example set."""


def example_set(catalog: str = DEFAULT_CATALOG) -> Path:
    """Return the CSV of the project's own example questions about a catalog.

    Raises:
        DataError: The catalog has no example set.
    """
    if catalog not in EXAMPLE_SETS:
        raise DataError(f"No example set for catalog {catalog!r}; there are {', '.join(EXAMPLE_SETS)}.")
    return Path(__file__).parent / "examples" / EXAMPLE_SETS[catalog]


def default_data_dir() -> Path:
    """Return the user cache folder that ``python -m data fetch`` fills by default."""
    return Path(platformdirs.user_cache_dir("alerce-t2s")) / "data"


def split_file(path: str | Path, split: str = "dev") -> Path:
    """Return the CSV file of ``split`` at ``path``: the file itself, or the split's file inside a folder.

    Raises:
        DataError: ``split`` is not a known split.
        DatasetNotFound: Nothing at ``path``, or the folder has no file for ``split``.
    """
    if split not in SPLITS:
        raise DataError(f"Unknown split '{split}'; use one of: {', '.join(SPLITS)}.")
    path = Path(path).expanduser()
    if path.is_file():
        return path
    if not path.is_dir():
        raise DatasetNotFound(f"Dataset not found: '{path}'. {HOW_TO_GET_DATA}", str(path))
    for name in SPLIT_FILES[split]:
        if (path / name).is_file():
            return path / name
    names = " or ".join(SPLIT_FILES[split])
    raise DatasetNotFound(f"No {split} split in '{path}': expected {names}. {HOW_TO_GET_DATA}", str(path))


def resolve_dataset_path(arg: str | None, catalog: str = DEFAULT_CATALOG) -> Path:
    """Find the dataset: ``--dataset`` value, else env ALERCE_T2S_DATA, else the fetch cache folder.

    A catalog the benchmark does not ask about (``multisurvey``) has no benchmark split: without ``--dataset`` its
    example set is the dataset.

    Args:
        arg: The ``--dataset`` value, or None.
        catalog: The catalog the questions are about.

    Returns:
        The CSV file or folder (not checked for content beyond existence; ``load_dataset`` does that).

    Raises:
        DatasetNotFound: The given path does not exist, or nothing was given and the cache holds no dev split.
    """
    if not arg and catalog not in BENCHMARK_CATALOGS:
        return example_set(catalog)
    if arg:
        source, candidate = "--dataset", Path(arg).expanduser()
    elif os.environ.get(ENV_VAR):
        source, candidate = ENV_VAR, Path(os.environ[ENV_VAR]).expanduser()
    else:
        cache = default_data_dir()
        if any((cache / name).is_file() for name in SPLIT_FILES["dev"]):
            return cache
        raise DatasetNotFound(f"No dataset given and none downloaded in '{cache}'. {HOW_TO_GET_DATA}")
    if not candidate.exists():
        raise DatasetNotFound(f"Dataset not found: '{candidate}' (from {source}). {HOW_TO_GET_DATA}", str(candidate))
    return candidate


def grounding_files(path: str | Path) -> tuple[Path, ...]:
    """Every split file of the dataset folder at ``path`` (a file counts with its folder's splits), sorted.

    The embedded database is grounded on these, so that every gold query of every split has answers.
    """
    path = Path(path).expanduser()
    folder = path.parent if path.is_file() else path
    found = {folder / name for names in SPLIT_FILES.values() for name in names if (folder / name).is_file()}
    if path.is_file():
        found.add(path)
    return tuple(sorted(found))


def dataset_sha256(path: str | Path, split: str = "dev") -> str:
    """Return the sha256 hex digest of the split's CSV file, for run manifests."""
    return hashlib.sha256(split_file(path, split).read_bytes()).hexdigest()


def _read_csv(file: Path) -> pd.DataFrame:
    """Read every cell as text (empty cells as ''), and check the required columns."""
    try:
        frame = pd.read_csv(file, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise DatasetFormatError(f"Cannot read '{file}' as CSV: {err}", str(file)) from err
    missing = tuple(column for column in REQUIRED_COLUMNS if column not in frame.columns)
    if missing:
        raise DatasetFormatError(
            f"'{file}' lacks the column(s) {', '.join(missing)}; a benchmark CSV needs "
            f"{', '.join(REQUIRED_COLUMNS)} (and optionally {', '.join(OPTIONAL_COLUMNS)}).",
            str(file),
            missing,
        )
    for column in OPTIONAL_COLUMNS:
        if column not in frame.columns:
            frame[column] = ""
    return frame


def _knowledge(text: str) -> str:
    """Return the knowledge text, or '' for the placeholders meaning "none" ("0", 0, empty, NaN)."""
    text = text.strip()
    return "" if text.lower() in _ABSENT_KNOWLEDGE else text


def _tables(text: str, file: Path, req_id: int) -> list[str]:
    """Parse ``table_info`` (a Python list literal such as "['object', 'probability']")."""
    if not text.strip():
        return []
    try:
        tables = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as err:
        raise DatasetFormatError(
            f"'{file}', req_id {req_id}: table_info {text!r} is not a list literal.", str(file)
        ) from err
    if not isinstance(tables, list | tuple) or not all(isinstance(t, str) for t in tables):
        raise DatasetFormatError(f"'{file}', req_id {req_id}: table_info {text!r} is not a list of names.", str(file))
    return list(tables)


def _req_id(text: str, file: Path, row: int) -> int:
    try:
        return int(text.strip())
    except ValueError as err:
        raise DatasetFormatError(f"'{file}', row {row + 2}: req_id {text!r} is not an integer.", str(file)) from err


def load_dataset(path: str | Path, split: str = "dev") -> list[dspy.Example]:
    """Load one split of the benchmark as DSPy examples.

    Args:
        path: A CSV file, or a folder holding ``dev.csv``/``test.csv`` or the paper's
            ``txt2sql_alerce_train_v4_0.csv`` (dev) / ``txt2sql_alerce_test_v4_0.csv`` (test).
        split: ``"dev"`` or ``"test"``; ignored when ``path`` is a file.

    Returns:
        Examples in file order with inputs ``question``, ``external_knowledge``, ``domain_knowledge`` (absent
        knowledge is '') and labels ``gold_sql``, ``difficulty``, ``tables`` (list of table names), ``req_id`` (int).

    Raises:
        DatasetNotFound: Nothing usable at ``path``.
        DatasetFormatError: The file is not a benchmark CSV (missing columns, bad req_id or table_info, repeated ids).
    """
    file = split_file(path, split)
    frame = _read_csv(file)
    examples, seen = [], set()
    for row, record in enumerate(frame.to_dict("records")):
        req_id = _req_id(record["req_id"], file, row)
        if req_id in seen:
            raise DatasetFormatError(f"'{file}': req_id {req_id} appears more than once.", str(file))
        seen.add(req_id)
        example = dspy.Example(
            question=record["request"].strip(),
            external_knowledge=_knowledge(record["external_knowledge"]),
            domain_knowledge=_knowledge(record["domain_knowledge"]),
            gold_sql=record["gold_query"].strip(),
            difficulty=record["difficulty"].strip(),
            tables=_tables(record["table_info"], file, req_id),
            req_id=req_id,
        )
        examples.append(example.with_inputs(*INPUT_FIELDS))
    return examples
