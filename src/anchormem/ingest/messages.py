"""One message model for every path: Python, the CLI's files, the REST API and the MCP tool.

:func:`parse_messages` turns messages of any accepted shape into :class:`Turn` records, and
:func:`as_messages` turns what ``Memory.add`` was given (a plain string, one message, a list) into a
message list first. Every path calls these, so a message means the same and an error reads the same
wherever it came in. The fields (see ``docs/messages.md``):

- who: ``speaker``, else OpenAI's ``name``, else ``role``. When a ``name`` (or ``speaker``) and a
  different ``role`` are both given, the name is the speaker and the role is kept in the metadata
  (``{"role": "user"}``) unless the metadata already says ``role``.
- what: ``text``, else ``content``: a string, or OpenAI content parts. Text parts (``text``,
  ``input_text``, ``output_text``, ``refusal``) are joined with a newline; any other part is kept
  as a short placeholder (``[image]``, ``[audio]``, ``[file: report.pdf]``, ``[<type>]``). An
  assistant message without content shows its ``refusal`` or its tool calls (``[tool call: name]``).
- when: ``timestamp``, ``created_at``, ``time`` or ``date`` (the first one given), read by
  :func:`anchormem.text.times.message_time`.
- ``session`` (default ``"1"``), ``id``, ``metadata`` (a JSON object), ``image_caption``.
- Other keys (``tool_call_id``, ``audio``, ...) are ignored: only ``metadata`` is stored as given;
  ``user_id``, ``agent_id`` and ``run_id`` are refused (the call chooses the memory, not a message).

A message without an ``id`` gets one from its content: the session, speaker, text and time as given,
and how many identical messages came before it in the same call. Sending the same messages again
(a retry, or an agent re-sending a window of recent messages) therefore adds nothing, while a
message said twice in one call is kept twice. Two identical messages sent in different calls without
a time or an id are taken for one; give them a time or an id to keep both.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anchormem.errors import InputError
from anchormem.model import Turn, stable_id
from anchormem.text.times import message_time
from anchormem.wire.validation import (
    MAX_CAPTION_CHARS,
    MAX_TEXT_CHARS,
    check_label,
    check_metadata,
    check_text,
    check_turn_count,
)

MAX_MESSAGE_CHARS = MAX_TEXT_CHARS
MAX_METADATA_CHARS = MAX_TEXT_CHARS
"""The metadata of one message, as JSON text."""
TIME_FIELDS = ("timestamp", "created_at", "time", "date")
TEXT_PARTS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal"}
PLACEHOLDERS = {
    "image_url": "[image]",
    "input_image": "[image]",
    "image": "[image]",
    "input_audio": "[audio]",
    "audio": "[audio]",
}
FILE_PARTS = ("file", "input_file")
SCOPE_KEYS = ("user_id", "agent_id", "run_id")
"""Refused in a message: whose memory it goes to is chosen by the call, never by a message."""


@dataclass(frozen=True)
class MessageFields:
    """One message, read and checked: what becomes a :class:`Turn` (the id may still be missing)."""

    speaker: str
    text: str
    session: str
    id: str | None
    timestamp: str | None
    time_given: str | None
    image_caption: str | None
    metadata: dict[str, Any] | None

    def as_turn(self, turn_id: str, position: int) -> Turn:
        """The :class:`Turn` this message is, once it has an id and a place in its session."""
        return Turn(position=position, **{**vars(self), "id": turn_id})


def as_messages(source: object) -> list[Any]:
    """What ``add`` was given as a message list: a plain string is one user message
    (``{"role": "user", "content": text}``), one message object a list of one, an object with a
    ``messages`` list that list. A string is never read as a file path."""
    if isinstance(source, str):
        return [{"role": "user", "content": source}]
    if isinstance(source, Mapping):
        inner = source.get("messages")
        return list(inner) if isinstance(inner, list) else [source]
    if isinstance(source, Sequence) and not isinstance(source, (bytes, bytearray)):
        return list(source)
    raise InputError(
        f"cannot add a {type(source).__name__}: pass a list of messages, one message (an object) or a "
        "string (one user message); from Python also a Conversation or a pathlib.Path to a file"
    )


def parse_messages(data: Any, where: str | None = None, max_turns: int | None = None) -> list[Turn]:
    """Turns from a list (or ``{"messages": [...]}``) of messages of any accepted shape, grouped by
    session in the order the sessions first appear. ``where`` prefixes error places (a file's path);
    ``max_turns`` caps the number of messages (the service's request limit)."""
    prefix = f"{where}: " if where else ""
    if isinstance(data, Mapping) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise InputError(f"{where or 'input'}: expected a list of messages, got {type(data).__name__}")
    if not data:
        raise InputError(f"{where or 'input'}: the message list is empty")
    check_turn_count(len(data), where or "messages", max_turns)
    turns: list[Turn] = []
    positions: dict[str, int] = {}
    seen: set[str] = set()
    for i, (msg, tid) in enumerate(_identified(data, prefix)):
        if tid in seen:
            raise InputError(f"{prefix}message {i + 1}: duplicate id {tid!r}")
        seen.add(tid)
        pos = positions.get(msg.session, 0)
        positions[msg.session] = pos + 1
        turns.append(msg.as_turn(tid, pos))
    order = {s: i for i, s in enumerate(dict.fromkeys(t.session for t in turns))}
    turns.sort(key=lambda t: (order[t.session], t.position))
    return turns


def identify(data: Sequence[object], where: str | None = None) -> list[tuple[MessageFields, str]]:
    """Each message of the list ``data``, read and checked, with the turn id it gets when the list is added
    in one call: its own ``id``, else one from its content (see the module's notes)."""
    return list(_identified(data, f"{where}: " if where else ""))


def _identified(data: Sequence[object], prefix: str) -> Iterator[tuple[MessageFields, str]]:
    occurrences: dict[tuple[str, ...], int] = {}
    for i, raw in enumerate(data):
        msg = normalise(raw, f"{prefix}message {i + 1}")
        content = (msg.session, msg.speaker, msg.text, msg.time_given or "")
        nth = occurrences.get(content, 0)
        occurrences[content] = nth + 1
        yield msg, msg.id or stable_id("t", *content, str(nth))


def normalise(msg: object, place: str) -> MessageFields:
    """One message's fields, checked; ``place`` (``message 3``) starts every error."""
    if not isinstance(msg, Mapping):
        raise InputError(f"{place}: expected an object, got {type(msg).__name__}")
    scoped = [k for k in SCOPE_KEYS if msg.get(k) is not None]
    if scoped:
        raise InputError(
            f"{place}: '{scoped[0]}' is not a message field; whose memory it is comes from the call, not the message"
        )
    role = _who(msg, "role", place)
    named = _who(msg, "speaker", place) or _who(msg, "name", place)
    speaker = named or role
    if speaker is None:
        raise InputError(f"{place}: missing field 'speaker' or 'role'")
    text = _text(msg, place)
    timestamp, given = _time(msg, place)
    metadata = _metadata(msg.get("metadata"), place)
    if named is not None and role is not None and role != named and "role" not in (metadata or {}):
        metadata = {**(metadata or {}), "role": role}
    return MessageFields(
        speaker=speaker,
        text=text,
        session=optional_label(msg, "session", place) or "1",
        id=optional_label(msg, "id", place),
        timestamp=timestamp,
        time_given=given,
        image_caption=_caption(msg, place),
        metadata=metadata,
    )


def _text(msg: Mapping[str, Any], place: str) -> str:
    if msg.get("text") is not None:
        return check_text(msg["text"], "text", place, limit=MAX_MESSAGE_CHARS)
    content = msg.get("content")
    if isinstance(content, str):
        return check_text(content, "content", place, limit=MAX_MESSAGE_CHARS)
    if isinstance(content, list):
        pieces = (_part(part, n, place) for n, part in enumerate(content, 1))
        joined = "\n".join(piece for piece in pieces if piece.strip())
        return check_text(joined, "content", place, limit=MAX_MESSAGE_CHARS)
    if content is not None:
        raise InputError(
            f"{place}: 'content' must be a string or a list of content parts, got {type(content).__name__}"
        )
    if isinstance(msg.get("refusal"), str) and msg["refusal"].strip():
        return check_text(msg["refusal"], "refusal", place, limit=MAX_MESSAGE_CHARS)
    calls = msg.get("tool_calls")
    if isinstance(calls, list) and calls:
        shown = f"[tool call: {', '.join(_tool_name(c) for c in calls)}]"
        return check_text(shown, "tool_calls", place, limit=MAX_MESSAGE_CHARS)
    raise InputError(f"{place}: missing field 'text' or 'content'")


def _part(part: object, n: int, place: str) -> str:
    """One OpenAI content part as text: its text, or a short placeholder for what is not text."""
    where = f"{place}: 'content' part {n}"
    if not isinstance(part, Mapping):
        raise InputError(f"{where} must be an object with a 'type', got {type(part).__name__}")
    kind = part.get("type", "text" if "text" in part else None)
    if not isinstance(kind, str) or not kind.strip():
        raise InputError(f"{where} needs a 'type' (text, image_url, input_audio, file, refusal)")
    if kind in TEXT_PARTS:
        field = TEXT_PARTS[kind]
        value = part.get(field)
        if not isinstance(value, str):
            got = "nothing" if value is None else type(value).__name__
            raise InputError(f"{where} ({kind}) needs a string '{field}', got {got}")
        return check_text(value, field, where, limit=MAX_MESSAGE_CHARS, empty=True)
    if kind in PLACEHOLDERS:
        return PLACEHOLDERS[kind]
    if kind in FILE_PARTS:
        inner = part.get(kind)
        name = inner.get("filename") if isinstance(inner, Mapping) else None
        name = name if isinstance(name, str) else part.get("filename")
        return f"[file: {_short(name)}]" if isinstance(name, str) and name.strip() else "[file]"
    return f"[{_short(kind)}]"


def _tool_name(call: object) -> str:
    fn = call.get("function") if isinstance(call, Mapping) else None
    name = fn.get("name") if isinstance(fn, Mapping) else None
    return _short(name) if isinstance(name, str) and name.strip() else "tool"


def _short(value: str, limit: int = 80) -> str:
    one = " ".join(value.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _time(msg: Mapping[str, Any], place: str) -> tuple[str | None, str | None]:
    for name in TIME_FIELDS:
        if msg.get(name) not in (None, ""):
            return message_time(msg[name], name, place)
    return None, None


def _metadata(value: object, place: str) -> dict[str, Any] | None:
    return check_metadata(value, place, limit=MAX_METADATA_CHARS)


def _who(obj: Mapping[str, Any], name: str, place: str) -> str | None:
    """An optional speaker, role or name: a short string; absent, null or "" mean none."""
    value = obj.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(f"{place}: '{name}' must be a string, got {type(value).__name__}")
    return check_label(value, name, place)


def optional_text(obj: Mapping[str, Any], name: str, place: str) -> str | None:
    """``obj[name]`` as text, a string or a number; absent, null or "" mean none."""
    value = obj.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{place}: '{name}' must be a string or number, got {type(value).__name__}")
    return str(value)


def optional_label(obj: Mapping[str, Any], name: str, place: str) -> str | None:
    """An optional label (id, session); absent, null or "" mean none."""
    value = optional_text(obj, name, place)
    return None if value is None else check_label(value, name, place)


def _caption(obj: Mapping[str, Any], place: str) -> str | None:
    value = obj.get("image_caption")
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{place}: 'image_caption' must be a string, got {type(value).__name__}")
    return check_text(str(value), "image_caption", place, limit=MAX_CAPTION_CHARS, empty=True)
