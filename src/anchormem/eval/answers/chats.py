"""Chats of the answers benchmark, read from LoCoMo-layout files.

A chat is ``conversation`` (``speaker_a``/``speaker_b``, ``session_N`` lists of ``{speaker, dia_id,
text}`` and ``session_N_date_time``) with its ``qa``. Speakers ``user``/``assistant`` make a
role/content chat (sent to memory as ``role``/``content``; with ``speakers="named"`` the user's messages carry
the user's name, ``user_name``, as OpenAI's ``name``); other speakers are people, sent by name (LoCoMo, REALTALK).

A question has up to three spellings: ``third`` (``question``, "the user"), ``named``
(``question_named``, the user's name; asked of the memory built with named speakers) and ``user``
(``question_user``, the first person as typed). Its kind is ``kind`` (``stable``, ``current``, …) or,
in LoCoMo files, the category's name; ``answer_terms`` (words each found in an evidence message) feed
the cheap proxy.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from anchormem.errors import InputError
from anchormem.eval.evidence import clean_evidence
from anchormem.eval.qa import CATEGORY_NAMES

__all__ = ["SPELLINGS", "SYSTEMS", "Chat", "ChatMessage", "ChatQuestion", "load_chats", "parse_chat"]

SYSTEMS = ("default", "bm25", "message", "whole")
"""The blocks compared (:mod:`anchormem.eval.answers.blocks`)."""
SPELLINGS = {"third": "question", "named": "question_named", "user": "question_user"}
ALIASES = {"update": "current", "past": "earlier", "static": "stable"}
_SESSION = re.compile(r"session_(\d+)")
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) (\w+),? (\d{4})", re.IGNORECASE)


@dataclass(frozen=True)
class ChatMessage:
    id: str
    session: int
    when: str  # the session's date as written
    speaker: str  # as in the file
    text: str
    caption: str | None = None


@dataclass(frozen=True)
class ChatQuestion:
    index: int  # into the sample's qa list
    kind: str
    spellings: dict[str, str]  # spelling -> the question so spelled
    answer: str
    evidence: tuple[str, ...]
    answer_terms: tuple[str, ...] = ()
    category: int | None = None  # LoCoMo's


@dataclass(frozen=True)
class Chat:
    sample_id: str
    speaker_a: str
    speaker_b: str
    messages: tuple[ChatMessage, ...]
    questions: tuple[ChatQuestion, ...]
    user_name: str | None = None
    language: str | None = None

    @property
    def role_based(self) -> bool:
        """The speakers are the roles ``user`` and ``assistant``."""
        return {self.speaker_a.lower(), self.speaker_b.lower()} == {"user", "assistant"}

    @property
    def today(self) -> str:
        """The day the questions are asked: the date of the last session (``10 June 2024``)."""
        return day_of(self.messages[-1].when) if self.messages else ""

    @property
    def chars(self) -> int:
        return sum(len(m.text) for m in self.messages)

    def role_of(self, message: ChatMessage) -> str:
        return "user" if message.speaker.lower() == "user" else "assistant"

    def shown_name(self, message: ChatMessage, named: bool = False) -> str:
        """The speaker as a block shows it: ``User``/``Assistant`` for roles (the user's name for the
        user with ``named``), else the speaker's name."""
        if self.role_based:
            if self.role_of(message) != "user":
                return "Assistant"
            return (self.user_name or "User") if named else "User"
        return message.speaker

    def to_memory(self, speakers: str = "roles") -> list[dict[str, Any]]:
        """The messages as sent to :meth:`anchormem.Memory.add`: ``role``/``content`` for a role chat, the
        user's messages with the user's name as OpenAI's ``name`` (``user_name``) with ``speakers="named"``,
        as an application that knows its user's name sends them; else ``speaker``/``text``; every message
        keeps its ``dia_id`` as its id."""
        out: list[dict[str, Any]] = []
        for m in self.messages:
            item: dict[str, Any] = {"id": m.id, "session": str(m.session), "created_at": iso(m.when)}
            if self.role_based:
                item.update(role=self.role_of(m), content=m.text)
                if speakers == "named" and self.role_of(m) == "user":
                    item["name"] = self.user_name or "User"
            else:
                item.update(speaker=m.speaker, text=m.text)
            if m.caption:
                item["image_caption"] = m.caption
            out.append(item)
        return out


def iso(when: str) -> str:
    """``1:56 pm on 8 May, 2023`` as ISO 8601 (other text as it is)."""
    found = _DATE.search(when)
    if not found:
        return when
    hour, minute, half, day, month, year = found.groups()
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    try:
        parsed = datetime.strptime(f"{day} {month} {year}", "%d %B %Y")
    except ValueError:
        return when
    return parsed.replace(hour=h, minute=int(minute)).isoformat()


def day_of(when: str) -> str:
    found = _DATE.search(when)
    if not found:
        return when
    _, _, _, day, month, year = found.groups()
    return f"{int(day)} {month} {year}"


def load_chats(path: str | Path) -> list[Chat]:
    """The chats of one LoCoMo-layout JSON file (a list of samples, or one sample)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read chat file {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"chat file {path} is not valid JSON: {exc}") from exc
    samples = data if isinstance(data, list) else [data]
    return [parse_chat(sample, f"{path}") for sample in samples]


def parse_chat(sample: Any, where: str = "chat") -> Chat:
    if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
        raise InputError(f"{where}: a sample needs a 'conversation' object")
    sid = str(sample.get("sample_id") or "")
    if not sid:
        raise InputError(f"{where}: a sample has no 'sample_id'")
    conv = sample["conversation"]
    numbers = sorted(int(m.group(1)) for key in conv if (m := _SESSION.fullmatch(key)))
    messages: list[ChatMessage] = []
    for n in numbers:
        when = str(conv.get(f"session_{n}_date_time") or "")
        for pos, turn in enumerate(conv[f"session_{n}"]):
            if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
                raise InputError(f"{where}: {sid} session_{n}[{pos}] needs 'speaker' and 'text'")
            tid = str(turn.get("dia_id") or f"D{n}:{pos + 1}")
            caption = turn.get("blip_caption") if isinstance(turn.get("blip_caption"), str) else None
            messages.append(ChatMessage(tid, n, when, str(turn.get("speaker", "")), turn["text"], caption))
    ids = frozenset(m.id for m in messages)
    questions = [_question(sid, i, item, where, ids) for i, item in enumerate(sample.get("qa") or [])]
    return Chat(
        sample_id=sid,
        speaker_a=str(conv.get("speaker_a", "")),
        speaker_b=str(conv.get("speaker_b", "")),
        messages=tuple(messages),
        questions=tuple(q for q in questions if q is not None),
        user_name=sample.get("user_name"),
        language=sample.get("language"),
    )


def _question(sid: str, index: int, item: Any, where: str, ids: frozenset[str]) -> ChatQuestion | None:
    if not isinstance(item, dict) or not isinstance(item.get("question"), str):
        raise InputError(f"{where}: {sid} qa[{index}] needs a 'question'")
    category = item.get("category") if isinstance(item.get("category"), int) else None
    if category == 5 or "answer" not in item:
        return None  # adversarial: no answer to read
    kind = str(item.get("kind") or CATEGORY_NAMES.get(category or 0, "stable"))
    spellings = {name: item[key] for name, key in SPELLINGS.items() if isinstance(item.get(key), str) and item[key]}
    terms = item.get("answer_terms") or []
    return ChatQuestion(
        index=index,
        kind=ALIASES.get(kind, kind),
        spellings=spellings,
        answer=str(item["answer"]),
        evidence=clean_evidence([str(e) for e in item.get("evidence") or []], ids),
        answer_terms=tuple(str(t) for t in terms),
        category=category,
    )
