"""Read predicted SQL from CSV or JSON files and line it up with the dataset's questions."""

import reprlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import dspy
import pandas as pd

from evaluation.errors import PredictionsError
from fileio.json_data import UnreadableJSON, loads_json

__all__ = ["DEFAULT_RUN", "Prediction", "complete_predictions", "read_predictions", "run_sort_key"]

DEFAULT_RUN = 0
"""Run id of predictions given without a ``run``."""


@dataclass(frozen=True)
class Prediction:
    """The SQL predicted for one question in one run.

    Attributes:
        req_id: The question id.
        run: The run id (a seed or index); std is taken over runs.
        sql: The predicted SQL, or None when the file has no prediction for this question and run.
    """

    req_id: int
    run: int | str
    sql: str | None

    @property
    def key(self) -> tuple[int, int | str]:
        """The (req_id, run) pair identifying the item."""
        return (self.req_id, self.run)


def run_sort_key(run: int | str) -> tuple[bool, int | str]:
    """Order runs: integers first, numerically, then strings."""
    return (isinstance(run, str), run)


def _run_id(value: object) -> int | str:
    """Return a run id as int when it reads as one, else as stripped text; empty means the default run."""
    if value is None or (isinstance(value, float) and value != value):
        return DEFAULT_RUN
    text = str(value).strip()
    if not text:
        return DEFAULT_RUN
    try:
        return int(text)
    except ValueError:
        return text


def _records(path: Path) -> list[dict]:
    """Read the raw records of a CSV or JSON predictions file.

    A byte that is not UTF-8 is kept as a lone surrogate (``surrogateescape``), like a ``\\udcff`` escape in JSON:
    the SQL guard refuses that one prediction, and the other items are scored.
    """
    if not path.is_file():
        raise PredictionsError(f"Predictions file not found: '{path}'.", str(path))
    if path.suffix.lower() == ".json":
        try:
            data = loads_json(path.read_bytes().decode("utf-8", "surrogateescape"))
        except UnreadableJSON as err:
            raise PredictionsError(f"Cannot read '{path}' as JSON: {err}.", str(path)) from err
        if isinstance(data, dict) and "predictions" in data:
            data = data["predictions"]
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise PredictionsError(
                f"'{path}' must hold a list of objects or {{\"predictions\": [...]}}, each with req_id and sql.",
                str(path),
            )
        return data
    try:
        frame = pd.read_csv(path, dtype=object, keep_default_na=False, encoding_errors="surrogateescape")
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise PredictionsError(f"Cannot read '{path}' as CSV: {err}", str(path)) from err
    return frame.to_dict("records")


def _short(value: object) -> str:
    """A value as one short line of text, for an error message."""
    return reprlib.repr(value).replace("\n", "\\n")


def _prediction(record: dict, position: int, path: Path) -> Prediction:
    """Build one prediction from a raw record, checking its fields."""
    for field in ("req_id", "sql"):
        if field not in record:
            raise PredictionsError(
                f"'{path}', item {position + 1}: no '{field}' field; a predictions file needs req_id and sql "
                "(and optionally run).",
                str(path),
            )
    try:
        req_id = int(str(record["req_id"]).strip())
    except ValueError as err:
        raise PredictionsError(
            f"'{path}', item {position + 1}: req_id {_short(record['req_id'])} is not an integer.", str(path)
        ) from err
    sql = record["sql"]
    if sql is not None and not isinstance(sql, str):
        raise PredictionsError(f"'{path}', item {position + 1}: sql {_short(sql)} is not text.", str(path))
    return Prediction(req_id, _run_id(record.get("run")), sql or "")


def read_predictions(path: str | Path) -> list[Prediction]:
    """Read predictions from a CSV file or a JSON file (``.json``).

    A CSV file has the columns ``req_id``, ``sql`` and optionally ``run``. A JSON file holds a list of objects
    with those keys, or ``{"predictions": [...]}``. Without a run, predictions belong to run 0.

    Args:
        path: The predictions file.

    Returns:
        The predictions in file order (an empty ``sql`` is kept as '' and will fail to execute).

    Raises:
        PredictionsError: The file is missing or malformed, lacks a field, or repeats a (req_id, run) pair.
    """
    path = Path(path).expanduser()
    predictions = [_prediction(record, position, path) for position, record in enumerate(_records(path))]
    seen: set[tuple[int, int | str]] = set()
    for prediction in predictions:
        if prediction.key in seen:
            raise PredictionsError(
                f"'{path}': req_id {prediction.req_id}, run {prediction.run} appears more than once.", str(path)
            )
        seen.add(prediction.key)
    if not predictions:
        raise PredictionsError(f"'{path}' holds no predictions.", str(path))
    return predictions


def complete_predictions(
    predictions: Sequence[Prediction], examples: Sequence[dspy.Example], path: str | Path = "predictions"
) -> list[Prediction]:
    """Give every question one prediction per run, in run then dataset order.

    A question without a prediction in some run gets ``sql=None`` (scored as a ``missing`` error), so every run
    has the dataset's denominators.

    Args:
        predictions: Predictions as read from a file.
        examples: The dataset split scored against.
        path: Named in the error message.

    Returns:
        One prediction per (run, question).

    Raises:
        PredictionsError: A prediction names a req_id absent from the dataset.
    """
    req_ids = [example.req_id for example in examples]
    unknown = sorted({p.req_id for p in predictions} - set(req_ids))
    if unknown:
        shown = ", ".join(map(str, unknown[:10])) + (", ..." if len(unknown) > 10 else "")
        raise PredictionsError(
            f"'{path}' has predictions for {len(unknown)} req_id(s) not in the dataset: {shown}; "
            "check --dataset and --split.",
            str(path),
        )
    by_key = {p.key: p for p in predictions}
    runs = sorted({p.run for p in predictions}, key=run_sort_key)
    return [by_key.get((req_id, run), Prediction(req_id, run, None)) for run in runs for req_id in req_ids]
