"""Scores of the answers benchmark, with the key: accuracy by system, spelling and question kind;
the share of wrong answers whose evidence was, or was not, shown in the block; F1 and BLEU-1 of the
answers (LoCoMo's metrics) by kind. And the cheap proxy: each question's answer terms all inside the
block (the evidence messages all shown where a question has no terms)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from anchormem.eval.answers.tasks import KeyEntry
from anchormem.eval.metrics import bleu1, f1_score
from anchormem.model.reports import Tally

__all__ = ["Cell", "format_by_kind", "format_proxy", "format_scores", "proxy_table", "score_table"]

ORDER = ("stable", "current", "earlier", "date", "multi", "multi-hop", "temporal", "open-domain", "single-hop")


@dataclass
class Cell(Tally):
    """Counts of the tasks of one system, spelling and kind (one task: a cell whose ``n`` is 1)."""

    n: int = 0
    right: int = 0
    f1: float = 0.0
    bleu1: float = 0.0
    evidence_shown: int = 0
    wrong_shown: int = 0  # wrong answers whose evidence was all in the block
    wrong_hidden: int = 0  # wrong answers whose evidence was not

    def pct(self, value: float) -> str:
        return f"{100 * value / self.n:.1f}%" if self.n else "-"


def score_table(
    key: Mapping[str, KeyEntry], answers: Mapping[str, object], verdicts: Mapping[str, object]
) -> dict[tuple[str, str, str], Cell]:
    """Cells by (system, spelling, kind), kind ``all`` included, over the tasks the judge graded."""
    cells: dict[tuple[str, str, str], Cell] = defaultdict(Cell)
    for task_id, verdict in verdicts.items():
        entry = key[task_id]
        answer = str(answers.get(task_id, ""))
        shown = bool(entry.evidence_shown)
        graded = Cell(
            n=1,
            right=int(bool(verdict)),
            f1=f1_score(answer, entry.answer),
            bleu1=bleu1(answer, entry.answer),
            evidence_shown=int(shown),
            wrong_shown=int(not verdict and shown),
            wrong_hidden=int(not verdict and not shown),
        )
        _count(cells, entry, graded)
    return dict(cells)


def _count(cells: dict[tuple[str, str, str], Cell], entry: KeyEntry, task: Cell) -> None:
    """Add one task's cell to its kind's and to ``all`` of its system and spelling."""
    for kind in (entry.kind, "all"):
        cells[(entry.system, entry.spelling, kind)].add(task)


def _kinds(cells: Mapping[tuple[str, str, str], Cell]) -> list[str]:
    seen = {kind for _, _, kind in cells if kind != "all"}
    return [k for k in ORDER if k in seen] + sorted(seen - set(ORDER))


def _groups(cells: Mapping[tuple[str, str, str], Cell], systems: Sequence[str]) -> list[tuple[str, str]]:
    pairs = {(s, sp) for s, sp, _ in cells}
    rank = {s: i for i, s in enumerate(systems)}
    return sorted(pairs, key=lambda p: (p[1], rank.get(p[0], 99), p[0]))


def _kind_row(
    cells: Mapping[tuple[str, str, str], Cell], system: str, spelling: str, kinds: Sequence[str]
) -> tuple[Cell, list[str]]:
    """The (system, spelling)'s total and the start of its row: n, right, and right by kind."""
    total = cells[(system, spelling, "all")]
    row = [system, spelling, str(total.n), total.pct(total.right)]
    for kind in kinds:
        cell = cells.get((system, spelling, kind))
        row.append(cell.pct(cell.right) if cell else "-")
    return total, row


def format_scores(cells: Mapping[tuple[str, str, str], Cell], systems: Sequence[str]) -> str:
    """Markdown: one row per (system, spelling): right, right by kind, evidence shown, wrong answers
    with the evidence shown / not shown, F1 and BLEU-1."""
    kinds = _kinds(cells)
    head = ["system", "spelling", "n", "right", *kinds, "evidence shown", "wrong: shown / not", "F1", "BLEU-1"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system, spelling in _groups(cells, systems):
        total, row = _kind_row(cells, system, spelling, kinds)
        row += [
            total.pct(total.evidence_shown),
            f"{total.wrong_shown} / {total.wrong_hidden}",
            f"{total.f1 / total.n:.3f}" if total.n else "-",
            f"{total.bleu1 / total.n:.3f}" if total.n else "-",
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def format_by_kind(cells: Mapping[tuple[str, str, str], Cell], systems: Sequence[str]) -> str:
    """Markdown: for each (system, spelling), one row per kind: judge accuracy, F1 and BLEU-1 (in
    percent, as the paper's Table 1 gives them) and the share of blocks showing every evidence message."""
    head = ["system", "spelling", "kind", "n", "judge", "F1", "BLEU-1", "evidence shown"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system, spelling in _groups(cells, systems):
        for kind in [*_kinds(cells), "all"]:
            cell = cells.get((system, spelling, kind))
            if cell is None or not cell.n:
                continue
            row = [system, spelling, kind, str(cell.n), cell.pct(cell.right)]
            row += [f"{100 * cell.f1 / cell.n:.2f}", f"{100 * cell.bleu1 / cell.n:.2f}", cell.pct(cell.evidence_shown)]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def proxy_table(key: Mapping[str, KeyEntry]) -> dict[tuple[str, str, str], Cell]:
    """The cheap proxy, no reader: a task counts ``right`` when its answer terms are all in the block
    (its evidence messages all shown, for a question without terms); ``evidence_shown`` beside it."""
    cells: dict[tuple[str, str, str], Cell] = defaultdict(Cell)
    for entry in key.values():
        hit = entry.terms_shown if entry.terms_shown is not None else entry.evidence_shown
        _count(cells, entry, Cell(n=1, right=int(bool(hit)), evidence_shown=int(entry.evidence_shown)))
    return dict(cells)


def format_proxy(cells: Mapping[tuple[str, str, str], Cell], systems: Sequence[str], *, with_terms: int) -> str:
    kinds = _kinds(cells)
    head = ["system", "spelling", "n", "answer in block", *kinds, "evidence shown"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system, spelling in _groups(cells, systems):
        total, row = _kind_row(cells, system, spelling, kinds)
        row.append(total.pct(total.evidence_shown))
        lines.append("| " + " | ".join(row) + " |")
    lines.append(f"\n{with_terms} tasks judged by their answer terms; the others by their evidence messages all shown.")
    return "\n".join(lines)
