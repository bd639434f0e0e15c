"""Haystacks, LongMemEval's construction: a chat's own sessions interleaved by date with at least
``min_chars`` characters of other people's sessions.

Filler sessions come from other chats (LoCoMo-layout samples). People's chats are renamed to
``user``/``assistant`` (their first speaker becomes the user), so the haystack is one user's history.
A filler session is left out when it holds, case-insensitively, any of the chat's answer terms or
gold answers (short answers of up to four words), or the user's name: the filler never holds the
answer. Filler sessions get dates spread evenly over the chat's own span and are interleaved with
its sessions by date; the chat's messages keep their ids (so its evidence still names them), filler
messages get ids ``H<session>:<n>``.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from anchormem.errors import InputError
from anchormem.eval.answers.chats import iso
from anchormem.text.dates import locomo_date

__all__ = ["Session", "build_haystack", "sessions_of"]

Session = tuple[str, list[dict[str, Any]]]  # (date as written, turns)


def sessions_of(sample: dict[str, Any]) -> list[Session]:
    conv = sample["conversation"]
    numbers = sorted(int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.count("_") == 1)
    return [(str(conv.get(f"session_{n}_date_time") or ""), conv[f"session_{n}"]) for n in numbers]


def _as_roles(sample: dict[str, Any], turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    conv = sample["conversation"]
    first = str(conv.get("speaker_a", ""))
    if {first.lower(), str(conv.get("speaker_b", "")).lower()} == {"user", "assistant"}:
        return [{"speaker": t["speaker"].lower(), "text": t["text"]} for t in turns]
    return [{"speaker": "user" if t["speaker"] == first else "assistant", "text": t["text"]} for t in turns]


def _forbidden(sample: dict[str, Any]) -> list[str]:
    words: list[str] = []
    for qa in sample.get("qa") or []:
        words += [str(t) for t in qa.get("answer_terms") or []]
        answer = str(qa.get("answer", "")).strip().rstrip(".")
        if answer and len(answer.split()) <= 4 and len(answer) >= 3:
            words.append(answer)
    if sample.get("user_name"):
        words.append(str(sample["user_name"]))
    return [w.casefold() for w in words if w.strip()]


def _banned(sample: dict[str, Any]) -> re.Pattern[str]:
    """What a filler session may not hold: any of :func:`_forbidden` as a whole word or phrase (an answer
    "Go", the language, bans a session that says "go" but not one that says "ago" or "good")."""
    words = sorted(set(_forbidden(sample)), key=len, reverse=True)
    if not words:
        return re.compile(r"(?!)")
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)")


def _when(date_time: str) -> datetime:
    text = iso(date_time)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"haystack: cannot read the session date {date_time!r}") from None


def build_haystack(
    sample: dict[str, Any], fillers: Sequence[dict[str, Any]], *, min_chars: int = 400_000, seed: int = 32
) -> dict[str, Any]:
    """``sample`` (a role/content chat) with filler sessions of ``fillers`` until at least ``min_chars``
    characters of filler; its questions and evidence are kept. Raises :class:`InputError` when the
    fillers hold too little usable text."""
    own = sessions_of(sample)
    if not own:
        raise InputError(f"haystack: {sample.get('sample_id')} has no sessions")
    banned = _banned(sample)
    pool: list[list[dict[str, Any]]] = []
    for filler in fillers:
        if filler.get("sample_id") == sample.get("sample_id"):
            continue
        for _, turns in sessions_of(filler):
            text = " ".join(str(t.get("text", "")) for t in turns).casefold()
            if turns and not banned.search(text):
                pool.append(_as_roles(filler, turns))
    random.Random(f"{seed}|{sample.get('sample_id')}").shuffle(pool)
    chosen: list[list[dict[str, Any]]] = []
    size = 0
    for turns in pool:
        if size >= min_chars:
            break
        chosen.append(turns)
        size += sum(len(t["text"]) for t in turns)
    if size < min_chars:
        raise InputError(f"haystack: only {size:,} characters of usable filler for {sample.get('sample_id')}")
    start, end = _when(own[0][0]), _when(own[-1][0])
    span = max(end - start, timedelta(days=1))
    dated: list[tuple[datetime, int, str, list[dict[str, Any]]]] = []
    for written, turns in own:
        dated.append((_when(written), 1, written, [dict(t) for t in turns]))
    for i, turns in enumerate(chosen):
        when = start + span * (i + 0.5) / len(chosen)
        when = when.replace(second=0, microsecond=0)
        dated.append((when, 0, locomo_date(when), [{**t, "dia_id": f"H{i + 1}:{k + 1}"} for k, t in enumerate(turns)]))
    dated.sort(key=lambda item: (item[0], item[1]))
    conversation: dict[str, Any] = {"speaker_a": "user", "speaker_b": "assistant"}
    for n, (_, _, written, turns) in enumerate(dated, start=1):
        conversation[f"session_{n}_date_time"] = written
        conversation[f"session_{n}"] = turns
    out = {key: copy.deepcopy(value) for key, value in sample.items() if key != "conversation"}
    out["sample_id"] = f"{sample.get('sample_id')}-haystack"
    out["conversation"] = conversation
    out["haystack_filler_chars"] = size
    return out
