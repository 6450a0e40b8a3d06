"""Score predictions against gold results in parallel, saving each finished item to a checkpoint."""

import concurrent.futures
import dataclasses
import logging
import sys
from collections.abc import Sequence

import dspy
import pandas as pd
from tqdm import tqdm

from engines import Engine
from engines.errors import DatabaseUnavailable, ErrorKind, ExecutionError
from engines.outage import raise_if_connection_lost
from evaluation.checkpoint import Checkpoint
from evaluation.predictions import Prediction
from fileio.text import encodable
from metric.aggregate import ScoredItem
from metric.gold_cache import GoldCache
from metric.perfect_match import score_frames

__all__ = ["MISSING_MESSAGE", "ItemRecord", "failed_item", "score_item", "score_predictions"]

logger = logging.getLogger(__name__)

MISSING_MESSAGE = "missing: no prediction for this question and run"


@dataclasses.dataclass(frozen=True, kw_only=True)
class ItemRecord:
    """Everything known about one scored (question, run) item; one line of the checkpoint and of per_question.csv.

    Attributes:
        req_id: The question id.
        run: The run id.
        difficulty: The gold difficulty label.
        gold_rows: Rows of the gold result, or None if the gold query failed.
        pred_rows: Rows of the predicted result, or None if it failed or is missing.
        error_kind: Kind of the prediction's execution error (``timeout``, ``missing_structure``, ``general``).
        row_pm: Row PM.
        col_pm: Raw column PM.
        col_pm_formatted: Formatted column PM (the paper's column number).
        value_match: Our value match.
        error_message: The prediction's error message, or None.
        gold_error_kind: Kind of the gold query's execution error, or None.
        gold_error_message: The gold query's error message, or None.
        row_comparison: How row PM compared the results (``ok``, ``empty_gold``, ``alias_crash``, ...).
        value_comparison: How the value match ended (``ok``, ``row_count``, ``values``, ...).
        is_missing: The predictions had no SQL for this item.
        elapsed_s: Wall time of the predicted query in seconds (0 when it did not run).
        sql: The predicted SQL, or None when missing.
    """

    req_id: int
    run: int | str
    difficulty: str
    gold_rows: int | None
    pred_rows: int | None
    error_kind: str | None
    row_pm: bool
    col_pm: bool
    col_pm_formatted: bool
    value_match: bool
    error_message: str | None = None
    gold_error_kind: str | None = None
    gold_error_message: str | None = None
    row_comparison: str = ""
    value_comparison: str = ""
    is_missing: bool = False
    elapsed_s: float = 0.0
    sql: str | None = None

    def __post_init__(self) -> None:
        """Make the texts from outside (the predicted SQL, error messages) encodable, so the record can be saved."""
        for name in ("sql", "error_message", "gold_error_message"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, encodable(value))

    def to_dict(self) -> dict:
        """Return the record as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ItemRecord":
        """Rebuild a record from ``to_dict`` output, ignoring unknown keys."""
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})

    def scored_item(self) -> ScoredItem:
        """Return the item as ``metric.aggregate`` counts it."""
        return ScoredItem(
            req_id=self.req_id,
            run=self.run,
            difficulty=self.difficulty,
            gold_error=self.gold_error_kind is not None,
            pred_error=self.error_kind,
            row_pm=self.row_pm,
            col_pm=self.col_pm,
            col_pm_formatted=self.col_pm_formatted,
            value_match=self.value_match,
        )


def _execute(executor: Engine, sql: str | None, timeout_s: float) -> tuple[pd.DataFrame | None, object]:
    """Run the predicted SQL; return its frame (None on error) and the error or elapsed seconds."""
    if sql is None:
        return None, ExecutionError(ErrorKind.GENERAL, None, MISSING_MESSAGE)
    try:
        result = executor.execute(sql, timeout_s=timeout_s)
    except ExecutionError as err:
        raise_if_connection_lost(err)  # a lost database stops the run instead of scoring the item as wrong
        return None, err
    return result.frame, result.elapsed_s


def score_item(
    prediction: Prediction, example: dspy.Example, executor: Engine, gold_cache: GoldCache, *, timeout_s: float
) -> ItemRecord:
    """Execute one prediction and its (cached) gold, and score the pair.

    Raises:
        DatabaseUnavailable: The database cannot be reached or was lost during a query (the item is not scored).
    """
    gold = gold_cache.result(example.gold_sql)
    pred_df, outcome = _execute(executor, prediction.sql, timeout_s)
    error = outcome if isinstance(outcome, ExecutionError) else None
    scores = score_frames(gold.frame, example.gold_sql, pred_df, prediction.sql or "")
    return ItemRecord(
        req_id=prediction.req_id,
        run=prediction.run,
        difficulty=example.difficulty,
        gold_rows=None if gold.frame is None else len(gold.frame),
        pred_rows=None if pred_df is None else len(pred_df),
        error_kind=error.kind.value if error else None,
        row_pm=scores.row.pm,
        col_pm=scores.column_raw.pm,
        col_pm_formatted=scores.column_formatted.pm,
        value_match=scores.value.pm,
        error_message=error.message if error else None,
        gold_error_kind=gold.error.kind.value if gold.error else None,
        gold_error_message=gold.error.message if gold.error else None,
        row_comparison=scores.row.comparison.value,
        value_comparison=scores.value.comparison.value,
        is_missing=prediction.sql is None,
        elapsed_s=0.0 if error else float(outcome),
        sql=prediction.sql,
    )


def failed_item(prediction: Prediction, example: dspy.Example, err: Exception) -> ItemRecord:
    """Record an item whose scoring failed unexpectedly as a GENERAL error scoring 0, so the run can go on.

    Examples:
        >>> import dspy
        >>> example = dspy.Example(req_id=7, difficulty="simple", gold_sql="SELECT 1")
        >>> failed_item(Prediction(7, 0, "SELECT 1"), example, RecursionError("too deep")).error_message
        'could not score this item (RecursionError: too deep)'
    """
    return ItemRecord(
        req_id=prediction.req_id,
        run=prediction.run,
        difficulty=example.difficulty,
        gold_rows=None,
        pred_rows=None,
        error_kind=ErrorKind.GENERAL.value,
        row_pm=False,
        col_pm=False,
        col_pm_formatted=False,
        value_match=False,
        error_message=f"could not score this item ({type(err).__name__}: {str(err)[:500]})",
        is_missing=prediction.sql is None,
        sql=prediction.sql,
    )


def _resumed(predictions: Sequence[Prediction], checkpoint: Checkpoint | None) -> dict[tuple, ItemRecord]:
    """Return checkpointed records whose prediction SQL is unchanged, keyed by (req_id, run)."""
    if checkpoint is None:
        return {}
    saved = {(record["req_id"], record["run"]): record for record in checkpoint.load()}
    done = {}
    for prediction in predictions:
        record = saved.get(prediction.key)
        if record is not None and record.get("sql") == (prediction.sql and encodable(prediction.sql)):
            done[prediction.key] = ItemRecord.from_dict(record)
    if done:
        logger.info("resuming: %d of %d items already scored in %s", len(done), len(predictions), checkpoint.path)
    return done


def score_predictions(
    predictions: Sequence[Prediction],
    examples: Sequence[dspy.Example],
    executor: Engine,
    gold_cache: GoldCache,
    *,
    timeout_s: float,
    workers: int = 2,
    checkpoint: Checkpoint | None = None,
) -> list[ItemRecord]:
    """Score every prediction, in parallel, skipping items already in the checkpoint with the same SQL.

    An item whose scoring raises anything but DatabaseUnavailable (or an interrupt) is recorded by ``failed_item``
    as a GENERAL error scoring 0, and the run goes on.

    Args:
        predictions: One prediction per item, e.g. from ``complete_predictions`` (``sql=None`` = missing).
        examples: The dataset split; each prediction's req_id must be among them.
        executor: Runs the predicted SQL (thread-safe, with a pool of at least ``workers`` connections).
        gold_cache: Gives the gold results.
        timeout_s: Time limit of one predicted query, in seconds.
        workers: Items scored at once.
        checkpoint: Where finished items are appended and read back on resume; None keeps nothing.

    Returns:
        One record per prediction, in the order given.

    Raises:
        KeyboardInterrupt: Interrupted; items finished so far are in the checkpoint.
        DatabaseUnavailable: The database cannot be reached or went away; items finished so far are in the
            checkpoint.
    """
    by_id = {example.req_id: example for example in examples}
    done = _resumed(predictions, checkpoint)
    todo = [p for p in predictions if p.key not in done]

    def score_and_save(prediction: Prediction) -> ItemRecord:
        # Saved by the worker, so an item still running at Ctrl-C is kept when it finishes.
        example = by_id[prediction.req_id]
        try:
            record = score_item(prediction, example, executor, gold_cache, timeout_s=timeout_s)
        except DatabaseUnavailable:
            raise
        except Exception as err:  # one item the executor or the metric cannot handle must not end the run
            logger.warning("item %s run %s could not be scored: %r", prediction.req_id, prediction.run, err)
            record = failed_item(prediction, example, err)
        if checkpoint is not None:
            checkpoint.append(record.to_dict())
        return record

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="evaluate")
    futures: list[concurrent.futures.Future] = []
    try:
        futures += [pool.submit(score_and_save, prediction) for prediction in todo]
        with tqdm(
            total=len(predictions), initial=len(done), desc="evaluate", unit="item", file=sys.stderr, disable=None
        ) as bar:
            for future in concurrent.futures.as_completed(futures):
                record = future.result()
                done[record.req_id, record.run] = record
                bar.update()
    except KeyboardInterrupt:
        running = sum(future.running() for future in futures)
        logger.warning("interrupted: waiting for %d running item(s) to be saved (Ctrl-C again to drop them)", running)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [done[p.key] for p in predictions]
