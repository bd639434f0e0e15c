"""Newest-in-top-3 and evidence-in-top-10 on the change-over-time suite (offline path, no LLM).

    PYTHONPATH=src python bench/changes/changes_bench.py [--data bench/data/changes_over_time.json]
        [--embed minilm|hash] [--no-recency] [--verbose]

Data files: ``changes_over_time.json`` (the suite), ``changes_heldout.json``,
``changes_heldout_more.json``, ``changes_unseen.json``, ``changes_fresh.json``, ``changes_fresh2.json`` and
``changes_fresh3.json`` (chats written apart, each before the rule changes it was run on), and
``changes_fresh4.json`` … ``changes_fresh7.json`` (written blind by sessions that did not read the search
code; ``bench/changes/misses.py`` prints, per miss, what took the top 3).

Each chat goes into a fresh memory (offline anchors, extractive events); each question is searched
with ``max_contexts=3`` and ``max_contexts=10``. "Update" questions ask about the present and their
evidence is the newest statement: newest-in-top-3 counts those whose evidence turns are all inside
the 3 contexts returned; evidence-in-top-10 counts questions (update, past and static) whose evidence
is all inside the 10. "Static" questions ask, in the present tense, about
something said once that never changes (a sister's name). ``--no-recency`` switches the query-time
recency rule off for comparison. Also prints, for update questions at 10 contexts, how often the
context holding the newest statement is marked ``latest`` and how often a returned earlier statement
is marked ``earlier``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import replace
from pathlib import Path

from anchormem import Memory, Settings
from anchormem.config import EmbedSettings
from anchormem.eval.locomo import add_locomo
from anchormem.model import SearchResult
from anchormem.search.rerank.tense import asks_present
from anchormem.search.retrieve import RECIPES, query_vectors, retrieve_with
from anchormem.wire.scopes import make_scope

DATA = Path(__file__).parents[1] / "data" / "changes_over_time.json"


def search(memory: Memory, user: str, question: str, contexts: int, recency: bool) -> SearchResult:
    snap = memory.snapshot(make_scope(user, None, None))
    settings = replace(memory.settings.retrieval, max_contexts=contexts)
    if not recency:
        settings = replace(settings, rerankers=())
    vector, subject_vector = query_vectors(memory.embedder.embed, snap, question)
    return retrieve_with(snap, question, vector, settings, RECIPES["anchormem"], subject_vector)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--embed", default="minilm")
    parser.add_argument("--no-recency", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    samples = json.loads(Path(args.data).read_text(encoding="utf-8"))
    recency = not args.no_recency
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(store=str(Path(tmp) / "m.db"), embed=EmbedSettings(backend=args.embed))
        memory = Memory(settings)
        try:
            for sample in samples:
                user = sample["sample_id"]
                add_locomo(memory, Path(args.data), sample=user, user_id=user)
                for qa in sample["qa"]:
                    gold = set(qa["evidence"])
                    r3 = search(memory, user, qa["question"], 3, recency)
                    r10 = search(memory, user, qa["question"], 10, recency)
                    holder = [h for h in r10.contexts if gold <= set(h.context.turn_ids)]
                    earlier = [h for h in r10.contexts if h.latest is False]
                    rows.append(
                        {
                            "sample": user,
                            "kind": qa.get("kind", "update"),
                            "question": qa["question"],
                            "present": asks_present(qa["question"]),
                            "top3": gold <= set(r3.turn_ids),
                            "top10": gold <= set(r10.turn_ids),
                            "rank10": holder[0].rank if holder else None,
                            "marked_latest": bool(holder) and holder[0].latest is True,
                            "any_earlier": bool(earlier),
                        }
                    )
        finally:
            memory.close()
    for kind in ("update", "past", "static"):
        part = [r for r in rows if r["kind"] == kind]
        if not part:
            continue
        top3 = sum(r["top3"] for r in part)
        top10 = sum(r["top10"] for r in part)
        print(
            f"{kind:6} questions {len(part):3}  evidence in top 3: {top3:3} ({top3 / len(part):.3f})  "
            f"in top 10: {top10:3} ({top10 / len(part):.3f})  asked about the present: "
            f"{sum(r['present'] for r in part)}"
        )
    upd = [r for r in rows if r["kind"] == "update"]
    print(
        f"update: newest statement's context marked latest at 10 contexts: "
        f"{sum(r['marked_latest'] for r in upd)}/{len(upd)}; a returned context marked earlier: "
        f"{sum(r['any_earlier'] for r in upd)}/{len(upd)}"
    )
    print(f"recency rule: {'on' if recency else 'off'}")
    if args.verbose:
        for r in rows:
            if not r["top3"] or not r["top10"]:
                print(
                    f"  miss  {r['sample']}  {r['kind']:6} top3={r['top3']!s:5} top10={r['top10']!s:5} "
                    f"rank@10={r['rank10']}  present={r['present']}  {r['question']}"
                )


if __name__ == "__main__":
    main()
