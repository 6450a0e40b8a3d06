"""Turn scored items into report.json, per_question.csv, a printed table and an optional bar chart."""

import dataclasses
import json
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from evaluation.errors import ReportNotWritten
from evaluation.item_record import ItemRecord
from evaluation.report_names import CONVENTIONS, PLOT_FILE
from fileio import write_files
from metric.aggregate import aggregate

__all__ = [
    "CONVENTIONS",
    "METRIC_VERSION",
    "PER_QUESTION_COLUMNS",
    "PLOT_FILE",
    "build_report",
    "render_table",
    "report_not_written",
    "write_report",
]

logger = logging.getLogger(__name__)

METRIC_VERSION = "pm-v1"
"""Version of the scoring rules (metric/perfect_match.py); bump when a score could change."""
PER_QUESTION_COLUMNS = tuple(field.name for field in dataclasses.fields(ItemRecord))
"""Columns of per_question.csv, in order."""
_BOOL_COLUMNS = ("row_pm", "col_pm", "col_pm_formatted", "value_match", "is_missing")
_TABLE_METRICS = (("row_pm", "row PM"), ("col_pm_formatted", "column PM"), ("value_match", "value match"))


def _counts(records: Sequence[ItemRecord]) -> dict:
    return {
        "items": len(records),
        "questions": len({r.req_id for r in records}),
        "runs": len({r.run for r in records}),
        "gold_errors": sum(r.gold_error_kind is not None for r in records),
        "gold_errors_by_kind": dict(sorted(Counter(r.gold_error_kind for r in records if r.gold_error_kind).items())),
        "empty_gold": sum(r.gold_rows == 0 for r in records),
        "pred_errors": sum(r.error_kind is not None for r in records),
        "pred_errors_by_kind": dict(sorted(Counter(r.error_kind for r in records if r.error_kind).items())),
        "missing": sum(r.is_missing for r in records),
    }


def build_report(records: Sequence[ItemRecord], *, settings: dict, convention: str = "paper") -> dict:
    """Aggregate scored items into the JSON-ready report.

    Args:
        records: One record per (question, run).
        settings: JSON-ready run settings (timeouts, database fingerprint, dataset path and sha256, ...), stored
            as given under ``settings``.
        convention: ``paper`` (gold errors count as zeros) or ``excluded`` (gold-error items are dropped).

    Returns:
        ``metric_version``, ``convention``, ``settings``, ``counts`` and ``summary`` (``metric.aggregate``
        output: overall, by_difficulty, by_question; raw and formatted column PM and value match).
    """
    summary = aggregate((record.scored_item() for record in records), take_error_gold=CONVENTIONS[convention])
    return {
        "metric_version": METRIC_VERSION,
        "convention": convention,
        "settings": settings,
        "counts": _counts(records),
        "summary": json.loads(json.dumps(summary)),
    }


def _cell(stats: dict | None) -> str:
    if stats is None:
        return "-"
    if stats["std"] is None:
        return f"{stats['mean']:.3f}"
    return f"{stats['mean']:.3f} ± {stats['std']:.3f}"


def render_table(report: dict) -> str:
    """Render the report as a plain-text table: PM per difficulty and overall (mean ± std over runs), then errors.

    The column PM shown is the formatted variant, as in the paper.
    """
    summary, counts, settings = report["summary"], report["counts"], report["settings"]
    groups = [*summary["by_difficulty"].items(), ("overall", summary["overall"])]
    header = f"{'difficulty':<12}{'n':>5}  " + "".join(f"{label:<17}" for _, label in _TABLE_METRICS)
    lines = [header.rstrip(), "-" * len(header.rstrip())]
    for name, group in groups:
        n_items = group["n_items"] if group else 0
        cells = "".join(f"{_cell(group[metric] if group else None):<17}" for metric, _ in _TABLE_METRICS)
        lines.append(f"{name:<12}{n_items:>5}  {cells}".rstrip())
    kinds = ", ".join(f"{kind} {n}" for kind, n in counts["pred_errors_by_kind"].items()) or "none"
    lines.append("")
    lines.append(f"execution errors: {kinds} (missing predictions: {counts['missing']})")
    lines.append(
        f"gold errors: {counts['gold_errors']}, empty gold results: {counts['empty_gold']} "
        f"(convention: {report['convention']})"
    )
    lines.append(
        f"runs: {counts['runs']}, items: {counts['items']}, timeout: {settings.get('timeout_s')} s "
        f"(gold {settings.get('gold_timeout_s')} s), database: {settings.get('database_fingerprint')}, "
        f"metric: {report['metric_version']}"
    )
    return "\n".join(lines)


def _per_question_csv(records: Sequence[ItemRecord]) -> bytes:
    frame = pd.DataFrame([record.to_dict() for record in records], columns=list(PER_QUESTION_COLUMNS))
    for column in _BOOL_COLUMNS:
        frame[column] = frame[column].astype(int)
    for column in ("gold_rows", "pred_rows"):
        frame[column] = frame[column].astype("Int64")
    return frame.to_csv(index=False).encode("utf-8")


def report_not_written(folder: Path, err: OSError) -> ReportNotWritten:
    """Return the error for a report folder that cannot be written."""
    return ReportNotWritten(
        f"Cannot write the report to '{folder}': {err.strerror or err}. Finished items are saved; free space or "
        "choose a writable --report folder and rerun.",
        str(folder),
    )


def write_report(
    records: Sequence[ItemRecord], report_dir: str | Path, *, settings: dict, convention: str = "paper", plot: bool
) -> dict:
    """Write report.json, per_question.csv and, with ``plot``, the bar chart into ``report_dir``.

    Args:
        records: One record per (question, run).
        report_dir: The report folder (created if needed).
        settings: JSON-ready run settings, stored in report.json.
        convention: ``paper`` or ``excluded`` (see ``build_report``).
        plot: Also draw ``pm_by_difficulty.png``.

    Returns:
        The report as written to report.json.

    Raises:
        ReportNotWritten: The folder cannot be written (disk full, not a folder, ...); files of an earlier report
            are left intact (written to temp files, then renamed).
    """
    report_dir = Path(report_dir)
    report = build_report(records, settings=settings, convention=convention)
    files = {
        "report.json": (json.dumps(report, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
        "per_question.csv": _per_question_csv(records),
    }
    try:
        write_files(report_dir, files)
    except OSError as err:
        raise report_not_written(report_dir, err) from err
    if plot:
        from evaluation.plot import plot_report

        plot_report(report, report_dir / PLOT_FILE)
    logger.info("report written to %s", report_dir)
    return report
