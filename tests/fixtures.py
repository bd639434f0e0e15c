"""Small hand-made conversations shaped like LoCoMo, built in the tests themselves (no data files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anchormem.memory import Memory
    from anchormem.model import SearchResult

SESSION_1 = [
    ("Ana", "I finally adopted a dog from the shelter yesterday, his name is Pico."),
    ("Ben", "Congrats! I started learning the cello last month."),
    ("Ana", "Pico loves the beach, we walked along the coast this morning."),
    ("Ben", "My cello teacher says I should practice scales every day."),
    ("Ana", "I am painting a portrait of Pico for my grandmother."),
]
SESSION_2 = [
    ("Ben", "I played my first cello recital on Saturday, I was so nervous."),
    ("Ana", "How did it go? I finished the portrait of Pico and gave it to my grandmother."),
    ("Ben", "It went well, I played a Bach suite."),
    ("Ana", "Bach on the cello is beautiful. My grandmother hung the painting in her kitchen."),
]


def locomo_sample(
    sample_id: str = "conv-1",
    speakers: tuple[str, str] = ("Ana", "Ben"),
    sessions: tuple[list[tuple[str, str]], ...] = (SESSION_1, SESSION_2),
) -> dict[str, Any]:
    conv: dict[str, Any] = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    dates = ["1:56 pm on 8 May, 2023", "7:30 pm on 20 May, 2023", "9:00 am on 2 June, 2023"]
    for n, turns in enumerate(sessions, 1):
        conv[f"session_{n}_date_time"] = dates[n - 1]
        conv[f"session_{n}"] = [{"speaker": s, "dia_id": f"D{n}:{i + 1}", "text": t} for i, (s, t) in enumerate(turns)]
    conv["session_1"][2]["blip_caption"] = "a photo of a dog on a beach"
    return {
        "sample_id": sample_id,
        "conversation": conv,
        "qa": [{"question": "What is the name of Ana's dog?", "answer": "Pico", "evidence": ["D1:1"], "category": 4}],
    }


def write_locomo(path: Path, samples: list[dict[str, Any]] | None = None) -> Path:
    path.write_text(json.dumps(samples or [locomo_sample()]), encoding="utf-8")
    return path


def messages(
    user_turns: list[tuple[str, str]], session: str = "1", stamp: str = "2024-03-01 10:00"
) -> list[dict[str, str]]:
    return [{"speaker": s, "text": t, "session": session, "timestamp": stamp} for s, t in user_turns]


def add_user_and_coach_budget(memory: Memory) -> None:
    """Alice's work note (session "1", metadata topic "work") and her coach's plan (session "2", a Unix
    time): a user scope and an agent sub-scope for the clients' and the REST API's narrowing tests."""
    memory.add(
        [{"role": "user", "content": "Budget review at work.", "session": "1", "metadata": {"topic": "work"}}],
        user_id="alice",
    )
    memory.add(
        [{"role": "user", "content": "The coach's budget plan.", "session": "2", "created_at": 1717000000}],
        user_id="alice",
        agent_id="coach",
    )


def search_view(result: SearchResult, places: int = 9, anchor_places: int = 6) -> list[tuple[Any, ...]]:
    """Everything a search returns, for comparing two searches: contexts with their ranks, scores (to
    ``places``), adjustments, marks and anchors (to ``anchor_places``), then the events."""
    rows: list[tuple[Any, ...]] = [
        (
            h.context.id,
            h.rank,
            round(h.score, places),
            round(h.relevance, places),
            tuple((k, round(v, places)) for k, v in h.adjustments),
            h.latest,
            h.newer,
            tuple((a.fact.id, round(a.score, anchor_places)) for a in h.anchors),
            h.via_events,
        )
        for h in result.contexts
    ]
    rows.extend((e.event.id, round(e.score, anchor_places), e.event.text, e.context_ids) for e in result.events)
    return rows
