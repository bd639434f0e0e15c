"""One scope's memory arranged for browsing: sessions by date, their turns, the contexts cut from
them, the facts anchored in each context, the events tying facts across sessions.

An :class:`Inventory` is built once per scope version (a write bumps the version, so a stale one is
never served) and answers every page from memory: a 10,000-turn memory is read from the store once,
then each page costs only its own rows.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from anchormem.errors import NotFoundError
from anchormem.memory import Memory
from anchormem.model import Context, Event, Fact, Scope, Turn
from anchormem.server.ui.dates import parse_day
from anchormem.wire.scopes import describe
from anchormem.wire.serialize import to_jsonable


@dataclass
class SessionInfo:
    label: str
    date: str | None  # as stored (the DATE line of its first context, else its first turn's timestamp)
    day: dt.date | None
    turn_ids: list[str] = field(default_factory=list)
    speakers: list[str] = field(default_factory=list)
    context_ids: list[str] = field(default_factory=list)
    order: int = 0  # first appearance in the conversation

    def sort_key(self) -> tuple[int, dt.date, int]:
        return (0, self.day, self.order) if self.day is not None else (1, dt.date.min, self.order)


@dataclass
class Inventory:
    scope: Scope
    version: int
    turns: dict[str, Turn]
    contexts: dict[str, Context]
    facts: dict[str, Fact]
    events: dict[str, Event]
    sessions: list[SessionInfo]  # by date, undated last
    session_of: dict[str, SessionInfo]
    contexts_of_turn: dict[str, list[str]]
    facts_of_context: dict[str, list[str]]
    events_of_fact: dict[str, list[str]]
    _event_sessions: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _ranked_events: list[str] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, scope: Scope, version: int, turns: list[Turn], contexts: list[Context], facts: list[Fact],
              events: list[Event]) -> Inventory:  # fmt: skip
        sessions: dict[str, SessionInfo] = {}
        for t in turns:
            info = sessions.get(t.session)
            if info is None:
                info = sessions[t.session] = SessionInfo(t.session, t.timestamp, None, order=len(sessions))
            info.turn_ids.append(t.id)
            if t.speaker not in info.speakers:
                info.speakers.append(t.speaker)
        contexts_of_turn: dict[str, list[str]] = {}
        for c in contexts:
            info = sessions.get(c.session)
            if info is None:  # windows whose turns are gone cannot exist, but never hide one
                info = sessions[c.session] = SessionInfo(c.session, c.date, None, order=len(sessions))
            if not info.context_ids and c.date:
                info.date = c.date
            info.context_ids.append(c.id)
            for tid in c.turn_ids:
                contexts_of_turn.setdefault(tid, []).append(c.id)
        for info in sessions.values():
            info.day = parse_day(info.date)
        facts_of_context: dict[str, list[str]] = {}
        for f in facts:
            facts_of_context.setdefault(f.context_id, []).append(f.id)
        events_of_fact: dict[str, list[str]] = {}
        for e in events:
            for fid in e.fact_ids:
                events_of_fact.setdefault(fid, []).append(e.id)
        ordered = sorted(sessions.values(), key=SessionInfo.sort_key)
        return cls(
            scope=scope,
            version=version,
            turns={t.id: t for t in turns},
            contexts={c.id: c for c in contexts},
            facts={f.id: f for f in facts},
            events={e.id: e for e in events},
            sessions=ordered,
            session_of={s.label: s for s in ordered},
            contexts_of_turn=contexts_of_turn,
            facts_of_context=facts_of_context,
            events_of_fact=events_of_fact,
        )

    # -- derived -------------------------------------------------------------------------------------

    def speakers(self) -> list[str]:
        return list(dict.fromkeys(sp for s in self.sessions for sp in s.speakers))

    def facts_of_session(self, info: SessionInfo) -> list[str]:
        return [f for c in info.context_ids for f in self.facts_of_context.get(c, [])]

    def events_of_session(self, info: SessionInfo) -> list[str]:
        return list(dict.fromkeys(e for f in self.facts_of_session(info) for e in self.events_of_fact.get(f, [])))

    def session_of_fact(self, fact_id: str) -> SessionInfo | None:
        fact = self.facts.get(fact_id)
        context = self.contexts.get(fact.context_id) if fact else None
        return self.session_of.get(context.session) if context else None

    def filter_sessions(
        self, *, session: str | None, speaker: str | None, day_from: dt.date | None, day_to: dt.date | None
    ) -> list[SessionInfo]:
        out = []
        for s in self.sessions:
            if session and s.label != session:
                continue
            if speaker and speaker not in s.speakers:
                continue
            if (day_from or day_to) and s.day is None:
                continue
            if day_from and s.day is not None and s.day < day_from:
                continue
            if day_to and s.day is not None and s.day > day_to:
                continue
            out.append(s)
        return out

    def session_summary(self, s: SessionInfo) -> dict[str, Any]:
        return {
            "session": s.label,
            "date": s.date,
            "day": s.day.isoformat() if s.day else None,
            "turns": len(s.turn_ids),
            "speakers": s.speakers,
            "contexts": len(s.context_ids),
            "facts": len(self.facts_of_session(s)),
            "events": len(self.events_of_session(s)),
            "first_turn": s.turn_ids[0] if s.turn_ids else None,
        }

    def event_sessions(self, event_id: str) -> list[str]:
        """The sessions an event's facts come from, in date order (computed once per event)."""
        found = self._event_sessions.get(event_id)
        if found is None:
            labels = {s.label for f in self.events[event_id].fact_ids if (s := self.session_of_fact(f)) is not None}
            found = [s.label for s in self.sessions if s.label in labels]
            self._event_sessions[event_id] = found
        return found

    def ranked_events(self) -> list[str]:
        """Event ids, those tying the most sessions first, then by their earliest session's date."""
        if self._ranked_events is None:
            order = {s.label: i for i, s in enumerate(self.sessions)}

            def key(eid: str) -> tuple[int, int]:
                sessions = self.event_sessions(eid)
                return (-len(sessions), order[sessions[0]] if sessions else len(order))

            self._ranked_events = sorted(self.events, key=key)
        return self._ranked_events

    def event_brief(self, event_id: str) -> dict[str, Any]:
        e = self.events[event_id]
        return {"id": e.id, "text": e.text, "source": e.source, "facts": len(e.fact_ids),
                "sessions": self.event_sessions(event_id)}  # fmt: skip

    def fact_dict(self, fact_id: str) -> dict[str, Any]:
        f = self.facts[fact_id]
        s = self.session_of_fact(fact_id)
        return {
            "id": f.id,
            "text": f.text,
            "source": f.source,
            "context_id": f.context_id,
            "session": s.label if s else None,
            "date": s.date if s else None,
            "day": s.day.isoformat() if s and s.day else None,
            "event_ids": self.events_of_fact.get(f.id, []),
        }

    def event_dict(self, event_id: str) -> dict[str, Any]:
        e = self.events[event_id]
        facts = [self.fact_dict(f) for f in e.fact_ids if f in self.facts]
        return {
            "id": e.id,
            "text": e.text,
            "source": e.source,
            "fact_ids": list(e.fact_ids),
            "facts": facts,
            "sessions": self.event_sessions(event_id),
        }

    def context_dict(self, context_id: str) -> dict[str, Any]:
        context: dict[str, Any] = to_jsonable(self.contexts[context_id])
        context["facts"] = [self.fact_dict(f) for f in self.facts_of_context.get(context_id, [])]
        return context

    def turn_dict(self, turn_id: str) -> dict[str, Any]:
        t = self.turns[turn_id]
        return {
            "id": t.id,
            "session": t.session,
            "position": t.position,
            "speaker": t.speaker,
            "text": t.text,
            "timestamp": t.timestamp,
            "image_caption": t.image_caption,
            "context_ids": self.contexts_of_turn.get(t.id, []),
        }

    def record(self, record_id: str) -> dict[str, Any]:
        """One record by id with what it is tied to."""
        if record_id in self.contexts:
            c = self.context_dict(record_id)
            events = list(dict.fromkeys(e for f in c["facts"] for e in f["event_ids"]))
            return {
                "kind": "context",
                "record": c,
                "turns": [self.turn_dict(t) for t in c["turn_ids"] if t in self.turns],
                "events": [self.event_brief(e) for e in events[:MAX_TIES]],
                "events_total": len(events),
            }
        if record_id in self.facts:
            f = self.fact_dict(record_id)
            return {
                "kind": "fact",
                "record": f,
                "contexts": [self.context_dict(f["context_id"])] if f["context_id"] in self.contexts else [],
                "events": [self.event_brief(e) for e in f["event_ids"][:MAX_TIES]],
                "events_total": len(f["event_ids"]),
            }
        if record_id in self.events:
            return {"kind": "event", "record": self.event_dict(record_id)}
        if record_id in self.turns:
            t = self.turn_dict(record_id)
            return {"kind": "turn", "record": t, "contexts": [self.context_dict(c) for c in t["context_ids"]]}
        raise NotFoundError(f"no record {record_id!r} in the memory of {describe(self.scope)}")


MAX_TIES = 100  # events listed beside one record or one page of turns (a fact may sit in many)


class InventoryCache:
    """The inventories of the scopes browsed lately, each dropped as soon as its scope changes."""

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._items: OrderedDict[Scope, Inventory] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, memory: Memory, scope: Scope) -> Inventory:
        version = memory.store.version(scope)
        with self._lock:
            cached = self._items.get(scope)
            if cached is not None and cached.version == version:
                self._items.move_to_end(scope)
                return cached
        user, agent, run = scope.user_id, scope.agent_id, scope.run_id
        inventory = Inventory.build(
            scope,
            version,
            memory.turns(user_id=user, agent_id=agent, run_id=run),
            memory.contexts(user_id=user, agent_id=agent, run_id=run),
            memory.facts(user_id=user, agent_id=agent, run_id=run),
            memory.events(user_id=user, agent_id=agent, run_id=run),
        )
        with self._lock:
            self._items[scope] = inventory
            self._items.move_to_end(scope)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return inventory
