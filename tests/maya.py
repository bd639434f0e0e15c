"""A chat of Maya's with recorded LLM answers: what a capable model wrote for each excerpt (facts) and each
cluster (events, with the changes they list), and an embedder that puts statements of one subject close
together as MiniLM does. Shared by the supersession and batch ingest tests."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from anchormem.embed.hashing import HashEmbedder
from anchormem.embed.protocol import Vectors
from anchormem.llm.protocol import Message

# recorded extraction answers: a phrase of the excerpt -> the facts the model wrote for it
FACTS = {
    "I live in Lavapiés": ["Maya lives in Lavapiés."],
    "moved to Carabanchel": ["Maya moved to Carabanchel in September 2024."],
    "chess club meets on Tuesdays": ["Maya's chess club meets on Tuesdays."],
    "Actually it's Thursday": ["Maya's chess club meets on Thursdays, not Tuesdays."],
    "a cat named Pico": ["Maya has a cat named Pico."],
    "Pico turned three": ["Maya's cat Pico turned three."],
}
# recorded integration answers: the facts of a cluster -> the event and the change it lists (older, newer by fact)
EVENTS: dict[frozenset[str], tuple[str, tuple[str, str, str] | None]] = {
    frozenset({"Maya lives in Lavapiés.", "Maya moved to Carabanchel in September 2024."}): (
        "Maya lived in Lavapiés and moved from Lavapiés to Carabanchel in September 2024.",
        ("Maya moved to Carabanchel in September 2024.", "Maya lives in Lavapiés.", "change"),
    ),
    frozenset({"Maya's chess club meets on Tuesdays.", "Maya's chess club meets on Thursdays, not Tuesdays."}): (
        "Maya first said her chess club meets on Tuesdays, then corrected it: it meets on Thursdays.",
        ("Maya's chess club meets on Thursdays, not Tuesdays.", "Maya's chess club meets on Tuesdays.", "correction"),
    ),
    frozenset({"Maya has a cat named Pico.", "Maya's cat Pico turned three."}): (
        "Maya has a cat named Pico, who turned three in October 2024.",
        None,  # more about the same cat: nothing replaced
    ),
}
TOPICS = {"home": ("lavapiés", "carabanchel", "live", "moved"), "chess": ("chess",), "cat": ("cat", "pico")}


class TopicEmbedder:
    """Texts on one topic (a word of :data:`TOPICS`) land close together (cosine > 0.9), others apart: what
    MiniLM gives the statements of one subject, without the model."""

    def __init__(self, hash_weight: float = 0.3) -> None:
        self._hash = HashEmbedder(64)
        self._weight = hash_weight  # 0.8: one subject's statements at cosine 0.6-0.8, as MiniLM puts a move

    @property
    def name(self) -> str:
        return "topic-64"

    @property
    def dim(self) -> int:
        return 64 + len(TOPICS)

    def embed(self, texts: Sequence[str]) -> Vectors:
        base = np.asarray(self._hash.embed(list(texts)), dtype=np.float32) * self._weight
        topic = np.zeros((len(texts), len(TOPICS)), dtype=np.float32)
        for row, text in enumerate(texts):
            words = set(re.findall(r"\w+", text.lower()))
            for i, keys in enumerate(TOPICS.values()):
                if words & set(keys):
                    topic[row, i] = 1.0
        out = np.hstack([base, topic])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def _excerpts(content: str) -> list[tuple[str, str]]:
    """(context, key fact) per excerpt of an integration prompt."""
    found = re.findall(r"Excerpt \d+:\n(.*?)\nKey fact: (?:<fact>)?(.*?)(?:</fact>)?\n", content + "\n", re.DOTALL)
    return [(c, f) for c, f in found]


def recorded(messages: list[Message]) -> str:
    content = messages[-1]["content"]
    if "Key fact:" in content:
        pairs = _excerpts(content)
        known = frozenset(f for _, f in pairs)
        text, change = EVENTS.get(known, (" ".join(f for _, f in pairs), None))
        changes: list[dict[str, Any]] = []
        if change is not None:
            number = {f: i for i, (_, f) in enumerate(pairs, 1)}
            changes.append({"newer": number[change[0]], "older": number[change[1]], "kind": change[2]})
        return json.dumps({"event": text, "changes": changes})
    excerpt = content.rsplit("Excerpt:", 1)[-1]
    return json.dumps([fact for phrase, facts in FACTS.items() if phrase in excerpt for fact in facts])


def chat(*said: tuple[str, str]) -> list[dict[str, Any]]:
    """One message of Maya's per session, each with its date."""
    return [
        {"speaker": "Maya", "text": text, "session": str(i), "timestamp": when}
        for i, (when, text) in enumerate(said, 1)
    ]


MOVE = chat(
    ("2024-03-02T10:00:00", "I live in Lavapiés with my partner."),
    ("2024-09-20T18:00:00", "We finally moved to Carabanchel last week!"),
)


# four sessions of Maya's with the assistant: a move, a correction, a cat that only gets older
SESSIONS = [
    [
        ("Maya", "2024-03-02T10:00:00", "I live in Lavapiés with my partner."),
        ("assistant", "2024-03-02T10:00:05", "Lavapiés is lively! How do you like the neighbourhood?"),
        ("Maya", "2024-03-02T10:01:00", "I love it. My chess club meets on Tuesdays."),
    ],
    [
        ("Maya", "2024-05-01T09:00:00", "I adopted a cat named Pico."),
        ("assistant", "2024-05-01T09:00:04", "Congratulations on Pico! Cats settle in within a few weeks."),
    ],
    [
        ("Maya", "2024-09-20T18:00:00", "We finally moved to Carabanchel last week!"),
        ("Maya", "2024-09-20T18:01:00", "Actually it's Thursday, not Tuesday, for the chess club."),
        ("assistant", "2024-09-20T18:01:06", "Noted: Thursdays for chess."),
    ],
    [("Maya", "2024-10-03T12:00:00", "Pico turned three today.")],
]


def session_messages(number: int) -> list[dict[str, Any]]:
    """The messages of session ``number`` (1-based) as ``add`` takes them."""
    return [
        {"speaker": who, "text": text, "session": str(number), "timestamp": when}
        for who, when, text in SESSIONS[number - 1]
    ]


def all_sessions() -> list[dict[str, Any]]:
    return [m for n in range(1, len(SESSIONS) + 1) for m in session_messages(n)]
