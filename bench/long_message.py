"""One 100,000-character message added with MiniLM (onnxruntime): seconds and peak memory.

The text is random words (3,000 of 2 to 9 letters), so that its 167 passages of ~600 characters each fill
MiniLM's 256 tokens: the worst case of the embedding step, where nearly all of the time goes.

    PYTHONPATH=src .venv/bin/python bench/long_message.py [--chars 100000] [--store /tmp/long.db]
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
from pathlib import Path

from anchormem import Memory
from anchormem.config import Settings


def text_of(chars: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    out = ""
    while len(out) < chars:
        out += " ".join(rng.choice(words) for _ in range(rng.randint(5, 20))) + ". "
    return out[:chars]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chars", type=int, default=100_000)
    ap.add_argument("--store", help="a new SQLite file (default: one in a temporary folder)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or str(Path(tmp) / "long.db")
        with Memory(Settings.load(store=store, embed__backend="minilm")) as memory:
            memory.embedder.embed(["load the model first"])
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
            started = time.perf_counter()
            report = memory.add(text_of(args.chars), user_id="bench")
            seconds = time.perf_counter() - started
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(
        f"{args.chars:,} characters: {report.contexts_added} passages, {seconds:.2f} s, "
        f"peak RSS {peak} MiB (model loaded: {before} MiB)"
    )


if __name__ == "__main__":
    main()
