"""The reader step: a question and the retrieved memories in, a short answer citing turn ids out."""

from __future__ import annotations

from anchormem.answer.render import render_memories
from anchormem.llm.protocol import LLM
from anchormem.llm.structured import complete_parsed
from anchormem.model import Answer, SearchResult
from anchormem.prompts import answer as answer_prompt


def read(reader: LLM, question: str, memories: SearchResult, rendered: str | None = None) -> Answer:
    """Ask ``reader`` to answer ``question`` from ``memories``.

    ``rendered`` is the memory block to show the reader (default: the contexts with their turn ids,
    then the events). Cited turn ids are kept once each and only if the memories hold them.
    Raises :class:`~anchormem.errors.LLMResponseError` when the reader's reply cannot be used.
    """
    block = rendered if rendered is not None else render_memories(memories, with_turn_ids=True)
    text, cited = complete_parsed(reader, answer_prompt.build(block, question), answer_prompt.parse)
    known = set(memories.turn_ids)
    cited_known = tuple(t for t in dict.fromkeys(cited) if t in known)
    return Answer(question=question, text=text, cited_turn_ids=cited_known, memories=memories, model=reader.model)
