"""PNG plots of evaluation results (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchormem._util.extras import requires_extra
from anchormem.errors import InputError, MissingExtraError
from anchormem.eval.score import TABLE_ORDER

if TYPE_CHECKING:
    from anchormem.eval.report import Report

__all__ = ["bar_chart", "category_plots", "line_chart", "optional_plots"]

log = logging.getLogger(__name__)


def optional_plots(make: Callable[[], object]) -> None:
    """Run ``make``; without the ``eval`` extra, say that the plots were skipped instead of failing a
    run whose results are already written."""
    try:
        make()
    except MissingExtraError as exc:
        log.warning("plots skipped: %s", exc)


def _pyplot() -> Any:
    with requires_extra("eval", "evaluation plots"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    return plt


def _save(fig: Any, plt: Any, path: Path) -> Path:
    try:
        fig.tight_layout()
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise InputError(f"cannot write plot {path}: {exc}") from exc
    finally:
        plt.close(fig)
    return path


def bar_chart(path: str | Path, values: Mapping[str, float | None], *, title: str, ylabel: str) -> Path:
    """One bar per label (None is drawn as an empty slot), values as percentages above the bars."""
    plt = _pyplot()
    labels = list(values)
    heights = [100 * (values[k] or 0.0) for k in labels]
    fig, ax = plt.subplots(figsize=(7, 4))
    bars = ax.bar(labels, heights, color="#4c72b0")
    for bar, label in zip(bars, labels, strict=True):
        if values[label] is not None:
            ax.annotate(
                f"{bar.get_height():.1f}",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=9,
            )
    ax.set_ylim(0, 105)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return _save(fig, plt, Path(path))


def line_chart(
    path: str | Path,
    series: Mapping[str, Sequence[tuple[float, float | None]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
) -> Path:
    """One line per series of (x, value) points; values are fractions drawn as percentages."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, points in series.items():
        kept = [(x, 100 * y) for x, y in points if y is not None]
        if kept:
            xs, ys = zip(*kept, strict=True)
            ax.plot(xs, ys, marker="o", label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=8)
    return _save(fig, plt, Path(path))


def category_plots(out: Path, report: Report) -> list[Path]:
    """``recall_by_category.png`` and, when answers were scored, ``f1_by_category.png``."""
    variant = report.info.get("variant", "anchormem")
    paths = [
        bar_chart(
            out / "recall_by_category.png",
            {n: r.recall for n, r in report.recall.items()},
            title=f"Evidence recall by category ({variant})",
            ylabel="recall (%)",
        )
    ]
    if report.score is not None:
        score = report.score
        f1 = {name: score.categories[c].f1 if c in score.categories else None for c, name in TABLE_ORDER}
        f1["Average"] = score.overall.f1
        paths.append(
            bar_chart(out / "f1_by_category.png", f1, title=f"Answer F1 by category ({variant})", ylabel="F1 (%)")
        )
    return paths
