"""Score predictions against gold results in parallel: each distinct statement runs and is scored once.

Each worker thread runs a statement and scores it, so one worker's query runs in the database while another's
result is scored. Each finished item is saved to the checkpoint.
"""

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
from evaluation.item_record import ItemRecord, failed_item, verdict
from evaluation.predictions import Prediction
from fileio.text import encodable
from metric.gold_cache import GoldCache, GoldResult
from metric.perfect_match import identifier_columns

__all__ = ["GOLD_REUSE_SHARE", "MISSING_MESSAGE", "score_item", "score_predictions"]

logger = logging.getLogger(__name__)

MISSING_MESSAGE = "missing: no prediction for this question and run"
GOLD_REUSE_SHARE = 0.5
"""A prediction that is the gold statement reuses the gold's result when the gold took less than this share of the
prediction's time limit (a slower one runs again: it might time out under the shorter limit)."""


def _execute(executor: Engine, sql: str | None, timeout_s: float) -> tuple[pd.DataFrame | None, ExecutionError | float]:
    """Run the predicted SQL; return its frame (None on error) and the error or elapsed seconds."""
    if sql is None:
        return None, ExecutionError(ErrorKind.GENERAL, None, MISSING_MESSAGE)
    try:
        result = executor.execute(sql, timeout_s=timeout_s)
    except ExecutionError as err:
        raise_if_connection_lost(err)  # a lost database stops the run instead of scoring the item as wrong
        return None, err
    return result.frame, result.elapsed_s


def _is_gold_rerun(sql: str | None, gold_sql: str, gold: GoldResult, timeout_s: float) -> bool:
    """Tell whether the prediction is the gold statement, whose result the gold run already holds.

    Only a gold that ran without error, well within the prediction's time limit, stands for the prediction's own run.
    """
    return sql == gold_sql and gold.error is None and gold.elapsed_s < GOLD_REUSE_SHARE * timeout_s


def score_item(
    prediction: Prediction, example: dspy.Example, executor: Engine, gold_cache: GoldCache, *, timeout_s: float
) -> ItemRecord:
    """Execute one prediction (unless it is the gold statement, see `_is_gold_rerun`) and its cached gold; score them.

    Raises:
        DatabaseUnavailable: The database cannot be reached or was lost during a query (the item is not scored).
    """
    gold = gold_cache.result(example.gold_sql)
    if _is_gold_rerun(prediction.sql, example.gold_sql, gold, timeout_s):
        pred_df, outcome = gold.frame, gold.elapsed_s
    else:
        pred_df, outcome = _execute(executor, prediction.sql, timeout_s)
    return verdict(prediction, example, gold, pred_df, outcome, ids=identifier_columns(executor.catalog))


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


def _by_statement(predictions: Sequence[Prediction]) -> list[list[Prediction]]:
    """Group predictions that put the same SQL text to the same question, in order of first appearance.

    A verdict depends only on the question and the SQL text, so one execution and one scoring serve the whole
    group. The text is compared as it is: any rewriting (even of white space) could change what the guard, the
    database or the select-list parser make of it.
    """
    groups: dict[tuple[int, str | None], list[Prediction]] = {}
    for prediction in predictions:
        groups.setdefault((prediction.req_id, prediction.sql), []).append(prediction)
    return list(groups.values())


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
    """Score every prediction, skipping items already in the checkpoint with the same SQL.

    Each distinct (question, SQL) runs and is scored once, and every prediction repeating it gets the same record
    (`_by_statement`), also from a checkpoint being resumed. An item whose execution or scoring raises anything but
    DatabaseUnavailable (or an interrupt) is recorded by ``failed_item`` as a GENERAL error scoring 0, and the run
    goes on.

    Args:
        predictions: One prediction per item, e.g. from ``complete_predictions`` (``sql=None`` = missing).
        examples: The dataset split; each prediction's req_id must be among them.
        executor: Runs the predicted SQL (thread-safe, with a pool of at least ``workers`` connections).
        gold_cache: Gives the gold results.
        timeout_s: Time limit of one predicted query, in seconds.
        workers: Statements run and scored at once.
        checkpoint: Where finished items are appended and read back on resume; None keeps nothing.

    Returns:
        One record per prediction, in the order given.

    Raises:
        KeyboardInterrupt: Interrupted; items finished so far are in the checkpoint.
        DatabaseUnavailable: The database cannot be reached or went away; items finished so far are in the
            checkpoint.
    """
    done = _resumed(predictions, checkpoint)
    scoring = _Scoring(examples, executor, gold_cache, timeout_s=timeout_s, checkpoint=checkpoint, done=done)
    groups = _by_statement([p for p in predictions if p.key not in done])
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="evaluate")
    futures: list[concurrent.futures.Future] = []
    try:
        futures += [pool.submit(scoring.score, group) for group in groups]
        with tqdm(
            total=len(predictions), initial=len(done), desc="evaluate", unit="item", file=sys.stderr, disable=None
        ) as bar:
            for future in concurrent.futures.as_completed(futures):
                records = future.result()
                done.update({(record.req_id, record.run): record for record in records})
                bar.update(len(records))
    except KeyboardInterrupt:
        running = sum(future.running() for future in futures)
        logger.warning("interrupted: waiting for %d running item(s) to be saved (Ctrl-C again to drop them)", running)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [done[p.key] for p in predictions]


class _Scoring:
    """Score a group of predictions repeating one statement: run it once, score it once, save a record for each."""

    def __init__(
        self,
        examples: Sequence[dspy.Example],
        executor: Engine,
        gold_cache: GoldCache,
        *,
        timeout_s: float,
        checkpoint: Checkpoint | None,
        done: dict[tuple, ItemRecord],
    ) -> None:
        self.by_id = {example.req_id: example for example in examples}
        self.executor, self.gold_cache, self.timeout_s = executor, gold_cache, timeout_s
        self.checkpoint = checkpoint
        self.known = {(record.req_id, record.sql): record for record in done.values()}

    def score(self, group: list[Prediction]) -> list[ItemRecord]:
        """Return (and save) the group's records: the checkpoint's when resuming, else from one run and scoring."""
        first = group[0]
        record = self.known.get((first.req_id, first.sql)) or self._score_one(first)
        records = [dataclasses.replace(record, run=prediction.run) for prediction in group]
        if self.checkpoint is not None:  # saved by the worker, so an item still running at Ctrl-C is kept
            self.checkpoint.append_all([record.to_dict() for record in records])
        return records

    def _score_one(self, prediction: Prediction) -> ItemRecord:
        """Score one item; anything but an unavailable database (or an interrupt) gives a `failed_item`."""
        example = self.by_id[prediction.req_id]
        try:
            return score_item(prediction, example, self.executor, self.gold_cache, timeout_s=self.timeout_s)
        except DatabaseUnavailable:
            raise
        except Exception as err:  # one item the executor or the metric cannot handle must not end the run
            logger.warning("item %s run %s could not be scored: %r", prediction.req_id, prediction.run, err)
            return failed_item(prediction, example, err)
