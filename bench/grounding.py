"""How the grounding rule (anchormem.ingest.grounding) judges LLM-extracted facts, on the Qwen2.5-7B
fact pack of LoCoMo (../shared/data/locomo_facts_qwen2.5-7b.jsonl: 6,953 facts of 1,414 passages).

- kept: facts checked against the passage they were extracted from (should pass);
- prompt examples: the extraction prompt's two example facts checked against every passage (the
  hallucination seen with the small real LLM: names copied from the prompt; should fail);
- moved: each fact checked against a passage of another conversation, same session number (should fail).

    python bench/grounding.py [--pack PATH]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from anchormem.ingest.grounding import ContextWords, check

PACK = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_facts_qwen2.5-7b.jsonl"
PROMPT_EXAMPLES = [
    "Anna adopted a puppy named Max on 2 June 2023.",
    "Ben is going to run the Boston marathon in July 2023.",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pack", type=Path, default=PACK)
    ap.add_argument("--show", type=int, default=0, help="print this many dropped own-passage facts")
    args = ap.parse_args()
    records = [json.loads(line) for line in args.pack.read_text("utf-8").splitlines() if line.strip()]
    words = [ContextWords(r["passage"]) for r in records]
    own = Counter()
    reasons = Counter()
    dropped = []
    for r, w in zip(records, words, strict=True):
        for fact in r["facts"]:
            g = check(fact, w)
            own[g.grounded] += 1
            if not g.grounded:
                reasons["names" if g.missing_names else "numbers" if g.missing_numbers else "words"] += 1
                dropped.append((fact, g.reason))
    examples = Counter(check(f, w).grounded for w in words for f in PROMPT_EXAMPLES)
    rng = random.Random(0)
    moved = Counter()
    for r in records:
        others = [i for i, o in enumerate(records) if o["sample_id"] != r["sample_id"]]
        target = words[rng.choice(others)]
        for fact in r["facts"]:
            moved[check(fact, target).grounded] += 1
    n = sum(own.values())
    print(f"own passage: {own[True]:,} of {n:,} kept ({own[True] / n:.1%}); dropped by {dict(reasons)}")
    print(f"prompt examples: {examples[False]:,} of {sum(examples.values()):,} refused")
    print(f"moved to another conversation: {moved[False]:,} of {sum(moved.values()):,} refused")
    for fact, reason in rng.sample(dropped, min(args.show, len(dropped))):
        print(f"  dropped: {fact!r}: {reason}")


if __name__ == "__main__":
    main()
