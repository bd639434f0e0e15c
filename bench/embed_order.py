"""An add's texts on the one-by-one path (``OnnxMiniLMEmbedder``, at most ``ALONE_UP_TO`` texts a call), in the
order given against the longest first, side by side: the texts each add of the agent loop's messages embeds
(``bench/agent_loop_mem0.py``'s development chats, 204 messages; the texts are read from an add with the hash
embedder, which extracts the same facts), each set embedded both ways in turn, the first way alternating.

    PYTHONPATH=src:bench .venv/bin/python bench/embed_order.py [--rounds 2] [--min-texts 2] [--replies] [--threads]

``--threads``: instead, the longest-first order on one thread against the same on two (``batch_threads`` 1 and 2).
Reports the median and sum of each way's wall-clock time per set and checks that both give the vectors a query of
each text gets, bit for bit. ``--replies``: only the sets of assistant replies (the turn's add).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from agent_loop_mem0 import DATA, DEFAULT_DATA, load_messages

from anchormem import Memory
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.embed.onnx_runtime import ALONE_UP_TO, OnnxMiniLMEmbedder
from anchormem.embed.protocol import Vectors
from anchormem.embed.vectors import l2_normalize


class Recording(HashEmbedder):
    """The hash embedder, keeping the texts of every call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        return super().embed(texts)


def add_sets(replies_only: bool) -> list[list[str]]:
    """The texts each add of the development chats' messages embeds, one list per add."""
    msgs = load_messages([DATA / name for name in DEFAULT_DATA])
    out: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="embed-order-") as tmp:
        recording = Recording()
        mem = Memory(Settings.load(env={}, store=str(Path(tmp) / "a.db")), embedder=recording)
        try:
            for m in msgs:
                recording.calls = []
                message = {"role": m.role, "content": m.content, "created_at": m.created_at, "session": m.session}
                mem.add([message], user_id=m.user)
                if not replies_only or m.role == "assistant":
                    out.extend(recording.calls)
        finally:
            mem.close()
    return out


def in_given_order(embedder: OnnxMiniLMEmbedder, texts: list[str]) -> Vectors:
    """The one-by-one path as it was: each text tokenised alone, run on the threads in the order given."""
    runtime = embedder._load()
    pool = embedder._pool
    assert pool is not None

    def one(text: str) -> Vectors:
        return embedder._run(runtime.session, embedder._tokens(runtime, [text]))

    return l2_normalize(np.concatenate(list(pool.map(one, texts))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--min-texts", type=int, default=2)
    ap.add_argument("--replies", action="store_true")
    ap.add_argument("--threads", action="store_true", help="one thread against two, both longest first")
    args = ap.parse_args()
    sets = [s for s in add_sets(args.replies) if args.min_texts <= len(s) <= ALONE_UP_TO]
    embedder = OnnxMiniLMEmbedder()
    embedder.embed(["warm up", "the pool"])
    print(f"# bench/embed_order.py {' '.join(sys.argv[1:])}")
    print(
        f"{len(sets)} sets of {args.min_texts}-{ALONE_UP_TO} texts, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    ways = {"given order": lambda t: in_given_order(embedder, t), "longest first": embedder.embed}
    if args.threads:
        one = OnnxMiniLMEmbedder(batch_threads=1)
        one.embed(["warm up"])
        ways = {"one thread": one.embed, "longest first": embedder.embed}
    spent: dict[str, list[float]] = {name: [] for name in ways}
    for r in range(args.rounds):
        for k, texts in enumerate(sets):
            names = list(ways) if (k + r) % 2 == 0 else list(ways)[::-1]
            got = {}
            for name in names:
                start = time.perf_counter()
                got[name] = ways[name](texts)
                spent[name].append(time.perf_counter() - start)
            if r == 0:
                alone = np.concatenate([embedder.embed([t]) for t in texts])
                for name, vectors in got.items():
                    if not np.array_equal(vectors, alone):
                        raise SystemExit(f"{name}: vectors differ from the texts' query vectors")
    print("\n| way | median ms per set | sum s |\n|---|---|---|")
    for name, values in spent.items():
        print(f"| {name} | {1000 * float(np.median(values)):.1f} | {float(np.sum(values)):.2f} |")
    first = next(iter(ways))
    ratio = np.asarray(spent[first]) / np.asarray(spent["longest first"])
    median = float(np.median(ratio))
    print(f"\n{first} ÷ longest first (two threads) per set: median {median:.3f}; load {os.getloadavg()[0]:.1f}")
    print("vectors: both ways equal to each text's own query vector, bit for bit")


if __name__ == "__main__":
    main()
