"""The answers proxy (``anchormem eval proxy``'s rule: a question's answer terms all inside the default block, or
its evidence messages all shown for a question without terms) on a store built once, with where each miss lost
its evidence. ``anchormem eval proxy`` adds every chat to a fresh memory on each run, which for a 430,000-character
haystack is minutes of embedding; this adds each chat once (``--build``) and searches the store after every change
to the search (a change to ingest needs a new store).

    PYTHONPATH=src python bench/answers/make_haystacks.py --out /tmp/hay.json --chats bench/data/assistant/dev5_*.json \
        --filler <the other non-blind assistant chats> ../shared/data/locomo10.json ../shared/data/realtalk_dev.json
    PYTHONPATH=src python bench/answers/proxy_store.py --store /tmp/hay.db --data /tmp/hay.json --build
    PYTHONPATH=src python bench/answers/proxy_store.py --store /tmp/hay.db --data /tmp/hay.json --budget 10000 --misses

Each miss is put at the first stage that lost it: ``deep`` (no context holding the answer terms, or an evidence
message for a question without terms, ranks within the selection's candidate pool by relevance: every context is
scored, so this is the fusion of the signals, not a cut-off), ``pool`` (ranked within the pool, not returned),
``sibling`` (a context of the evidence message returned, not the one that holds the terms: another passage of a
long message) or ``packing`` (returned, left out of the block or shown by an excerpt without the terms).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

from anchormem.config import Settings
from anchormem.eval.answers.chats import Chat, ChatQuestion, load_chats
from anchormem.eval.answers.tasks import terms_in
from anchormem.index.ann import fact_scores
from anchormem.memory import Memory
from anchormem.search.recipes import recipe_named
from anchormem.search.retrieve import _relevance, query_vectors
from anchormem.wire.args import SEARCH_KEYS
from anchormem.wire.scopes import scope_of

SPEAKERS = {"third": "roles", "user": "roles", "named": "named"}


def build(memory: Memory, chats: list[Chat], spellings: list[str]) -> None:
    for chat in chats:
        for speakers in sorted({SPEAKERS[s] for s in spellings}):
            started = time.perf_counter()
            memory.add(chat.to_memory(speakers), user_id=f"{chat.sample_id}~{speakers}")
            print(f"added {chat.sample_id} ({speakers}) in {time.perf_counter() - started:.0f} s", flush=True)


def where_lost(memory: Memory, user: str, text: str, question: ChatQuestion, returned: set[str]) -> tuple[str, int]:
    """The stage that lost a missed question (module docstring) and the best relevance rank of a context that
    holds its answer (0: none does)."""
    snap = memory._snapshots.covering(scope_of({"user_id": user}, "search", SEARCH_KEYS), include_subscopes=True)
    assert snap is not None
    settings = memory.settings.retrieval
    recipe = recipe_named(settings.variant)
    vector, _ = query_vectors(memory._parts.embedder.embed, snap, text)
    values = _relevance(snap, text, fact_scores(snap, vector, 1000), [], recipe).values
    order = np.lexsort((np.arange(values.size), -values))
    rank = np.empty(values.size, dtype=np.int64)
    rank[order] = np.arange(1, values.size + 1)
    evidence = set(question.evidence)
    holding, of_evidence = [], []
    for row, context in enumerate(snap.contexts):
        if not evidence & set(context.turn_ids):
            continue
        of_evidence.append(row)
        if not question.answer_terms or terms_in(context.text, question.answer_terms):
            holding.append(row)
    best = min((int(rank[r]) for r in holding), default=0)
    if any(snap.contexts[r].id in returned for r in holding):
        return "packing", best
    if any(snap.contexts[r].id in returned for r in of_evidence):
        return "sibling", best
    pool = max(recipe.pool, 4 * settings.max_contexts)
    return ("pool" if best and best <= pool else "deep"), best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="SQLite store the chats are (or get) added to")
    parser.add_argument("--data", nargs="+", required=True, help="chat files in the LoCoMo layout")
    parser.add_argument("--build", action="store_true", help="add the chats to the store (once)")
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--spellings", default="third,named,user")
    parser.add_argument("--misses", action="store_true", help="list each miss with the stage that lost it")
    args = parser.parse_args()
    spellings = args.spellings.split(",")
    chats = [chat for path in args.data for chat in load_chats(Path(path))]
    memory = Memory(replace(Settings(), store=args.store))
    try:
        if args.build:
            build(memory, chats, spellings)
            return
        started = time.perf_counter()
        total: Counter[str] = Counter()
        right: Counter[str] = Counter()
        stages: Counter[str] = Counter()
        for chat in chats:
            for spelling in spellings:
                user = f"{chat.sample_id}~{SPEAKERS[spelling] if chat.role_based else 'named'}"
                for question in chat.questions:
                    text = question.spellings.get(spelling)
                    if text is None:
                        continue
                    result = memory.search(text, user_id=user)
                    block = result.prompt(max_chars=args.budget)
                    hit = terms_in(block.text, question.answer_terms)
                    if hit is None:
                        hit = bool(question.evidence) and set(question.evidence) <= set(block.turn_ids)
                    total[spelling] += 1
                    right[spelling] += bool(hit)
                    if hit or not args.misses:
                        continue
                    stage, best = where_lost(memory, user, text, question, {h.context.id for h in result.contexts})
                    stages[stage] += 1
                    print(f"  {stage:8s} best rank {best or '-':>5} {spelling:5s} {chat.sample_id}: {text}")
        for spelling in spellings:
            if total[spelling]:
                print(
                    f"{spelling}: {right[spelling]}/{total[spelling]} = {100 * right[spelling] / total[spelling]:.1f}%"
                )
        if stages:
            print("misses by stage:", dict(stages))
        print(f"({time.perf_counter() - started:.0f} s)")
    finally:
        memory.close()


if __name__ == "__main__":
    main()
