"""Haystacks for the answers benchmark (LongMemEval's construction): each chat's sessions interleaved by
date with at least 400,000 characters of other people's sessions, written as one LoCoMo-layout file.

    PYTHONPATH=src python bench/answers/make_haystacks.py --out /tmp/haystacks.json \
        --chats bench/data/assistant/life_nadia.json ... \
        --filler bench/data/assistant/*.json /work/shared/data/locomo10.json /work/shared/data/realtalk_dev.json

A chat's own file never fills its own haystack; a filler session that holds one of the chat's answer
terms, short gold answers or the user's name is left out (see ``anchormem.eval.answers.haystack``).
Then ask it at 10,000 characters:

    anchormem eval answers --data /tmp/haystacks.json --out runs/haystack --budget 10000 \
        --systems default,message,bm25 --reader-batch MODEL
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from anchormem.eval.answers.haystack import build_haystack


def samples_of(path: str) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return data if isinstance(data, list) else [data]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", nargs="+", required=True, help="the chats to hide (LoCoMo layout)")
    parser.add_argument("--filler", nargs="+", required=True, help="files whose sessions fill the haystacks")
    parser.add_argument("--out", required=True)
    parser.add_argument("--min-chars", type=int, default=400_000)
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    chats = [(path, sample) for path in args.chats for sample in samples_of(path)]
    fillers = {path: samples_of(path) for path in args.filler}
    out = []
    for path, sample in chats:
        others = [
            s for other, samples in fillers.items() if Path(other).resolve() != Path(path).resolve() for s in samples
        ]
        hay = build_haystack(sample, others, min_chars=args.min_chars, seed=args.seed)
        chars = sum(
            len(t["text"])
            for k, v in hay["conversation"].items()
            if k.startswith("session_") and isinstance(v, list)
            for t in v
        )
        print(f"{hay['sample_id']}: {chars:,} characters, {hay['haystack_filler_chars']:,} of them filler")
        out.append(hay)
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    print(f"{len(out)} haystacks written to {args.out}")


if __name__ == "__main__":
    main()
