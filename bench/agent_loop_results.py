"""What the agent loop's searches return and what its adds store, written out so that two versions of the code
can be compared: ``bench/agent_loop_mem0.py``'s messages (the development chats, 204 messages, each chat its own
user), anchormem alone on the offline default, a search with each user message, then the add of every message.

    PYTHONPATH=<src> .venv/bin/python bench/agent_loop_results.py --out A.json [--messages N]
    .venv/bin/python bench/agent_loop_results.py --compare A.json B.json

Per search: the contexts (ids, scores to the sixth decimal, their anchors) and events (ids, scores) in order;
at the end, per user, the counts of turns, contexts, facts and events and a SHA-256 of the facts' vectors in id
order. ``--compare`` says which searches differ (contexts or events, order or a score past 1e-4) and whether the
stores are equal; exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from agent_loop_mem0 import DATA, DEFAULT_DATA, load_messages

from anchormem import Memory
from anchormem.config import Settings
from anchormem.model import Scope, SearchResult


def summary(result: SearchResult) -> dict[str, Any]:
    return {
        "contexts": [
            [hit.context.id, round(hit.score, 6), [a.fact.id for a in hit.anchors]] for hit in result.contexts
        ],
        "events": [[hit.event.id, round(hit.score, 6)] for hit in result.events],
    }


def run(messages: int) -> dict[str, Any]:
    msgs = load_messages([DATA / name for name in DEFAULT_DATA])
    msgs = msgs[:messages] if messages else msgs
    searches: list[dict[str, Any]] = []
    stores: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="agent-loop-results-") as tmp:
        mem = Memory(Settings.load(env={}, store=str(Path(tmp) / "a.db")))
        try:
            for m in msgs:
                if m.role == "user":
                    searches.append(
                        {"user": m.user, "query": m.content, **summary(mem.search(m.content, user_id=m.user))}
                    )
                message = {"role": m.role, "content": m.content, "created_at": m.created_at, "session": m.session}
                mem.add([message], user_id=m.user)
            for user in sorted({m.user for m in msgs}):
                facts, matrix = mem.store.fact_matrix(Scope(user_id=user))
                order = sorted(range(len(facts)), key=lambda i: facts[i].id)
                vectors = np.ascontiguousarray(np.asarray(matrix)[order], dtype=np.float32)
                stores[user] = {
                    "turns": len(mem.turns(user_id=user)),
                    "contexts": len(mem.contexts(user_id=user)),
                    "facts": len(facts),
                    "events": len(mem.events(user_id=user)),
                    "fact_vectors_sha256": hashlib.sha256(vectors.tobytes()).hexdigest(),
                }
        finally:
            mem.close()
    return {"searches": searches, "stores": stores}


def close(a: list[Any], b: list[Any]) -> bool:
    """The same ids in the same order, the scores within 1e-4."""
    return len(a) == len(b) and all(x[0] == y[0] and abs(x[1] - y[1]) <= 1e-4 for x, y in zip(a, b, strict=True))


def compare(a_path: Path, b_path: Path) -> int:
    a, b = json.loads(a_path.read_text()), json.loads(b_path.read_text())
    differ = 0
    exact = 0
    for k, (x, y) in enumerate(zip(a["searches"], b["searches"], strict=True)):
        same = close(x["contexts"], y["contexts"]) and close(x["events"], y["events"])
        same = same and [c[2] for c in x["contexts"]] == [c[2] for c in y["contexts"]]
        exact += x == y
        if not same:
            differ += 1
            print(f"search {k} ({x['user']}): differs")
    stores_equal = a["stores"] == b["stores"]
    print(f"{len(a['searches'])} searches: {differ} differ, {exact} identical to the sixth decimal")
    print(f"stores (counts and the facts' vectors, bit for bit): {'equal' if stores_equal else 'DIFFER'}")
    return 1 if differ or not stores_equal else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--messages", type=int, default=0)
    ap.add_argument("--compare", nargs=2, type=Path)
    args = ap.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    if not args.out:
        ap.error("give --out FILE or --compare A B")
    args.out.write_text(json.dumps(run(args.messages)))


if __name__ == "__main__":
    main()
