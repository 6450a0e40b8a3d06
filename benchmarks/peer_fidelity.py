"""Agreement of the embedded database's verdicts with the live ALeRCE database's, on real LLM predictions.

Each prediction of a peer-predictions CSV (req_id, sql, live_row_pm, live_col_pm_formatted, live_gold_error) is
executed on the database, scored with the paper's row and formatted-column PM against its gold, and compared with
the verdict the live database gave. Items whose live gold failed are left out (they say nothing about the data).
Used by ``benchmarks.db_fidelity --peer-predictions``.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from benchmarks.common import EmptyInputError
from data.errors import DatasetFormatError
from engines.errors import ExecutionError
from engines.postgres import PostgresEngine
from metric.perfect_match import column_match_formatted, row_match

__all__ = ["PEER_COLUMNS", "peer_agreement", "read_peers"]

PEER_COLUMNS = ("req_id", "sql", "live_row_pm", "live_col_pm_formatted", "live_gold_error", "live_pred_error")

logger = logging.getLogger(__name__)


def _frame(executor: PostgresEngine, sql: str, timeout_s: float, memo: dict) -> pd.DataFrame | None:
    if sql not in memo:
        try:
            memo[sql] = executor.execute(sql, timeout_s=timeout_s).frame
        except ExecutionError:
            memo[sql] = None
    return memo[sql]


def read_peers(path: Path, golds: dict[int, str]) -> pd.DataFrame:
    """Read the peer predictions that answer a question of `golds` whose live gold ran.

    Raises:
        OSError: The file cannot be read.
        DatasetFormatError: The file lacks a column of `PEER_COLUMNS`.
        EmptyInputError: No prediction answers such a question.
    """
    peers = pd.read_csv(path)
    missing = tuple(column for column in PEER_COLUMNS if column not in peers.columns)
    if missing:
        raise DatasetFormatError(f"'{path}' lacks the column(s) {', '.join(missing)}.", str(path), missing)
    live_gold_ran = peers["live_gold_error"].isna() | (peers["live_gold_error"].astype(str).str.strip() == "")
    items = peers[live_gold_ran & peers["req_id"].isin(list(golds))]
    if items.empty:
        raise EmptyInputError(
            f"none of the {len(peers)} predictions in '{path}' answers a question of the dataset whose live gold "
            "ran; pass the peer predictions of this split."
        )
    return items


def peer_agreement(executor: PostgresEngine, items: pd.DataFrame, golds: dict[int, str], timeout_s: float) -> dict:
    """Score every peer prediction and report agreement with the live verdicts.

    Args:
        executor: Runs gold and predicted SQL on the database under test.
        items: The peer predictions as `read_peers` keeps them.
        golds: Gold SQL per req_id.
        timeout_s: Time limit of one query.

    Returns:
        Counts and agreement rates overall and over the items whose prediction did not time out on the live server
        (a live timeout says nothing about the data), and the disagreements per req_id and cause.
    """
    memo: dict[str, pd.DataFrame | None] = {}
    agree, agree_ran_live, ran_live = Counter(), Counter(), 0
    by_question: dict[int, Counter] = defaultdict(Counter)
    for row in tqdm(items.itertuples(index=False), total=len(items), desc="peer predictions", disable=None):
        gold_sql = golds[int(row.req_id)]
        gold = _frame(executor, gold_sql, timeout_s, memo)
        sql = "" if pd.isna(row.sql) else str(row.sql)
        pred = _frame(executor, sql, timeout_s, memo) if sql.strip() else None
        local_row = row_match(gold, pred, sql).pm
        local_col = column_match_formatted(sql, gold, pred).pm
        live_row, live_col = bool(row.live_row_pm), bool(row.live_col_pm_formatted)
        agree["row"] += local_row == live_row
        agree["col"] += local_col == live_col
        timed_out_live = str(row.live_pred_error) == "timeout"
        if not timed_out_live:
            ran_live += 1
            agree_ran_live["row"] += local_row == live_row
            agree_ran_live["col"] += local_col == live_col
        if local_row != live_row:
            cause = "live timeout" if timed_out_live else "other"
            by_question[int(row.req_id)][f"live {int(live_row)} local {int(local_row)} ({cause})"] += 1
    n = len(items)
    return {
        "items": n,
        "row_agreement": round(agree["row"] / n, 4),
        "col_formatted_agreement": round(agree["col"] / n, 4),
        "without_live_timeouts": {
            "items": ran_live,
            "row_agreement": round(agree_ran_live["row"] / ran_live, 4) if ran_live else None,
            "col_formatted_agreement": round(agree_ran_live["col"] / ran_live, 4) if ran_live else None,
        },
        "row_disagreements": {str(k): dict(v) for k, v in sorted(by_question.items())},
    }
