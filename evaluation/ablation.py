"""Model mode of ``python -m evaluate``: its command-line options, and the standard ablation grid.

The grid runs the full program, the program with each optional stage switched off in turn, and the direct
baseline, each into its own report sub-folder, then tabulates row and column PM per difficulty, tokens, cost and
time per question (ablation.json and ablation.csv).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lms
from evaluation.program_predictions import ModelRunSettings, Scorer, run_model
from evaluation.report import report_not_written
from fileio import write_files
from metric.aggregate import DIFFICULTIES
from modules import OPTIONAL_STAGES

if TYPE_CHECKING:
    import dspy

__all__ = [
    "ABLATION_CSV",
    "ABLATION_JSON",
    "Configuration",
    "ablation_row",
    "configurations",
    "render_ablation",
    "run_ablation",
]

logger = logging.getLogger(__name__)

ABLATION_JSON = "ablation.json"
ABLATION_CSV = "ablation.csv"
_GROUPS = (*DIFFICULTIES, "overall")
_PM_COLUMNS = (("row_pm", "row_pm"), ("col_pm_formatted", "col_pm"))


@dataclasses.dataclass(frozen=True)
class Configuration:
    """One row of the grid: its name, the stages switched off, and whether it is the direct baseline."""

    name: str
    without: tuple[str, ...] = ()
    direct: bool = False


def configurations() -> list[Configuration]:
    """Return the grid: full, ``without_<stage>`` for each optional stage, then direct."""
    return [
        Configuration("full"),
        *(Configuration(f"without_{stage}", (stage,)) for stage in OPTIONAL_STAGES),
        Configuration("direct", direct=True),
    ]


def ablation_row(configuration: Configuration, report: dict) -> dict[str, Any]:
    """Summarise one configuration's report as a table row (PM means; None where a group is empty)."""
    summary, source = report["summary"], report["settings"]["source"]
    pipeline, usage = source.get("pipeline"), source["usage"]
    row: dict[str, Any] = {
        "configuration": configuration.name,
        "stages": "direct" if configuration.direct else ",".join(pipeline["stages"]),
        "items": report["counts"]["items"],
    }
    for metric, label in _PM_COLUMNS:
        for group_name in _GROUPS:
            group = summary["overall"] if group_name == "overall" else summary["by_difficulty"].get(group_name)
            row[f"{label}_{group_name}"] = group[metric]["mean"] if group else None
    for key in ("input_tokens_per_question", "output_tokens_per_question", "cost_usd_per_question"):
        row[key] = usage[key]
    row["seconds_per_question"] = usage["seconds_per_question"]
    return row


def _text(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _write(rows: Sequence[dict[str, Any]], ablation: dict, report_dir: Path) -> None:
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: "-" if value is None else value for key, value in row.items()} for row in rows)
    files = {
        ABLATION_JSON: (json.dumps(ablation, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
        ABLATION_CSV: table.getvalue().encode("utf-8"),
    }
    try:
        write_files(report_dir, files)
    except OSError as err:
        raise report_not_written(report_dir, err) from err


def run_ablation(
    settings: ModelRunSettings,
    examples: Sequence[dspy.Example],
    report_dir: Path,
    score: Scorer,
    *,
    dataset_identity: dict[str, Any],
) -> dict:
    """Run every configuration of the grid into ``report_dir/<name>/`` and write the ablation table.

    Args:
        settings: The model and how to run it (``without`` and ``direct`` are set per configuration).
        examples: The dataset split.
        report_dir: The folder of ablation.json, ablation.csv and one sub-folder per configuration.
        score: Scores each configuration's SQL like predictions mode.
        dataset_identity: JSON-ready facts naming the dataset (see ``run_model``).

    Returns:
        The ablation table: ``model``, ``runs`` and ``rows`` (one per configuration, as in ablation.csv).
    """
    lm = lms.resolve_lm(settings.model)  # one LM (and one local engine) for the whole grid
    rows = []
    for configuration in configurations():
        logger.info("ablation: %s", configuration.name)
        program = dataclasses.replace(settings.program, without=configuration.without, direct=configuration.direct)
        config_settings = dataclasses.replace(settings, program=program)
        report = run_model(
            config_settings, examples, report_dir / configuration.name, score, dataset_identity=dataset_identity, lm=lm
        )
        rows.append(ablation_row(configuration, report))
    ablation = {"model": settings.model, "runs": settings.runs, "rows": rows}
    _write(rows, ablation, report_dir)
    return ablation


def render_ablation(ablation: dict) -> str:
    """Render the ablation table as plain text: row and column PM per difficulty, tokens, cost, seconds."""
    columns = [
        ("configuration", "configuration", 26),
        *((f"row_pm_{g}", f"row {g[:3]}", 8) for g in _GROUPS),
        *((f"col_pm_{g}", f"col {g[:3]}", 8) for g in _GROUPS),
        ("input_tokens_per_question", "in tok/q", 10),
        ("output_tokens_per_question", "out tok/q", 10),
        ("cost_usd_per_question", "USD/q", 10),
        ("seconds_per_question", "s/q", 8),
    ]
    header = "".join(f"{label:<{width}}" for _, label, width in columns).rstrip()
    lines = [header, "-" * len(header)]
    for row in ablation["rows"]:
        cells = []
        for key, _, width in columns:
            digits = (
                6
                if key.startswith("cost")
                else 1
                if key.endswith(("tokens_per_question", "seconds_per_question"))
                else 3
            )
            cells.append(f"{_text(row[key], digits):<{width}}")
        lines.append("".join(cells).rstrip())
    lines.append(
        f"\nmodel: {ablation['model']}, runs: {ablation['runs']}; PM means (column PM formatted, as in the paper)"
    )
    return "\n".join(lines)
