"""Reader tasks: each question, in each spelling, with the block of each system.

A task is what a reader sees (question, today's date, block), under an opaque id; which system made
its block, which chat and question it asks, and whether the block shows the evidence are kept apart,
in the key (``key.json``), so neither the reader nor the judge can tell the systems apart. Tasks are
shuffled (seeded). The reader's request is the product's answer prompt
(:mod:`anchormem.prompts.answer`) with the date on the first line of the memories.
"""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from anchormem.config import Settings
from anchormem.errors import InputError, NotFoundError
from anchormem.eval.answers.blocks import Block, BlockMaker
from anchormem.eval.answers.chats import Chat, ChatQuestion
from anchormem.llm.protocol import Message
from anchormem.memory import Memory
from anchormem.prompts import answer as answer_prompt

__all__ = ["KeyEntry", "ReaderTask", "iter_blocks", "make_tasks", "read_tasks", "write_tasks"]


@dataclass(frozen=True)
class ReaderTask:
    task_id: str
    question: str
    today: str
    block: str

    def messages(self) -> list[Message]:
        memories = f"Today's date: {self.today}.\n\n{self.block}" if self.today else self.block
        return answer_prompt.build(memories, self.question)


@dataclass(frozen=True)
class KeyEntry:
    task_id: str
    system: str
    sample_id: str
    qa_index: int
    spelling: str
    kind: str
    question: str
    answer: str
    evidence: tuple[str, ...]
    evidence_shown: bool  # every evidence message is (at least partly) in the block
    terms_shown: bool | None  # every answer term is in the block (None: the question has none)
    block_chars: int
    category: int | None = None


def terms_in(block: str, terms: Sequence[str]) -> bool | None:
    """Every term inside the block (case-insensitive); None when there are no terms."""
    if not terms:
        return None
    low = block.casefold()
    return all(term.casefold() in low for term in terms)


def iter_blocks(
    chats: Sequence[Chat],
    systems: Sequence[str],
    spellings: Sequence[str],
    budget: int,
    *,
    whole_max: int = 60_000,
    settings: Settings | None = None,
    keep: Path | None = None,
) -> Iterator[tuple[Chat, ChatQuestion, str, str, Block]]:
    """(chat, question, spelling, question text, block) for every question, spelling and system; each
    chat is added to a fresh memory (role/content, or named speakers for the ``named`` spelling).

    ``keep``: a store file that keeps the memories between runs, so that a run after a change to the search
    or the block reuses what an earlier run added (each chat's scope is named by a digest of its messages;
    a chat already there is not added again). Delete it after a change to ingest or to the settings."""
    with tempfile.TemporaryDirectory() as tmp:
        base = settings or Settings()
        memory = Memory(replace(base, store=str(keep if keep is not None else Path(tmp) / "answers.db")))
        try:
            for chat in chats:
                makers: dict[str, BlockMaker] = {}
                for spelling in spellings:
                    speakers = "named" if spelling == "named" else "roles"
                    if not chat.role_based:
                        speakers = "named"
                    if speakers not in makers:
                        messages = chat.to_memory(speakers)
                        user = f"{chat.sample_id}~{speakers}"
                        if keep is not None:
                            digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
                            user += f"~{digest[:12]}"
                        if any(system in ("default", "bm25") for system in systems) and not (
                            keep is not None and _holds(memory, user, len(messages))
                        ):  # the searches need it; a kept memory holds it already
                            # an LLM in the settings: the memory's facts and events come through batch files
                            # (``memory_batch``), whose answers were all imported before
                            memory.add(messages, user_id=user, batch=base.llm is not None)
                        named = speakers == "named" and chat.role_based
                        makers[speakers] = BlockMaker(memory, user, chat, whole_max=whole_max, named=named)
                    maker = makers[speakers]
                    for question in chat.questions:
                        text = question.spellings.get(spelling)
                        if text is None:
                            continue
                        for system in systems:
                            block = maker.block(system, text, budget)
                            if block is not None:
                                yield chat, question, spelling, text, block
        finally:
            memory.close()


def _holds(memory: Memory, user: str, turns: int) -> bool:
    """Whether ``user``'s memory holds all ``turns`` of its chat (an interrupted add is finished)."""
    try:
        return memory.stats(user_id=user).turns >= turns
    except NotFoundError:
        return False


def make_tasks(
    items: Iterator[tuple[Chat, ChatQuestion, str, str, Block]], *, seed: int = 32
) -> tuple[list[ReaderTask], list[KeyEntry]]:
    """Tasks (shuffled) and their key from :func:`iter_blocks`'s items."""
    tasks: list[ReaderTask] = []
    key: list[KeyEntry] = []
    for chat, question, spelling, text, block in items:
        ident = f"{chat.sample_id}|{question.index}|{spelling}|{block.system}"
        task_id = "t" + hashlib.sha256(f"{seed}|{ident}".encode()).hexdigest()[:12]
        tasks.append(ReaderTask(task_id, text, chat.today, block.text))
        key.append(
            KeyEntry(
                task_id=task_id,
                system=block.system,
                sample_id=chat.sample_id,
                qa_index=question.index,
                spelling=spelling,
                kind=question.kind,
                question=text,
                answer=question.answer,
                evidence=question.evidence,
                evidence_shown=bool(question.evidence) and set(question.evidence) <= block.shown,
                terms_shown=terms_in(block.text, question.answer_terms),
                block_chars=len(block.text),
                category=question.category,
            )
        )
    random.Random(seed).shuffle(tasks)
    return tasks, sorted(key, key=lambda k: k.task_id)


def write_tasks(out: Path, tasks: Sequence[ReaderTask], key: Sequence[KeyEntry]) -> None:
    """``tasks.jsonl`` (what readers see) and ``key.json`` (which system made each block)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "tasks.jsonl").write_text(
        "".join(json.dumps(asdict(t), ensure_ascii=False) + "\n" for t in tasks), encoding="utf-8"
    )
    (out / "key.json").write_text(json.dumps([asdict(k) for k in key], ensure_ascii=False, indent=1), encoding="utf-8")


def read_tasks(out: Path) -> tuple[list[ReaderTask], dict[str, KeyEntry]]:
    try:
        tasks = [
            ReaderTask(**json.loads(line)) for line in (out / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        raw: list[dict[str, Any]] = json.loads((out / "key.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, TypeError) as exc:
        raise InputError(f"cannot read the tasks of {out}: {exc}") from exc
    key = {item["task_id"]: KeyEntry(**{**item, "evidence": tuple(item["evidence"])}) for item in raw}
    missing = [t.task_id for t in tasks if t.task_id not in key]
    if missing:
        raise InputError(f"{out}/key.json has no entry for {len(missing)} tasks (e.g. {missing[0]})")
    return tasks, key
