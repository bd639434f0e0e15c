"""Adding LoCoMo files to a memory: a sample picked by id, every sample as its own run, and the precomputed
facts and events of the paper's released extraction. The benchmark's vocabulary lives here, on top of the
public API: each add is :meth:`Memory.prepare_add <anchormem.memory.Memory.prepare_add>` of one conversation,
given its precomputed facts and events, then :meth:`Memory.add <anchormem.memory.Memory.add>`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Unpack

from anchormem.eval.precomputed import load_precomputed
from anchormem.ingest.pipeline import Progress
from anchormem.ingest.sources import Conversation, load_conversations, read_source
from anchormem.memory import Memory
from anchormem.model import IngestReport
from anchormem.wire.args import ScopeArgs


def add_conversation(
    memory: Memory,
    conversation: Conversation,
    facts: str | Path | None = None,
    events: str | Path | None = None,
    progress: Progress | None = None,
    *,
    sample_id: str | None = None,
    readd: bool = False,
    batch: bool = False,
    **scope: Unpack[ScopeArgs],
) -> IngestReport:
    """Add one conversation with the precomputed ``facts`` and ``events`` of ``sample_id`` (each file's
    records of that sample; all of them when None); ``readd`` and ``batch`` as for ``Memory.add``."""
    pending = memory.prepare_add(conversation, readd=readd, **scope)
    pre = load_precomputed(facts, events, sample_id=sample_id)
    pending = replace(pending, precomputed=pre) if pre is not None else pending
    return memory.add(pending, progress=progress, batch=batch)


def add_locomo(
    memory: Memory,
    path: str | Path,
    *,
    sample: str | None = None,
    facts: str | Path | None = None,
    events: str | Path | None = None,
    progress: Progress | None = None,
    readd: bool = False,
    batch: bool = False,
    **scope: Unpack[ScopeArgs],
) -> IngestReport:
    """Add the conversation of a LoCoMo file (``sample`` picks one of several) or a JSON/JSONL message list,
    with precomputed ``facts`` and ``events`` (JSONL, see :mod:`anchormem.eval.precomputed`)."""
    conversation = read_source(Path(path), sample)
    sample_id = conversation.name if sample or facts or events else None
    return add_conversation(
        memory, conversation, facts, events, progress, sample_id=sample_id, readd=readd, batch=batch, **scope
    )


def add_all(
    memory: Memory,
    path: str | Path,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    facts: str | Path | None = None,
    events: str | Path | None = None,
    progress: Progress | None = None,
    batch: bool = False,
) -> dict[str, IngestReport]:
    """Add every conversation of a LoCoMo file, each as its own run (``run_id`` = sample id); ``batch`` as for
    ``Memory.add``."""
    out: dict[str, IngestReport] = {}
    for conv in load_conversations(path):
        scope: ScopeArgs = {"user_id": user_id, "agent_id": agent_id, "run_id": conv.name}
        out[conv.name] = add_conversation(
            memory, conv, facts, events, progress, sample_id=conv.name, batch=batch, **scope
        )
    return out
