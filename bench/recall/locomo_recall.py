"""Evidence recall of the retrieval recipes on LoCoMo (first five conversations = the pack's five).

    PYTHONPATH=src .venv/bin/python bench/recall/locomo_recall.py --path pack --variant anchormem

Builds real ScopeSnapshots and calls the real ``retrieve``; recall = |gold turns ∩ retrieved
contexts' turns| / |gold|, averaged over the category 1-4 questions that have evidence.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import recipes  # noqa: F401  (registers the experiment recipes)
from embed_cache import embed

from anchormem.config import RetrievalSettings
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.ingest.offline import extract_anchors
from anchormem.model import Context, Event, Fact, SearchResult, Turn, stable_id
from anchormem.search.retrieve import RECIPES, Recipe, retrieve_with

DATA = Path("/work/shared/data")
PACK_SAMPLES = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
HELD_OUT_SAMPLES = ("conv-44", "conv-47", "conv-48", "conv-49", "conv-50")  # no pack: offline path only
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass
class Question:
    text: str
    category: int
    gold: frozenset[str]


@dataclass
class Conversation:
    sample_id: str
    snapshot: ScopeSnapshot
    questions: list[Question]
    query_vectors: np.ndarray


def load_locomo() -> dict[str, dict]:
    return {s["sample_id"]: s for s in json.loads((DATA / "locomo10.json").read_text())}


def sessions(sample: dict) -> list[tuple[int, str, list[dict]]]:
    conv = sample["conversation"]
    nums = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    return [(n, conv[f"session_{n}_date_time"], conv[f"session_{n}"]) for n in nums]


def clean_gold(evidence: list[str], turn_ids: set[str]) -> frozenset[str]:
    out: set[str] = set()
    for item in evidence:
        for token in re.split(r"[;,\s]+", item):
            m = re.fullmatch(r"D:?(\d+):(\d+)", token.strip())
            if m:
                tid = f"D{int(m.group(1))}:{int(m.group(2))}"
                if tid in turn_ids:
                    out.add(tid)
    return frozenset(out)


def questions_of(sample: dict) -> tuple[list[Question], list[str]]:
    turn_ids = {t["dia_id"] for _, _, turns in sessions(sample) for t in turns}
    qs, texts = [], []
    for qa in sample["qa"]:
        if qa["category"] not in CATEGORIES:
            continue
        texts.append(qa["question"])  # embedded for all (cache key), scored only with evidence
        qs.append(Question(qa["question"], qa["category"], clean_gold(qa.get("evidence", []), turn_ids)))
    return qs, texts


def render_turn(t: dict) -> str:
    line = f'{t["speaker"]} said, "{t["text"]}"'
    if t.get("blip_caption"):
        line += f" and shared {t['blip_caption']}."
    return line


def offline_contexts(sample: dict) -> tuple[list[Context], dict[str, list[Turn]]]:
    contexts: list[Context] = []
    turns_of: dict[str, list[Turn]] = {}
    sid = sample["sample_id"]
    for n, date, turns in sessions(sample):
        for pos, start in enumerate(range(0, len(turns), 2)):
            window = turns[start : start + 3]
            text = "\n".join([f"DATE: {date}"] + [render_turn(t) for t in window])
            ctx = Context(
                id=stable_id("ctx", sid, str(n), str(pos)),
                session=str(n),
                position=pos,
                turn_ids=tuple(t["dia_id"] for t in window),
                date=date,
                text=text,
            )
            contexts.append(ctx)
            turns_of[ctx.id] = [
                Turn(t["dia_id"], str(n), start + j, t["speaker"], t["text"], date, t.get("blip_caption"))
                for j, t in enumerate(window)
            ]
    return contexts, turns_of


def extractive_events(
    facts: list[Fact], vecs: np.ndarray, tau: float = 0.85, n: int = 3
) -> tuple[list[Event], np.ndarray, int]:
    """AEG clusters per paper §4.2; event = the cluster's facts joined (the no-LLM path)."""
    sims = vecs @ vecs.T
    np.fill_diagonal(sims, -1.0)
    limit = math.ceil(n / 2)
    seen: set[tuple[int, ...]] = set()
    events: list[Event] = []
    ev_vecs: list[np.ndarray] = []
    discarded = 0
    for i in range(len(facts)):
        row = sims[i]
        cand = np.argsort(-row, kind="stable")[:n]
        neigh = [int(j) for j in cand if row[j] > tau]
        if not neigh:
            continue
        cluster = [i, *neigh]
        counts: dict[str, int] = defaultdict(int)
        for j in cluster:
            counts[facts[j].context_id] += 1
        if max(counts.values()) >= limit:
            discarded += 1
            continue
        key = tuple(sorted(cluster))
        if key in seen:
            continue
        seen.add(key)
        text = " ".join(facts[j].text for j in cluster)
        events.append(
            Event(
                stable_id("evt", *[facts[j].id for j in key]),
                text,
                tuple(facts[j].id for j in cluster),
                "extractive",
            )
        )
        v = vecs[cluster].mean(axis=0)
        ev_vecs.append(v / np.linalg.norm(v))
    arr = np.asarray(ev_vecs, dtype=np.float32).reshape(len(ev_vecs), vecs.shape[1])
    return events, arr, discarded


def build_pack(samples: dict[str, dict]) -> list[Conversation]:
    recs = [json.loads(line) for line in (DATA / "locomo_facts_qwen2.5-7b.jsonl").open()]
    evs = [json.loads(line) for line in (DATA / "locomo_events_qwen2.5-7b.jsonl").open()]
    out = []
    for sid in PACK_SAMPLES:
        contexts: list[Context] = []
        facts: list[Fact] = []
        pos_in_session: dict[int, int] = defaultdict(int)
        for r in (r for r in recs if r["sample_id"] == sid):
            pos = pos_in_session[r["session"]]
            pos_in_session[r["session"]] += 1
            ctx = Context(
                stable_id("ctx", sid, str(r["session"]), str(pos)),
                str(r["session"]),
                pos,
                tuple(r["dia_ids"]),
                r["date_time"],
                r["passage"],
            )
            contexts.append(ctx)
            for j, text in enumerate(r["facts"]):
                facts.append(Fact(stable_id("fact", ctx.id, str(j), text), ctx.id, text, "pack"))
        fvecs = embed([f.text for f in facts])
        by_text: dict[str, list[str]] = defaultdict(list)
        for f in facts:
            by_text[f.text].append(f.id)
        events = []
        for k, e in enumerate(x for x in evs if x["sample_id"] == sid):
            ids = tuple(fid for t in e["source_facts"] for fid in by_text.get(t, []))
            events.append(Event(stable_id("evt", sid, str(k)), e["event"], ids, "pack"))
        evecs = embed([e.text for e in events])
        qs, qtexts = questions_of(samples[sid])
        out.append(Conversation(sid, ScopeSnapshot(contexts, facts, fvecs, events, evecs), qs, embed(qtexts)))
    return out


def build_offline(
    samples: dict[str, dict],
    extractor: Callable[[Context, list[Turn]], list[str]] = extract_anchors,
    sample_ids: tuple[str, ...] = PACK_SAMPLES,
) -> list[Conversation]:
    out = []
    for sid in sample_ids:
        contexts, turns_of = offline_contexts(samples[sid])
        facts = [
            Fact(stable_id("fact", c.id, str(j), a), c.id, a, "offline")
            for c in contexts
            for j, a in enumerate(extractor(c, turns_of[c.id]))
        ]
        fvecs = embed([f.text for f in facts])
        events, evecs, _ = extractive_events(facts, fvecs)
        qs, qtexts = questions_of(samples[sid])
        out.append(Conversation(sid, ScopeSnapshot(contexts, facts, fvecs, events, evecs), qs, embed(qtexts)))
    return out


def evaluate(convs: list[Conversation], recipe: Recipe, settings: RetrievalSettings | None = None) -> dict[str, float]:
    settings = settings or RetrievalSettings(max_contexts=10)  # the guards are measured at 10 contexts
    per_cat: dict[int, list[float]] = defaultdict(list)
    n_ctx: list[int] = []
    seconds = 0.0
    for conv in convs:
        conv.snapshot.warm()
        for q, vec in zip(conv.questions, conv.query_vectors, strict=False):
            if not q.gold:
                continue
            t0 = time.perf_counter()
            res: SearchResult = retrieve_with(conv.snapshot, q.text, vec, settings, recipe)
            seconds += time.perf_counter() - t0
            got = set(res.turn_ids)
            per_cat[q.category].append(len(q.gold & got) / len(q.gold))
            n_ctx.append(len(res.contexts))
    allv = [v for vs in per_cat.values() for v in vs]
    out = {CATEGORIES[c]: float(np.mean(per_cat[c])) for c in sorted(per_cat)}
    out["overall"] = float(np.mean(allv))
    out["n"] = len(allv)
    out["contexts"] = float(np.mean(n_ctx))
    out["ms_per_query"] = 1000 * seconds / max(len(allv), 1)
    return out


def fmt(name: str, r: dict[str, float]) -> str:
    cats = " ".join(f"{k[:5]}={r[k]:.3f}" for k in ("multi-hop", "temporal", "open-domain", "single-hop"))
    tail = f"ctx={r['contexts']:.1f} {r['ms_per_query']:.2f}ms n={r['n']}"
    return f"{name:40s} overall={r['overall']:.5f} {cats} {tail}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", choices=["pack", "offline"], default="pack")
    ap.add_argument("--variant", action="append")
    ap.add_argument("--held-out", action="store_true", help="offline path on the five held-out conversations")
    args = ap.parse_args()
    samples = load_locomo()
    if args.held_out:
        convs = build_offline(samples, sample_ids=HELD_OUT_SAMPLES)
    else:
        convs = build_pack(samples) if args.path == "pack" else build_offline(samples)
    for v in args.variant or [r for r in RECIPES if r != "chunks"]:  # chunks needs an embedder (Memory.search)
        print(fmt(f"{args.path}/{v}", evaluate(convs, RECIPES[v])), flush=True)


if __name__ == "__main__":
    main()
