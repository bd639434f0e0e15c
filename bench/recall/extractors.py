"""Compare LLM-free anchor extractors on the offline path (default recipe):

OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/recall/extractors.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from locomo_recall import build_offline, evaluate, fmt, load_locomo

from anchormem.ingest.offline import extract_anchors
from anchormem.model import Context, Turn
from anchormem.search.retrieve import RECIPES


def whole_turns(context: Context, turns: list[Turn]) -> list[str]:
    """One anchor per turn: "Speaker: text" (+ the photo caption)."""
    out = []
    for t in turns:
        text = f"{t.speaker}: {t.text}"
        if t.image_caption:
            text += f" {t.speaker} shared {t.image_caption}."
        out.append(text)
    return out


def main() -> None:
    samples = load_locomo()
    for name, extractor in (("sentences (default)", extract_anchors), ("whole turns", whole_turns)):
        convs = build_offline(samples, extractor)
        n = sum(len(c.snapshot.facts) for c in convs)
        print(fmt(f"offline {name} ({n} anchors)", evaluate(convs, RECIPES["anchormem"])), flush=True)


if __name__ == "__main__":
    main()
