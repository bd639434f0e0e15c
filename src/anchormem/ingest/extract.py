"""Fact extraction: one context in, its atomic facts (search keys) out (paper §4.1).

Three sources, one output shape: the configured LLM, precomputed facts attached by
turn ids, or the LLM-free offline extractor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from anchormem.ingest.offline import extract_anchors
from anchormem.llm.protocol import LLM
from anchormem.llm.structured import complete_parsed
from anchormem.model import Context, Fact, FactSource, Turn, stable_id
from anchormem.prompts import facts as facts_prompt


def make_facts(context: Context, texts: Sequence[str], source: FactSource) -> list[Fact]:
    """Facts of one context, de-duplicated, with stable ids."""
    out: dict[str, Fact] = {}
    for text in texts:
        text = " ".join(text.split())
        if text:
            fid = stable_id("f", context.id, text)
            out.setdefault(fid, Fact(id=fid, context_id=context.id, text=text, source=source))
    return list(out.values())


def extract_with_llm(llm: LLM, context: Context) -> list[str]:
    """Ask the LLM for the context's facts; raises LLMError subclasses on failure."""
    return complete_parsed(llm, facts_prompt.build(context.text), facts_prompt.parse)


def extract_offline(context: Context, turns_by_id: Mapping[str, Turn]) -> list[str]:
    """Verbatim anchors of the context's pieces: of a passage, only its own text (and a message's
    image caption only with its last passage)."""
    turns: list[Turn] = []
    for tid, start, end in context.pieces():
        turn = turns_by_id.get(tid)
        if turn is None:
            continue
        if start is not None and end is not None and (start, end) != (0, len(turn.text)):
            caption = turn.image_caption if end >= len(turn.text) else None
            turn = replace(turn, text=turn.text[start:end], image_caption=caption)
        turns.append(turn)
    return extract_anchors(context, turns)
