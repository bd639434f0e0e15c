"""Marks and answer terms on the memories an answers run kept: a change to the search or the block measured on
the same facts and events, without building the memories again.

    PYTHONPATH=src python bench/assistant/kept_marks.py bench/data/assistant/<chat>.json ... \
        --keep STORE [--memory-batch MODEL --memory-dir DIR]

``STORE`` is the file ``anchormem eval proxy|answers --keep-memory STORE`` filled (each chat under
``<sample_id>~roles|named~<digest>``). On the LLM path (``--memory-batch``) a new build asks the model again
for the integrations of seeds that failed before (clustered again, each run a few new requests): reading the
kept memories leaves them out, so a before/after pair reads the same events. Per spelling (third person and
the user's first person on the role/content memory, the named question on the named one) it prints:

- the answer-terms proxy by question kind: every answer term inside the 4,000-character block (else, for a
  question without terms, every evidence message shown), as ``anchormem eval proxy`` counts it;
- marks judged and right, by ``assistant_bench.judge_marks`` (a context marked ``latest``/``earlier`` that holds
  an evidence or an outdated message).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from assistant_bench import judge_marks, kind_of

from anchormem import Memory, Settings
from anchormem.eval.answers.chats import load_chats
from anchormem.eval.answers.memory_batch import MemoryBatch
from anchormem.eval.answers.tasks import terms_in

BLOCK = 4000
SPELLINGS = (("third", "roles"), ("user", "roles"), ("named", "named"))  # (spelling, speakers of the memory)


def kept_user(messages: list[dict[str, Any]], sample_id: str, speakers: str) -> str:
    """The user id ``iter_blocks`` keeps a chat's memory under."""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    return f"{sample_id}~{speakers}~{digest[:12]}"


def measure(paths: list[str], memory: Memory) -> dict[str, dict[str, list[int]]]:
    """Per spelling: per kind [right, asked], and ``marks`` [right, judged]."""
    out: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for path in paths:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        samples = {s["sample_id"]: s for s in (raw if isinstance(raw, list) else [raw])}
        for chat in load_chats(path):
            qas = samples[chat.sample_id]["qa"]
            for spelling, speakers in SPELLINGS:
                user = kept_user(chat.to_memory(speakers), chat.sample_id, speakers)
                for question in chat.questions:
                    text = question.spellings.get(spelling)
                    qa = qas[question.index]
                    if text is None:
                        continue
                    result = memory.search(text, user_id=user)
                    block = result.prompt(max_chars=BLOCK)
                    shown = terms_in(block.text, question.answer_terms)
                    if shown is None:
                        shown = bool(question.evidence) and set(question.evidence) <= set(block.turn_ids)
                    for kind in (question.kind, "all"):
                        out[spelling][kind][0] += int(shown)
                        out[spelling][kind][1] += 1
                    right, wrong = judge_marks(list(result.contexts), qa, kind_of(qa))
                    out[spelling]["marks"][0] += right
                    out[spelling]["marks"][1] += right + wrong
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--keep", required=True, help="the store an answers run kept (--keep-memory)")
    parser.add_argument("--memory-batch", help="the LLM path: facts and events MODEL wrote")
    parser.add_argument("--memory-dir", help="with --memory-batch: where its requests and answers are kept")
    args = parser.parse_args()
    settings = Settings()
    if args.memory_batch:
        settings = MemoryBatch(model=args.memory_batch, dir=Path(args.memory_dir or ".")).settings(settings)
    with Memory(replace(settings, store=args.keep)) as memory:
        found = measure(args.data, memory)
    for spelling, kinds in found.items():
        right, judged = kinds.pop("marks")
        cells = " ".join(f"{k} {r}/{n}" for k, (r, n) in sorted(kinds.items()))
        print(f"{spelling}: {cells}; marks judged {judged}, right {right}")


if __name__ == "__main__":
    main()
