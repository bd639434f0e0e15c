"""LoCoMo's own table, answered: F1 / BLEU-1 / judge accuracy by category of a finished answers run,
beside the paper's Table 1 (AnchorMem rows; their readers were GPT-4o-mini, Qwen2.5-32B and Qwen2.5-7B).

    anchormem eval answers --data locomo10.json --samples conv-44,conv-47,conv-48,conv-49,conv-50 \
        --systems default --spellings third --out runs/locomo-heldout --reader-batch MODEL [...results]
    PYTHONPATH=src python bench/answers/locomo_table.py runs/locomo-heldout --reader "MODEL"
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from anchormem.eval.metrics import bleu1, f1_score

ORDER = ("single-hop", "multi-hop", "open-domain", "temporal", "all")
# AnchorMem (Ours), Table 1 of the paper: (F1, BLEU-1, judge accuracy) per category, in percent
PAPER = {
    "GPT-4o-mini": (
        (55.84, 44.38, 78.60),
        (34.45, 23.87, 56.03),
        (25.38, 17.91, 47.92),
        (55.09, 43.79, 68.85),
        (49.87, 38.85, 70.52),
    ),
    "Qwen2.5-32B-Instruct": (
        (57.82, 49.76, 78.83),
        (35.53, 25.71, 58.51),
        (25.62, 19.95, 44.79),
        (53.12, 45.26, 62.31),
        (50.57, 42.54, 69.54),
    ),
    "Qwen2.5-7B-Instruct": (
        (54.32, 45.46, 72.89),
        (34.50, 24.45, 55.67),
        (18.40, 15.37, 38.54),
        (43.85, 31.65, 40.81),
        (46.27, 36.86, 60.91),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a finished answers run directory (graded.jsonl)")
    parser.add_argument("--reader", default="the reader", help="which reader answered, for the table")
    parser.add_argument("--system", default="default")
    args = parser.parse_args()
    rows = [json.loads(line) for line in (Path(args.run) / "graded.jsonl").read_text(encoding="utf-8").splitlines()]
    sums: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for row in rows:
        if row["system"] != args.system:
            continue
        for kind in (row["kind"], "all"):
            cell = sums[kind]
            cell[0] += 1
            cell[1] += f1_score(row["reader_answer"], row["answer"])
            cell[2] += bleu1(row["reader_answer"], row["answer"])
            cell[3] += bool(row["correct"])
    print(f"| reader | {' | '.join(f'{k} F1 / BLEU-1 / judge' for k in ORDER)} |")
    print("|---" * (len(ORDER) + 1) + "|")
    cells = []
    for kind in ORDER:
        n, f1, bleu, right = sums.get(kind, [0, 0.0, 0.0, 0.0])
        cells.append(f"{100 * f1 / n:.2f} / {100 * bleu / n:.2f} / {100 * right / n:.2f} (n={n})" if n else "-")
    print(f"| {args.reader}, {args.system} block, this run | {' | '.join(cells)} |")
    for reader, figures in PAPER.items():
        print(f"| {reader}, the paper's AnchorMem | {' | '.join(' / '.join(f'{v:.2f}' for v in f) for f in figures)} |")


if __name__ == "__main__":
    main()
