"""Event integration: a kept cluster in, one event narrative out (paper §4.2).

With an LLM, the integration prompt writes the narrative from the cluster's
(context, fact) pairs. Without one, the event is extractive: the cluster's fact
texts joined, with the mean of their vectors as its vector (no extra embedding),
and only a cluster that ties facts of separate messages is one (:func:`joins_apart`):
windows overlap by a message, so one sentence of that message is a fact of two
contexts, and a "cluster" of the two is that sentence twice, not an event.
Precomputed events attach to facts by their source fact texts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

import numpy as np

from anchormem.ingest.link import Cluster
from anchormem.llm.protocol import LLM
from anchormem.llm.structured import complete_parsed
from anchormem.model import Context, Event, Fact, stable_id
from anchormem.prompts import events as events_prompt
from anchormem.store.protocol import Matrix
from anchormem.text.dates import parse_when


def integrate_with_llm(llm: LLM, cluster: Cluster, contexts: Mapping[str, Context], facts: Mapping[str, Fact]) -> Event:
    """The cluster's event, with the supersession links the answer lists between its excerpts' facts
    (``events-v2``: the newer excerpt's fact supersedes the older one's)."""
    pairs = [(contexts[cid].text, facts[fid].text) for cid, fid in cluster.pairs]
    dates = [parse_when(contexts[cid].date) for cid, _ in cluster.pairs]
    answer = complete_parsed(
        llm, events_prompt.build(pairs), partial(events_prompt.read, count=len(pairs), dates=dates)
    )
    links = tuple((cluster.pairs[c.newer - 1][1], cluster.pairs[c.older - 1][1], c.kind) for c in answer.changes)
    return Event(id=cluster.event_id, text=answer.text, fact_ids=cluster.fact_ids, source="llm", supersedes=links)


def extractive_event(cluster: Cluster, facts: Mapping[str, Fact]) -> Event:
    """The cluster's fact texts joined, each sentence once: windows overlap by a turn, so one
    sentence is often a fact of two contexts of the same cluster."""
    texts: dict[str, str] = {}
    for fid in cluster.fact_ids:
        texts.setdefault(_norm(facts[fid].text), facts[fid].text.strip())
    text = " ".join(texts.values())
    return Event(id=cluster.event_id, text=text, fact_ids=cluster.fact_ids, source="extractive")


def joins_apart(cluster: Cluster, facts: Mapping[str, Fact], contexts: Mapping[str, Context]) -> bool:
    """Whether ``cluster`` joins two different facts whose contexts share no message (so the two
    come from different messages): the rule an extractive event has to meet."""
    members = [(facts[fid], contexts.get(facts[fid].context_id)) for fid in cluster.fact_ids if fid in facts]
    for i, (fact, context) in enumerate(members):
        for other, other_context in members[i + 1 :]:
            if context is None or other_context is None or context.id == other_context.id:
                continue
            if _norm(fact.text) == _norm(other.text):
                continue
            if not set(context.turn_ids) & set(other_context.turn_ids):
                return True
    return False


def mean_vectors(groups: Sequence[Sequence[int]], vectors: Matrix) -> Matrix:
    """L2-normalised mean of the given rows, one output row per group."""
    if not groups:
        return np.zeros((0, vectors.shape[1] if vectors.ndim == 2 else 0), dtype=np.float32)
    out = np.stack([vectors[list(g)].mean(axis=0) for g in groups]).astype(np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.where(norms == 0, 1.0, norms)).astype(np.float32)


def attach_events(records: Sequence[tuple[str, Sequence[str]]], facts: Sequence[Fact]) -> tuple[list[Event], int]:
    """Precomputed events → Events linked to the facts whose text matches a source fact.

    Returns the events and the number of records skipped because none of their
    source facts is in this memory. Source facts that match nothing are dropped.
    """
    by_text: dict[str, list[str]] = {}
    for f in facts:
        by_text.setdefault(_norm(f.text), []).append(f.id)
    events: list[Event] = []
    skipped = 0
    for text, sources in records:
        ids: dict[str, None] = {}
        for s in sources:
            for fid in by_text.get(_norm(s), []):
                ids.setdefault(fid, None)
        if not ids:
            skipped += 1
            continue
        fact_ids = tuple(ids)
        events.append(Event(id=stable_id("e", text, *sorted(fact_ids)), text=text, fact_ids=fact_ids, source="pack"))
    return events, skipped


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()
