"""What events add beside the returned contexts, on a memory built by ``anchormem eval locomo``.

    PYTHONPATH=src python bench/changes/events_value.py --store RUN/memory.db \
        --data ../shared/data/locomo10.json --samples conv-26,conv-30,conv-41,conv-42,conv-43

For every question (categories 1-4 with evidence) the default search is run (10 contexts, top-10
events). Printed, as means per question: the events a search would return without the rule that
drops events adding nothing (their source contexts all returned) and with it; the characters of the
rendered ``Events:`` section and of the whole memory block (as ``context_chars`` counts them);
evidence recall of the contexts alone; and the recall the kept events' source facts would add — the
gold turns missing from the contexts but inside a kept event's source contexts ("recall on the
facts they cover"). Dropped events cannot add any: their source turns are all in the contexts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from anchormem import Memory, Settings
from anchormem.answer.render import render_memories
from anchormem.eval.evidence import evidence_recall
from anchormem.eval.qa import load_questions
from anchormem.model import EventHit, SearchResult
from anchormem.search.retrieve import contexts_of, top_rows
from anchormem.wire.scopes import make_scope


def events_section(result: SearchResult, events: tuple[EventHit, ...]) -> int:
    return len(render_memories(SearchResult(query=result.query, contexts=(), events=events)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--samples", default=None)
    args = parser.parse_args()
    samples = args.samples.split(",") if args.samples else None
    questions = [q for q in load_questions(args.data, samples) if q.evidence]
    memory = Memory(Settings(store=str(Path(args.store).expanduser())))
    rows: dict[str, list[float]] = {
        k: []
        for k in (
            "events_all",
            "events_kept",
            "chars_all",
            "chars_kept",
            "block_all",
            "block_kept",
            "recall_contexts",
            "recall_plus_events",
        )
    }
    try:
        for q in questions:
            result = memory.search(q.question, user_id=q.sample_id)
            snap = memory.snapshot(make_scope(q.sample_id, None, None))
            vector = memory.embedder.embed([q.question])[0]
            k = memory.settings.retrieval.k_events
            every = top_rows(snap.event_vectors @ vector, k) if snap.events and snap.event_vectors.size else []
            all_hits = tuple(EventHit(snap.events[e], s) for e, s in every)
            kept_turns: set[str] = set()
            for hit in result.events:
                rows_of = contexts_of(snap, [snap.fact_row[f.id] for f in hit.facts if f.id in snap.fact_row])
                for r in rows_of:
                    kept_turns.update(snap.contexts[r].turn_ids)
            got = set(result.turn_ids)
            rows["events_all"].append(len(all_hits))
            rows["events_kept"].append(len(result.events))
            rows["chars_all"].append(events_section(result, all_hits))
            rows["chars_kept"].append(events_section(result, result.events))
            block_contexts = len(render_memories(SearchResult(result.query, result.contexts, (), result.reading_order)))
            rows["block_all"].append(block_contexts + (2 + rows["chars_all"][-1] if all_hits else 0))
            rows["block_kept"].append(len(render_memories(result)))
            rows["recall_contexts"].append(evidence_recall(q.evidence, sorted(got)))
            rows["recall_plus_events"].append(evidence_recall(q.evidence, sorted(got | kept_turns)))
    finally:
        memory.close()
    print(f"questions {len(questions)}  store {args.store}")
    for key, values in rows.items():
        print(f"  {key:20s} {float(np.mean(values)):10.4f}")


if __name__ == "__main__":
    main()
