"""Draw the report's bar chart: row PM and formatted column PM per difficulty, with std over runs."""

from pathlib import Path

__all__ = ["plot_report"]

_BARS = (("row_pm", "row PM"), ("col_pm_formatted", "column PM (formatted)"))


def plot_report(report: dict, path: str | Path) -> Path:
    """Save a PNG bar chart of the report's per-difficulty and overall PM rates.

    Args:
        report: The dict returned by ``build_report``.
        path: The PNG file to write.

    Returns:
        The path written.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    summary = report["summary"]
    groups = [(name, group) for name, group in summary["by_difficulty"].items()]
    if summary["overall"] is not None:
        groups.append(("overall", summary["overall"]))
    width = 0.38
    figure, axes = plt.subplots(figsize=(max(4.0, 1.6 * len(groups) + 1.5), 3.6))
    for offset, (metric, label) in enumerate(_BARS):
        means = [group[metric]["mean"] for _, group in groups]
        stds = [group[metric]["std"] or 0.0 for _, group in groups]
        positions = [index + (offset - 0.5) * width for index in range(len(groups))]
        axes.bar(positions, means, width, yerr=stds, capsize=3, label=label)
    axes.set_xticks(range(len(groups)), [name for name, _ in groups])
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("PM rate")
    axes.set_title(f"{report['metric_version']}, convention {report['convention']}")
    axes.legend(loc="upper right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return Path(path)
