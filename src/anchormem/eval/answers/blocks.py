"""The block each system hands a reader for one question, at a character budget.

- ``default``: the default search, ``result.prompt(max_chars=budget)``;
- ``bm25``: the ``bm25`` recipe's result, rendered the same way;
- ``message``: a message-level hybrid search, the shape of Mem0's ``infer=False``: each message one
  document, ranked by the memory's embedder (MiniLM) and by BM25, fused by reciprocal rank; the best
  messages that fit the budget, shown in conversation order under their session's date;
- ``whole``: the whole chat in the same layout, where it fits ``whole_max`` characters.

Every block says which messages it shows (``shown``): a message counts as shown when any of it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from anchormem.errors import InputError
from anchormem.eval.answers.chats import SYSTEMS, Chat, ChatMessage, day_of
from anchormem.memory import Memory
from anchormem.search.fuse import order_by_score, rrf
from anchormem.text.lexical import BM25Index

__all__ = ["SYSTEMS", "Block", "BlockMaker", "MessageSearch", "render_messages"]

_LINE_OVERHEAD = 16  # "[D3:1] User: " and the quotes around a message


@dataclass(frozen=True)
class Block:
    system: str
    text: str
    shown: frozenset[str]


def render_messages(chat: Chat, messages: Sequence[ChatMessage], *, named: bool = False) -> str:
    """Messages in conversation order, grouped by session under its date: ``[D3:1] User: "…"`` (the
    user's name instead of ``User`` with ``named``)."""
    order = {m.id: i for i, m in enumerate(chat.messages)}
    lines: list[str] = []
    session: int | None = None
    for m in sorted(messages, key=lambda m: order[m.id]):
        if m.session != session:
            session = m.session
            if lines:
                lines.append("")
            lines.append(f"Session {m.session}, {day_of(m.when)}:")
        text = m.text if not m.caption else f"{m.text} [shares a photo: {m.caption}]"
        body = text.replace("\n", "\n  ")
        lines.append(f'[{m.id}] {chat.shown_name(m, named)}: "{body}"')
    return "\n".join(lines)


class MessageSearch:
    """Each message of a chat its own document: the embedder's ranking and BM25's, fused by RRF."""

    def __init__(self, memory: Memory, chat: Chat, *, named: bool = False) -> None:
        self.chat = chat
        self.named = named
        self.memory = memory
        self.texts = [m.text for m in chat.messages]
        self.vectors = memory.embedder.embed(self.texts) if self.texts else np.zeros((0, 1), dtype=np.float32)
        self.bm25 = BM25Index(self.texts)

    def ranking(self, question: str) -> list[int]:
        """Message rows, best first."""
        if not self.texts:
            return []
        q = self.memory.embedder.embed([question])[0]
        dense = [int(i) for i in np.argsort(-(self.vectors @ q), kind="stable")]
        lexical = [row for row, _ in self.bm25.top(question, len(self.texts))]
        return order_by_score(rrf([(dense, 1.0), (lexical, 1.0)]))

    def block(self, question: str, budget: int) -> Block:
        """The best messages whose lines fit ``budget`` characters (a message too long for what is left
        is passed over for a smaller one), with their session headers."""
        chosen: list[ChatMessage] = []
        for row in self.ranking(question):
            candidate = [*chosen, self.chat.messages[row]]
            if len(render_messages(self.chat, candidate, named=self.named)) <= budget:
                chosen = candidate
            elif budget - len(render_messages(self.chat, chosen, named=self.named)) < _LINE_OVERHEAD + 40:
                break
        text = render_messages(self.chat, chosen, named=self.named)
        return Block("message", text, frozenset(m.id for m in chosen))


@dataclass(eq=False)
class BlockMaker:
    """The blocks of one chat held in ``memory`` under ``user_id`` (``named``: its user was sent by name,
    and the message-level and whole-chat blocks show that name too)."""

    memory: Memory
    user_id: str
    chat: Chat
    _: KW_ONLY
    whole_max: int = 60_000
    named: bool = False
    _messages: MessageSearch | None = field(default=None, init=False, repr=False)  # built when first asked
    _whole: Block | None = field(default=None, init=False, repr=False)

    def block(self, system: str, question: str, budget: int) -> Block | None:
        """The block ``system`` builds for ``question``; None for ``whole`` when the chat does not fit."""
        if system in ("default", "bm25"):
            variant = None if system == "default" else "bm25"
            options = {"variant": variant} if variant else {}
            result = self.memory.search(question, user_id=self.user_id, **options)  # type: ignore[arg-type]
            shown = result.prompt(max_chars=budget)
            return Block(system, shown.text, frozenset(shown.turn_ids))
        if system == "message":
            if self._messages is None:
                self._messages = MessageSearch(self.memory, self.chat, named=self.named)
            return self._messages.block(question, budget)
        if system == "whole":
            if self._whole is None:
                text = render_messages(self.chat, self.chat.messages, named=self.named)
                self._whole = Block("whole", text, frozenset(m.id for m in self.chat.messages))
            return self._whole if len(self._whole.text) <= self.whole_max else None
        raise InputError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
