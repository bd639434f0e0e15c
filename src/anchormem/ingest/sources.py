"""Read conversations from files: LoCoMo format and generic message lists.

Every reader returns :class:`Conversation` objects whose turns keep their original
timestamps and ids. Malformed input raises :class:`InputError` naming the place.
Message lists are read by :func:`anchormem.ingest.messages.parse_messages`, the one message
model of every path (re-exported here); :func:`read_source` is the one reader of what ``add`` is given,
for every shell.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anchormem._util.files import read_limited
from anchormem.errors import InputError
from anchormem.ingest.messages import as_messages, optional_label, optional_text, parse_messages
from anchormem.model import Turn
from anchormem.wire.validation import (
    MAX_CAPTION_CHARS,
    MAX_TEXT_CHARS,
    check_text,
    check_turn_count,
)

MAX_MESSAGE_CHARS = MAX_TEXT_CHARS
_SESSION_KEY = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class Conversation:
    """Turns of one conversation (in order) and its label."""

    name: str
    turns: tuple[Turn, ...]

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(t.session for t in self.turns))


Source = str | Mapping[str, Any] | Sequence[Mapping[str, Any]] | Conversation | Path
"""What ``add`` takes:

- a list of messages: dicts with ``role``/``content`` (OpenAI's shape, content parts included, optional ``name``)
  or ``speaker``/``text``, and optional ``id``, ``session``, ``metadata`` (a JSON object), ``image_caption`` and a
  time (``timestamp``, ``created_at`` or ``time``: ISO 8601, Unix seconds or milliseconds, or free text);
- one such message dict, or a plain string (one message of role ``user``; never read as a file path);
- a :class:`Conversation`, or a :class:`~pathlib.Path` to a JSON/JSONL message list or a LoCoMo file of one
  conversation (a sample of several, and precomputed facts: :mod:`anchormem.eval.locomo`).

A message without an ``id`` gets one from its session, speaker, text, time as given and its occurrence among
identical messages of the call, so sending the same messages again adds nothing new (``docs/messages.md``)."""


def read_json_file(path: Path) -> Any:
    """Parse a JSON document, or a JSONL file (one JSON value per line) into a list; a file of more than
    :data:`~anchormem._util.files.MAX_FILE_BYTES` is refused unread."""
    raw = read_limited(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text (byte {exc.start})") from exc
    if not text.strip():
        raise InputError(f"{path} is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        records = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                if lineno == 1:
                    raise InputError(
                        f"{path} is neither JSON nor JSONL: {first.msg} (line {first.lineno}, column {first.colno})"
                    ) from exc
                raise InputError(f"{path}: line {lineno} is not valid JSON: {exc.msg}") from exc
        return records


def is_locomo(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(isinstance(s, Mapping) and "conversation" in s for s in items)


def load_conversations(path: str | Path, sample: str | None = None) -> list[Conversation]:
    """Read a LoCoMo-format file or a generic message list.

    ``sample`` picks one LoCoMo conversation by ``sample_id`` (all when None).
    """
    path = Path(path)
    data = read_json_file(path)
    if is_locomo(data):
        return parse_locomo(data, sample=sample, where=str(path))
    if sample is not None:
        raise InputError(f"--sample applies to LoCoMo files; {path} is a message list")
    return [Conversation(name=path.stem, turns=tuple(parse_messages(data, where=str(path))))]


def read_source(source: object, sample: str | None = None, *, max_turns: int | None = None) -> Conversation:
    """What ``add`` was given, as one conversation: a :class:`Conversation` as it is, a :class:`~pathlib.Path`
    read as a file (one conversation, else ``sample`` picks one), a LoCoMo sample (an object with
    ``conversation``), or messages in any shape :func:`~anchormem.ingest.messages.as_messages` takes.
    ``max_turns`` caps the turns of a sample or message list (the service's request limit)."""
    if isinstance(source, Conversation):
        return source
    if isinstance(source, Path):
        conversations = load_conversations(source, sample=sample)
        if len(conversations) != 1:
            names = ", ".join(c.name for c in conversations[:10])
            raise InputError(
                f"{source} holds {len(conversations)} conversations ({names}); pick one with "
                "sample=... (anchormem.eval.locomo.add_locomo; CLI: --sample ID), or use add_all"
            )
        return conversations[0]
    if isinstance(source, Mapping) and is_locomo(source):
        return parse_locomo(source, sample=sample, where="conversation", max_turns=max_turns)[0]
    return Conversation(name="messages", turns=tuple(parse_messages(as_messages(source), max_turns=max_turns)))


def parse_locomo(
    data: Any, sample: str | None = None, where: str = "input", max_turns: int | None = None
) -> list[Conversation]:
    """LoCoMo samples; ``max_turns`` caps the turns of each conversation (the service's request limit)."""
    items = data if isinstance(data, list) else [data]
    out: list[Conversation] = []
    for i, item in enumerate(items):
        sid = str(item.get("sample_id", f"sample-{i}"))
        if sample is not None and sid != sample:
            continue
        conv = item["conversation"]
        if not isinstance(conv, Mapping):
            raise InputError(f"{where}: sample {sid}: 'conversation' must be an object")
        turns = tuple(_locomo_turns(conv, f"{where}: {sid}", max_turns))
        out.append(Conversation(name=sid, turns=turns))
    if sample is not None and not out:
        known = ", ".join(str(s.get("sample_id")) for s in items[:12])
        raise InputError(f"{where}: no sample '{sample}' (have: {known})")
    return out


def _locomo_turns(conv: Mapping[str, Any], where: str, max_turns: int | None) -> Iterable[Turn]:
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION_KEY.match(key)))
    lists = [(number, key, conv[key]) for number, key in sessions]
    for _, key, turns in lists:
        if not isinstance(turns, list):
            raise InputError(f"{where}: {key} must be a list of turns")
    check_turn_count(sum(len(turns) for _, _, turns in lists), f"{where}: conversation", max_turns)
    seen: dict[str, str] = {}
    for number, key, turns in lists:
        date = _opt_str(conv, f"{key}_date_time", where)
        for pos, turn in enumerate(turns):
            place = f"{where}: {key}[{pos}]"
            if not isinstance(turn, Mapping):
                raise InputError(f"{place} must be an object")
            speaker = _text_field(turn, ("speaker",), place)
            text = _text_field(turn, ("text",), place, allow_empty=True)
            tid = _opt_str(turn, "dia_id", place) or f"D{number}:{pos + 1}"
            if tid in seen:
                raise InputError(f"{place}: duplicate dia_id {tid!r} (also at {seen[tid]})")
            seen[tid] = f"{key}[{pos}]"
            yield Turn(
                id=tid,
                session=str(number),
                position=pos,
                speaker=speaker,
                text=text,
                timestamp=date,
                image_caption=_opt_str(turn, "blip_caption", place, caption=True),
            )


def _text_field(obj: Mapping[str, Any], names: tuple[str, ...], place: str, allow_empty: bool = False) -> str:
    for name in names:
        if name in obj:
            return check_text(obj[name], name, place, limit=MAX_MESSAGE_CHARS, empty=allow_empty)
    raise InputError(f"{place}: missing field {' or '.join(repr(n) for n in names)}")


def _opt_str(obj: Mapping[str, Any], name: str, place: str, caption: bool = False) -> str | None:
    """An optional label (id, session, timestamp, date) or, with ``caption``, an image caption;
    absent, null or "" mean none."""
    if not caption:
        return optional_label(obj, name, place)
    value = optional_text(obj, name, place)
    return None if value is None else check_text(value, name, place, limit=MAX_CAPTION_CHARS, empty=True)
