"""The run report's figures as PNG bytes: confusion matrix, items per error class, run history.

matplotlib is imported inside `figures` only, through its Agg canvas (no pyplot state), so
importing this module costs nothing. The PNGs carry no "Software" stamp: the same data gives
byte-identical files across matplotlib patch versions.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from refinery.report.data import ReportData

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CONFUSION = "confusion.png"
ERROR_CLASSES = "error_classes.png"
HISTORY = "history.png"  # embedded only: the report's files stay the four it always wrote


def figures(data: ReportData) -> dict[str, bytes]:
    """PNG bytes by file name: the confusion matrix, the error classes, and (with a history) the
    run history."""
    out = {CONFUSION: _png(confusion_figure(data)), ERROR_CLASSES: _png(error_class_figure(data))}
    if data.history:
        out[HISTORY] = _png(history_figure(data))
    return out


def _png(fig: Figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    return buf.getvalue()


def confusion_figure(data: ReportData) -> Figure:
    """Items by gold label (rows) and agreed prover label (columns), counts annotated."""
    from matplotlib.figure import Figure

    fig = Figure(
        figsize=(1.6 + 1.1 * len(data.prover_axis), 1.4 + 0.7 * len(data.gold_axis)),
        layout="constrained",
    )
    ax = fig.add_subplot()
    matrix = [list(row) for row in data.confusion]
    peak = max((n for row in matrix for n in row), default=0)
    ax.imshow(matrix, cmap="Blues", vmin=0, vmax=max(peak, 1), aspect="auto")
    for i, row in enumerate(matrix):
        for j, n in enumerate(row):
            color = "white" if n > peak / 2 else "black"
            ax.text(j, i, str(n), ha="center", va="center", color=color)
    ax.set_xticks(range(len(data.prover_axis)), data.prover_axis)
    ax.set_yticks(range(len(data.gold_axis)), data.gold_axis)
    ax.set_xlabel("agreed prover label")
    ax.set_ylabel("gold label")
    ax.set_title("Items: gold × agreed prover label")
    return fig


def error_class_figure(data: ReportData) -> Figure:
    """One bar per error class, in taxonomy order: the items diagnosed with it."""
    from matplotlib.figure import Figure

    names = [c for c, _ in data.error_classes]
    counts = [n for _, n in data.error_classes]
    fig = Figure(figsize=(7, 1.2 + 0.35 * len(names)), layout="constrained")
    ax = fig.add_subplot()
    positions = list(range(len(names)))
    ax.barh(positions, counts, color="#4c72b0")
    ax.set_yticks(positions, names)
    ax.invert_yaxis()  # taxonomy order reads top to bottom
    for y, n in zip(positions, counts, strict=True):
        ax.text(n, y, f" {n}", va="center")
    ax.set_xlim(0, max([*counts, 1]) * 1.15)
    ax.set_xlabel("items (an item counts once per class)")
    ax.set_title("Items per error class")
    return fig


_STATUS_COLORS = {
    "verified": "#2a9d4b",
    "repaired": "#4c72b0",
    "reviewed": "#8172b2",
    "needs_review": "#c44e52",
}


def history_figure(data: ReportData) -> Figure:
    """Items per status, one point per run (the last is this run)."""
    from matplotlib.figure import Figure

    runs = [h.run_id for h in data.history]
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.add_subplot()
    x = list(range(len(runs)))
    drawn = False
    for i, status in enumerate(data.statuses):
        counts = [h.counts[i] for h in data.history]
        if any(counts):  # "reviewed" stays off the chart until a review round happened
            color = _STATUS_COLORS.get(status)
            ax.plot(x, counts, marker="o", label=status, color=color)
            drawn = True
    ax.set_xticks(x, runs, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("items")
    ax.set_title("Items per status, run by run (last: this run)")
    if drawn:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    return fig
