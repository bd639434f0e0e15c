"""Evidence recall and reader budget of the offline (or pack) path on any LoCoMo-layout file, through the
library's own chunking, anchor extraction, event linking, retrieval and rendering — what
``anchormem eval locomo --no-answer`` measures, without the store, so that chunking and scoring variants
can be compared in seconds (anchor vectors are cached per text on disk).

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/recall/chat_recall.py \
        --data ../shared/data/realtalk_dev.json [--chunking paper] [--variant anchormem]

Prints recall per category, overall, and the mean rendered memory block (``context_chars``) per question.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from anchormem.answer.render import render_memories
from anchormem.config import ChunkSettings, EmbedSettings, GraphSettings, RetrievalSettings
from anchormem.embed.factory import open_embedder
from anchormem.eval.evidence import evidence_recall
from anchormem.eval.qa import questions_from_samples, read_samples, select_samples
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.ingest.chunk import chunk_session
from anchormem.ingest.extract import extract_offline, make_facts
from anchormem.ingest.integrate import attach_events, extractive_event, mean_vectors
from anchormem.ingest.link import build_clusters
from anchormem.ingest.precomputed import load_events, load_facts
from anchormem.ingest.sources import parse_locomo
from anchormem.model import Context, Fact, Scope, Turn
from anchormem.search.retrieve import RECIPES, Recipe, retrieve_with

CACHE = Path("/tmp/anchormem-chat-recall.sqlite")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


class VectorCache:
    """MiniLM vectors per text (the library's own embedder), kept in a SQLite file."""

    def __init__(self, path: Path = CACHE) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE IF NOT EXISTS v (k TEXT PRIMARY KEY, v BLOB)")
        self.embedder = open_embedder(EmbedSettings(), query_cache_size=0)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            rows = self.db.execute(f"SELECT k, v FROM v WHERE k IN ({','.join('?' * len(part))})", part)
            found.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        missing = sorted({(k, t) for k, t in zip(keys, texts, strict=True) if k not in found})
        if missing:
            vecs = np.asarray(self.embedder.embed([t for _, t in missing]), dtype=np.float32)
            for (k, _), vec in zip(missing, vecs, strict=True):
                found[k] = vec
            self.db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", [(k, found[k].tobytes()) for k, _ in missing])
            self.db.commit()
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([found[k] for k in keys])


@dataclass
class Built:
    sample_id: str
    snapshot: ScopeSnapshot
    turns: dict[str, Turn]


def build(
    sample: dict,
    chunking: ChunkSettings,
    embed: VectorCache,
    facts_path: Path | None = None,
    events_path: Path | None = None,
) -> Built:
    sid = sample["sample_id"]
    scope = Scope(user_id=sid)
    conv = parse_locomo([sample])[0]
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for t in conv.turns:
        by_session[t.session].append(t)
    contexts: list[Context] = []
    for session_turns in by_session.values():
        contexts.extend(chunk_session(scope, session_turns, chunking))
    turns = {t.id: t for t in conv.turns}
    given = load_facts(facts_path, sid) if facts_path else {}
    facts: list[Fact] = []
    for c in contexts:
        if c.turn_ids in given:
            facts.extend(make_facts(c, given[c.turn_ids], "pack"))
        else:
            facts.extend(make_facts(c, extract_offline(c, turns), "offline"))
    fvecs = embed([f.text for f in facts])
    if events_path:
        events, _ = attach_events(load_events(events_path, sid), facts)
        evecs = embed([e.text for e in events])
    else:
        graph = GraphSettings()
        linked = build_clusters(facts, fvecs, tau=graph.tau, n_neighbors=graph.n_neighbors)
        by_id = {f.id: f for f in facts}
        index = {f.id: i for i, f in enumerate(facts)}
        events = [extractive_event(c, by_id) for c in linked.kept]
        evecs = mean_vectors([[index[f] for f in c.fact_ids] for c in linked.kept], fvecs)
    snapshot = ScopeSnapshot(contexts, facts, fvecs, events, evecs, window_chars=chunking.chat_chars)
    return Built(sid, snapshot, turns)


def evaluate(
    built: list[Built],
    questions: dict[str, list],
    qvecs: dict[str, np.ndarray],
    recipe: Recipe,
    settings: RetrievalSettings | None = None,
    per_question: list[dict] | None = None,
) -> dict[str, float]:
    settings = settings or RetrievalSettings()
    per_cat: dict[int, list[float]] = defaultdict(list)
    chars: list[int] = []
    per_sample: dict[str, list[float]] = defaultdict(list)
    per_sample_chars: dict[str, list[float]] = defaultdict(list)
    for b in built:
        for q, vec in zip(questions[b.sample_id], qvecs[b.sample_id], strict=True):
            res = retrieve_with(b.snapshot, q.question, vec, settings, recipe)
            chars.append(len(render_memories(res)))
            per_sample_chars[b.sample_id].append(chars[-1])
            r = evidence_recall(q.evidence, res.turn_ids)
            if r is None:
                continue
            per_cat[q.category].append(r)
            per_sample[b.sample_id].append(r)
            if per_question is not None:
                per_question.append(
                    {
                        "sample_id": b.sample_id,
                        "question": q.question,
                        "category": q.category,
                        "evidence": list(q.evidence),
                        "recall": r,
                        "chars": chars[-1],
                        "retrieved": res.turn_ids,
                    }
                )
    out = {CATEGORIES[c]: float(np.mean(v)) for c, v in sorted(per_cat.items())}
    out["overall"] = float(np.mean([x for v in per_cat.values() for x in v]))
    out["chars"] = float(np.mean(chars))
    for sid, v in per_sample.items():
        out[sid] = float(np.mean(v))
        out[sid + ":chars"] = float(np.mean(per_sample_chars[sid]))
    return out


def fmt(name: str, r: dict[str, float]) -> str:
    cats = " ".join(f"{k[:5]}={r[k]:.3f}" for k in CATEGORIES.values() if k in r)
    return f"{name:34s} overall={r['overall']:.4f} chars={r['chars']:.0f} {cats}"


def load(data: Path, samples: str | None, chunking: ChunkSettings, facts: Path | None, events: Path | None):  # type: ignore[no-untyped-def]
    raw = select_samples(read_samples(data), samples.split(",") if samples else None)
    embed = VectorCache()
    built = [build(s, chunking, embed, facts, events) for s in raw]
    qs: dict[str, list] = defaultdict(list)
    for q in questions_from_samples(raw):
        qs[q.sample_id].append(q)
    qvecs = {sid: embed([q.question for q in v]) for sid, v in qs.items()}
    return built, qs, qvecs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--samples")
    ap.add_argument("--facts", type=Path)
    ap.add_argument("--events", type=Path)
    ap.add_argument("--chunking", action="append", default=None, help="key=value,... of ChunkSettings, or 'default'")
    ap.add_argument("--variant", action="append")
    ap.add_argument("--dump", type=Path, help="per-question records (JSONL) of the first run")
    args = ap.parse_args()
    for spec in args.chunking or ["default"]:
        chunking = parse_chunking(spec)
        built, qs, qvecs = load(args.data, args.samples, chunking, args.facts, args.events)
        for v in args.variant or ["anchormem"]:
            rows: list[dict] = []
            r = evaluate(built, qs, qvecs, RECIPES[v], per_question=rows)
            n_ctx = sum(len(b.snapshot.contexts) for b in built)
            print(fmt(f"{spec} / {v} ({n_ctx} ctx)", r), flush=True)
            print(
                "   per sample: "
                + " ".join(f"{b.sample_id}={r[b.sample_id]:.3f}/{r[b.sample_id + ':chars']:.0f}" for b in built),
                flush=True,
            )
            if args.dump:
                args.dump.write_text("".join(json.dumps(x) + "\n" for x in rows))
                args.dump = None


def parse_chunking(spec: str) -> ChunkSettings:
    if spec == "default":
        return ChunkSettings()
    if spec == "paper":
        return ChunkSettings.paper()
    kwargs: dict[str, object] = {}
    for part in spec.split(","):
        key, _, value = part.partition("=")
        default = getattr(ChunkSettings, key)
        kwargs[key] = type(default)(value)
    return ChunkSettings(**kwargs)  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
