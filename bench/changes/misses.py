"""Per update question: where the newest statement lands and what took the top 3 (offline path, no LLM).

    PYTHONPATH=src python bench/changes/misses.py --data bench/data/changes_unseen.json [--store DIR]
        [--all] [--no-recency]

``--store DIR`` keeps each data file's memory in DIR (built once, reused on later runs), so that a
change to the query code can be looked at without embedding the chat again. Prints, for every update
question whose newest statement is not in the top 3 (``--all``: every update question), the newest
statement's rank and score at 10 contexts and the top 3 contexts (session date, score, first words).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from changes_bench import search  # bench/changes is on the path when this file runs as a script

from anchormem import Memory, Settings
from anchormem.config import EmbedSettings
from anchormem.eval.locomo import add_locomo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--store", default="")
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--no-recency", action="store_true")
    args = parser.parse_args()
    data = Path(args.data)
    samples = json.loads(data.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.store or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db = folder / f"{data.stem}.db"
        fresh = not db.exists()
        memory = Memory(Settings(store=str(db), embed=EmbedSettings(backend="minilm")))
        try:
            for sample in samples:
                user = sample["sample_id"]
                if fresh:
                    add_locomo(memory, data, sample=user, user_id=user)
                for qa in sample["qa"]:
                    if qa.get("kind", "update") != "update":
                        continue
                    gold = set(qa["evidence"])
                    r3 = search(memory, user, qa["question"], 3, not args.no_recency)
                    hit = gold <= set(r3.turn_ids)
                    if hit and not args.all:
                        continue
                    r10 = search(memory, user, qa["question"], 10, not args.no_recency)
                    holder = [h for h in r10.contexts if gold <= set(h.context.turn_ids)]
                    where = f"rank {holder[0].rank} score {holder[0].score:.3f}" if holder else "not in top 10"
                    print(f"{'HIT ' if hit else 'MISS'} {user} {qa['question']!r} gold={sorted(gold)}: {where}")
                    for h in r3.contexts:
                        text = " ".join(h.context.text.split())[:220]
                        print(f"    {h.rank} {h.score:.3f} {h.latest} {h.context.session} {text}")
        finally:
            memory.close()


if __name__ == "__main__":
    main()
