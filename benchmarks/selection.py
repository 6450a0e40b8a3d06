"""Measure result voting, the value check and the result checks on real LLM candidates.

Every candidate SQL of a CSV (columns req_id, sql, and a candidate id column, or model/prompting/run as in the
peer predictions) is executed on the database, scored with row PM against its gold, and pooled per question:
each model's own candidates, the stronger models together (--stronger, or else the better half of the file's
models by mean candidate row PM, rounded up), everything. For each pool and difficulty it
reports the mean candidate's row PM, the row PM of the candidate the result vote selects (ties broken uniformly,
as an expectation), and the oracle (any candidate right); how many candidates the value check flags, its precision
(flagged ones that are wrong) and recall (wrong ones it flags), and row PM after replacing the flagged literals;
and precision and recall of every result check on the executed candidates. "Wrong" is the local verdict;
``precision_live`` and the ``*_live`` scores use the file's live verdicts (items whose live gold ran), and
``precision_column_pm`` counts a flagged candidate as wrong when its formatted column PM is 0.

Candidates are matched to the questions of --split; a file none of whose candidates answers a question of that
split is refused (exit 1), and candidates of other questions are left out with a warning. Without --dsn the
embedded database is used, grounded on every split file of the dataset folder.
"""

import argparse
import json
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from benchmarks.common import EmptyInputError, package_versions, split_examples
from benchmarks.selection_scoring import Scored, pool_report
from data.errors import DataError
from data.loader import SPLITS, grounding_files
from db.engine import open_engine
from engines import EngineSettings
from engines.errors import ExecutionError
from metric.gold_cache import GoldCache
from metric.perfect_match import column_match_formatted, row_match
from modules.predictors.extract_sql import extract_sql
from modules.result_check.findings import check_result
from modules.value_check.literals import find_unknown_values, replace_unknown_values
from modules.value_check.vocabulary import read_vocabulary

log = logging.getLogger("benchmarks.selection")

EXAMPLES = """examples:
  python -m benchmarks.selection --dataset ../shared/alerce-t2s > selection.json
  python -m benchmarks.selection --candidates my_candidates.csv --id-column candidate --timeout 5
  python -m benchmarks.selection --split test --candidates test_predictions.csv --stronger gpt-4.1,o3

Prints one JSON object on stdout; exit 0 done, 1 on a missing file or database, or candidates that match no
question of the split or name no --stronger model (one line on stderr), 2 on a bad command line."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.selection",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--dataset", default=os.environ.get("ALERCE_T2S_DATA"), help="dataset file or folder (default: %(default)s)"
    )
    parser.add_argument(
        "--split", choices=SPLITS, default="dev", help="split the candidates answer (default: %(default)s)"
    )
    parser.add_argument(
        "--candidates", default=None, help="candidates CSV (default: peer_predictions_<split>.csv beside it)"
    )
    parser.add_argument("--id-column", default=None, help="candidate id column (default: model, prompting and run)")
    parser.add_argument(
        "--stronger",
        type=lambda text: tuple(name.strip() for name in text.split(",") if name.strip()),
        default=None,
        metavar="MODEL,...",
        help="models of the file pooled as 'stronger' (default: the better half by mean candidate row PM)",
    )
    parser.add_argument("--dsn", default=None, help="PostgreSQL DSN (default: the embedded database)")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="time limit of one query in s (default: %(default)s)"
    )
    parser.add_argument("--workers", type=int, default=2, help="queries run at once (default: %(default)s)")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    return parser


def _candidates(path: Path, id_column: str | None) -> pd.DataFrame:
    frame = pd.read_csv(path, dtype={"sql": str}, keep_default_na=False)
    parts = [id_column] if id_column else [c for c in ("model", "prompting", "run") if c in frame.columns]
    missing = [c for c in ("req_id", "sql", *parts) if c not in frame.columns]
    if missing or not parts:
        raise ValueError(f"'{path}' lacks the column(s) {', '.join(missing) or 'of a candidate id'}; use --id-column.")
    frame["candidate_id"] = frame[parts].astype(str).agg("|".join, axis=1)
    if "model" not in frame.columns:
        frame["model"] = "all"
    return frame


def _run_all(engine, sqls: set[str], timeout_s: float, workers: int, desc: str) -> dict[str, pd.DataFrame | None]:
    """Execute each distinct SQL once; an error (or empty SQL) gives None."""

    def run(sql: str) -> pd.DataFrame | None:
        if not sql:
            return None
        try:
            return engine.execute(sql, timeout_s=timeout_s).frame
        except ExecutionError:
            return None

    ordered = sorted(sqls)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        frames = list(tqdm(pool.map(run, ordered), total=len(ordered), desc=desc, file=sys.stderr, disable=None))
    return dict(zip(ordered, frames, strict=True))


def _live(row) -> bool | None:
    if "live_row_pm" not in row or str(row.get("live_gold_error", "")).strip():
        return None
    return bool(float(row["live_row_pm"])) if str(row["live_row_pm"]).strip() else None


def score_candidates(engine, candidates: pd.DataFrame, examples: dict, *, timeout_s: float, workers: int) -> list:
    """Execute, check and score every candidate; return the ``Scored`` items."""
    golds = GoldCache(engine, timeout_s=30.0)
    vocabulary = read_vocabulary(engine)
    rows = [r for r in candidates.to_dict("records") if int(r["req_id"]) in examples]
    sqls = [extract_sql(row["sql"]) for row in rows]
    flagged = [bool(find_unknown_values(sql, vocabulary)) for sql in sqls]
    fixed = [
        replace_unknown_values(sql, vocabulary) if is_flagged else sql
        for sql, is_flagged in zip(sqls, flagged, strict=True)
    ]
    frames = _run_all(engine, set(sqls), timeout_s, workers, "candidates")
    frames |= _run_all(engine, set(fixed) - set(frames), timeout_s, workers, "replaced literals")
    scored = []
    for i, row in enumerate(rows):
        example = examples[int(row["req_id"])]
        gold = golds.result(example.gold_sql.strip().rstrip(";")).frame
        sql, frame, fixed_sql = sqls[i], frames[sqls[i]], fixed[i]
        kinds = frozenset(f.kind for f in check_result(example.question, frame, sql)) if frame is not None else ()
        scored.append(
            Scored(
                req_id=int(row["req_id"]),
                difficulty=example.difficulty,
                model=str(row["model"]),
                id=row["candidate_id"],
                sql=sql,
                frame=frame,
                pm=row_match(gold, frame, sql).pm,
                col_pm=column_match_formatted(sql, gold, frame).pm,
                live_pm=_live(row),
                value_flagged=flagged[i],
                fixed_sql=fixed_sql,
                fixed_frame=frames[fixed_sql],
                fixed_pm=row_match(gold, frames[fixed_sql], fixed_sql).pm,
                result_kinds=frozenset(kinds),
            )
        )
    return scored


def stronger_models(scored: list[Scored]) -> tuple[str, ...]:
    """Return the better half of the models by mean candidate row PM (rounded up); none with fewer than two models.

    Examples:
        >>> def item(model, pm):
        ...     return Scored(1, "simple", model, model, "", None, pm, pm, None, False, "", None, pm)
        >>> stronger_models([item("a", False), item("b", True), item("c", True)])
        ('b', 'c')
    """
    models = sorted({item.model for item in scored})
    if len(models) < 2:
        return ()
    means = {model: pool_report([i for i in scored if i.model == model])["mean_row_pm"] for model in models}
    ranked = sorted(models, key=lambda model: (-means[model], model))
    return tuple(sorted(ranked[: (len(models) + 1) // 2]))


def report(scored: list[Scored], stronger: tuple[str, ...]) -> dict:
    """Group the scored candidates into pools (each model, the `stronger` models, all) and difficulties."""
    models = sorted({item.model for item in scored})
    pools = {f"model:{model}": [i for i in scored if i.model == model] for model in models}
    pools["stronger"] = [i for i in scored if i.model in stronger]
    pools["all"] = list(scored)
    result = {}
    for name, items in pools.items():
        if not items:
            continue
        by_difficulty = {"all": pool_report(items)}
        for difficulty in ("simple", "medium", "advanced"):
            subset = [i for i in items if i.difficulty == difficulty]
            if subset:
                by_difficulty[difficulty] = pool_report(subset)
        result[name] = by_difficulty
    return result


def matching_candidates(candidates: pd.DataFrame, examples: dict, path: Path, split: str) -> pd.DataFrame:
    """Keep the candidates of the split's questions.

    Raises:
        EmptyInputError: No candidate answers a question of the split.
    """
    matched = candidates[candidates["req_id"].astype(str).str.strip().isin({str(req_id) for req_id in examples})]
    if matched.empty:
        raise EmptyInputError(
            f"none of the {len(candidates)} candidates in '{path}' answers a question of the {split} split; "
            "pass the split they answer with --split (or its --dataset)."
        )
    if len(matched) < len(candidates):
        log.warning(
            "%d of %d candidates answer no question of the %s split; left out",
            len(candidates) - len(matched),
            len(candidates),
            split,
        )
    return matched


def _check_stronger(names: tuple[str, ...] | None, candidates: pd.DataFrame) -> None:
    unknown = sorted(set(names or ()) - set(candidates["model"].astype(str)))
    if unknown:
        raise EmptyInputError(f"--stronger names models the candidates do not have: {', '.join(unknown)}.")


def main(argv: list[str] | None = None) -> int:
    """Entry point: prints one JSON object on stdout."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, stream=sys.stderr, format="%(message)s")
    try:
        dataset, split_list = split_examples(args.dataset, args.split)
        examples = {int(example.req_id): example for example in split_list}
        path = Path(args.candidates) if args.candidates else dataset.parent / f"peer_predictions_{args.split}.csv"
        candidates = matching_candidates(_candidates(path, args.id_column), examples, path, args.split)
        _check_stronger(args.stronger, candidates)
    except (OSError, ValueError, DataError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    settings = EngineSettings(dsn=args.dsn, timeout_s=args.timeout, pool_size=max(2, args.workers))
    if not args.dsn:
        settings = EngineSettings(
            timeout_s=args.timeout, pool_size=max(2, args.workers), ground=grounding_files(dataset)
        )
    with open_engine(settings) as engine:
        scored = score_candidates(engine, candidates, examples, timeout_s=args.timeout, workers=args.workers)
    stronger = args.stronger or stronger_models(scored)
    params = {
        "candidates": str(path),
        "split": args.split,
        "timeout_s": args.timeout,
        "stronger_models": list(stronger),
    }
    params["stronger_rule"] = "--stronger" if args.stronger else "better half by mean candidate row PM"
    output = {"benchmark": "selection", "params": params, "pools": report(scored, stronger)}
    output["versions"] = package_versions("sqlglot", "pandas")
    print(json.dumps(output, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
