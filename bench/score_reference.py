"""Score the AnchorMem authors' released answers with our scorer (the acceptance check).

    PYTHONPATH=src .venv/bin/python bench/score_reference.py [--data DIR]

Expected: F1 0.4582 and BLEU-1 0.3645 over 762 questions (first five LoCoMo conversations).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from anchormem.eval.score import format_markdown, score_answers

EXPECTED = {"count": 762, "f1": 0.4582, "bleu1": 0.3645}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"), help="folder with the LoCoMo files")
    args = parser.parse_args()
    report = score_answers(
        args.data / "locomo10.json",
        args.data / "locomo_reference_answers_qwen2.5-7b.jsonl",
        samples=["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"],
    )
    print(format_markdown(report, label="AnchorMem released run (Qwen2.5-7B)"))
    for cat, score in report.categories.items():
        print(f"category {cat} {score.name:<12} n={score.count:<4} F1={score.f1:.4f} BLEU-1={score.bleu1:.4f}")
    overall = report.overall
    print(f"overall               n={overall.count:<4} F1={overall.f1:.4f} BLEU-1={overall.bleu1:.4f}")
    ok = (
        overall.count == EXPECTED["count"]
        and f"{overall.f1:.4f}" == f"{EXPECTED['f1']:.4f}"
        and f"{overall.bleu1:.4f}" == f"{EXPECTED['bleu1']:.4f}"
    )
    print("matches the reference numbers" if ok else f"DOES NOT match the reference {EXPECTED}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
