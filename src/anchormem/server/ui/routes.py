"""The inspector's read-only API under ``/v1/users/{user_id}/inspect``: the timeline, one record with
its ties, the event graph, a search with each signal's contribution and the reader's prompt block, a
delete's dry run, and the memory's size. The same keys and per-user checks as the rest of the API."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from starlette.concurrency import run_in_threadpool

from anchormem.answer.highlight import anchor_spans, term_spans
from anchormem.answer.render import render_memories
from anchormem.errors import InputError, NotFoundError
from anchormem.lifecycle.preview import preview_delete
from anchormem.llm.cache import ResponseCache
from anchormem.model import Scope
from anchormem.search.explain import explain
from anchormem.search.recipes import RECIPES
from anchormem.server.params import AgentQ, DeleteTarget, LabelQ, OffsetQ, RunQ, error_responses, page_of
from anchormem.server.schemas import SearchRequest
from anchormem.server.service import Key, Service, Svc, UserId
from anchormem.server.ui.timeline import MAX_TIES, Inventory, InventoryCache, SessionInfo
from anchormem.wire.scopes import covers, describe, make_scope

router = APIRouter(
    prefix="/v1/users/{user_id}/inspect", tags=["inspect"], responses=error_responses(400, 401, 403, 404)
)
key_router = APIRouter(prefix="/v1/inspect", tags=["inspect"])

MAX_PAGE = 500

T = TypeVar("T")
DayQ = Annotated[str | None, Query(max_length=32, description="YYYY-MM-DD")]


class InspectedMemory:
    """The memory one inspector call reads: the caller's user (one its key may see) and the optional
    finer scope, with the inventory of that memory (built once per state of it, shared by the calls)."""

    def __init__(
        self, request: Request, user_id: UserId, service: Svc, agent_id: str | None = AgentQ, run_id: str | None = RunQ
    ) -> None:
        self.user_id, self.agent_id, self.run_id = user_id, agent_id, run_id
        self.scope: Scope = make_scope(user_id, agent_id, run_id)
        self.service: Service = service
        self._state = request.app.state

    def inventory(self) -> Inventory:
        cache = getattr(self._state, "inspect_inventories", None)
        if cache is None:
            cache = self._state.inspect_inventories = InventoryCache()
        inventory: Inventory = cache.get(self.service.memory, self.scope)
        return inventory

    async def read(self, build: Callable[[Inventory], T]) -> T:
        """``build`` over the inventory, off the event loop."""
        return await run_in_threadpool(lambda: build(self.inventory()))


Inspected = Annotated[InspectedMemory, Depends()]


def _day(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise InputError(f"{name} must be a date as YYYY-MM-DD, not {value!r}") from exc


@key_router.get("/key", summary="What the caller's key may see: admin or not, its users, their stored scopes")
async def key_info(key: Key, service: Svc) -> Any:
    scopes = await run_in_threadpool(service.memory.users)
    return {
        "admin": key.admin,
        "users": list(key.users),
        "scopes": [dataclasses.asdict(s) for s in scopes if key.may(s.user_id)],
        "variants": sorted(RECIPES),
        "default_variant": service.memory.settings.retrieval.variant,
    }


class SessionFilter:
    """Which sessions the timeline lists: one label, those a speaker speaks in, those dated in a range."""

    def __init__(
        self, session: LabelQ = None, speaker: LabelQ = None, date_from: DayQ = None, date_to: DayQ = None
    ) -> None:
        self.session, self.speaker = session, speaker
        self.day_from, self.day_to = _day(date_from, "date_from"), _day(date_to, "date_to")

    def apply(self, inv: Inventory) -> list[SessionInfo]:
        return inv.filter_sessions(
            session=self.session, speaker=self.speaker, day_from=self.day_from, day_to=self.day_to
        )


@router.get("/sessions", summary="Sessions by date (paginated), filtered by session, speaker and date range")
async def sessions(
    inspected: Inspected,
    only: Annotated[SessionFilter, Depends()],
    offset: OffsetQ = 0,
    limit: int = Query(20, ge=1, le=MAX_PAGE),
) -> Any:
    def build(inv: Inventory) -> dict[str, Any]:
        chosen = only.apply(inv)
        page = page_of(chosen, offset, limit)
        page["items"] = [inv.session_summary(s) for s in page["items"]]
        days = [s.day for s in inv.sessions if s.day is not None]
        page["speakers"] = inv.speakers()
        page["first_day"] = min(days).isoformat() if days else None
        page["last_day"] = max(days).isoformat() if days else None
        page["counts"] = {
            "sessions": len(inv.sessions),
            "turns": len(inv.turns),
            "contexts": len(inv.contexts),
            "facts": len(inv.facts),
            "events": len(inv.events),
        }
        return page

    return await inspected.read(build)


@router.get("/session", summary="One session: a page of its turns with their contexts, facts and events")
async def session_detail(
    inspected: Inspected,
    session: str = Query(..., min_length=1, max_length=256),
    speaker: LabelQ = None,
    offset: OffsetQ = 0,
    limit: int = Query(50, ge=1, le=MAX_PAGE),
) -> Any:
    def build(inv: Inventory) -> dict[str, Any]:
        info = inv.session_of.get(session)
        if info is None:
            raise NotFoundError(f"no session {session!r} in the memory of {describe(inspected.scope)}")
        turn_ids = [t for t in info.turn_ids if not speaker or inv.turns[t].speaker == speaker]
        page = page_of(turn_ids, offset, limit)
        page["items"] = [inv.turn_dict(t) for t in page["items"]]
        shown = list(dict.fromkeys(c for t in page["items"] for c in t["context_ids"]))
        contexts = [inv.context_dict(c) for c in shown]
        events = list(dict.fromkeys(e for c in contexts for f in c["facts"] for e in f["event_ids"]))
        page.update(inv.session_summary(info))
        page["turns"] = len(info.turn_ids)
        page["contexts"] = contexts
        page["events"] = [inv.event_brief(e) for e in events[:MAX_TIES]]
        page["events_total"] = len(events)
        return page

    return await inspected.read(build)


@router.get("/record/{record_id}", summary="One record (context, fact, event or turn) with what it is tied to")
async def record(record_id: str, inspected: Inspected) -> Any:
    return await inspected.read(lambda inv: inv.record(record_id))


@router.get("/graph", summary="The event graph: events (paginated) with their facts, sessions and dates")
async def graph(
    inspected: Inspected,
    session: str | None = Query(None, max_length=256, description="only events with a fact from the given session"),
    offset: OffsetQ = 0,
    limit: int = Query(25, ge=1, le=200),
) -> Any:
    def build(inv: Inventory) -> dict[str, Any]:
        ranked = inv.ranked_events()
        if session:
            ranked = [e for e in ranked if session in inv.event_sessions(e)]
        page = page_of(ranked, offset, limit)
        page["items"] = [inv.event_dict(e) for e in page["items"]]
        shown = {s for e in page["items"] for s in e["sessions"]}
        page["sessions"] = [
            {"session": s.label, "date": s.date, "day": s.day.isoformat() if s.day else None}
            for s in inv.sessions
            if s.label in shown
        ]
        page["facts_total"] = len(inv.facts)
        page["facts_in_events"] = len(inv.events_of_fact)
        return page

    return await inspected.read(build)


@router.post("/search", summary="A search with each signal's contribution, highlighted anchors and the prompt block")
async def search(body: SearchRequest, user_id: UserId, service: Svc) -> Any:
    memory = service.memory

    def run() -> dict[str, Any]:
        started = time.perf_counter()
        options = {k: v for k, v in body.model_dump(exclude={"query", "format"}).items() if v is not None}
        # the very search /search runs (scope, filters, settings), with its trace: nothing is recomputed
        result = memory.search(body.query, user_id=user_id, trace=True, **options)
        seconds = time.perf_counter() - started
        scope = make_scope(user_id, body.agent_id, body.run_id)
        if not result.contexts and not any(s == scope or covers(scope, s) for s in memory.users()):
            raise NotFoundError(f"no memory for {describe(scope)}")  # the page says the memory is empty
        why = explain(result)
        by_id = {e.context_id: e for e in why.contexts}
        prompt = render_memories(result, with_turn_ids=True)
        contexts = []
        for position, hit in enumerate(result.contexts, 1):
            text = hit.context.text
            anchors = [a.fact.text for a in hit.anchors]
            spans = [*anchor_spans(text, anchors), *term_spans(text, result.query)]
            contexts.append(
                {
                    "position": position,
                    "context": dataclasses.asdict(hit.context),
                    "score": hit.score,
                    "relevance": hit.relevance,
                    "adjustments": dict(hit.adjustments),
                    "latest": hit.latest,  # compared by date with the other returned statements on the subject
                    "newer": list(hit.newer),
                    "anchors": [dataclasses.asdict(a) for a in hit.anchors],
                    "via_events": list(hit.via_events),
                    "spans": [dataclasses.asdict(s) for s in spans],
                    "explanation": dataclasses.asdict(by_id[hit.context.id]) if hit.context.id in by_id else None,
                }
            )
        return {
            "query": result.query,
            "variant": why.variant,
            "variants": sorted(RECIPES),
            "mode": why.mode,
            "mmr_lambda": why.mmr_lambda,
            "shared_turns": why.shared_turns,
            "stages": why.stages,
            "bound": why.bound,
            "notes": why.notes,
            "contexts": contexts,
            "events": [dataclasses.asdict(e) for e in result.events],
            "turn_ids": result.turn_ids,
            "prompt": {"text": prompt, "chars": len(prompt), "approx_tokens": (len(prompt) + 3) // 4},
            "seconds": round(seconds, 6),
        }

    return await run_in_threadpool(run)


@router.get("/delete-preview", summary="What a delete would remove, without deleting anything")
async def delete_preview(inspected: Inspected, target: Annotated[DeleteTarget, Depends()]) -> Any:
    memory = inspected.service.memory

    def run() -> dict[str, Any]:
        llm = memory.llm  # the cache a delete forgets from: the configured one, else the file left by an earlier one
        cache = llm if isinstance(llm, ResponseCache) else memory.settings.cache_path
        preview = preview_delete(
            memory.store, inspected.user_id, inspected.agent_id, inspected.run_id, **target.selector(), cache=cache
        )
        out = dataclasses.asdict(preview)
        try:
            out["labels"] = _labels(inspected.inventory(), preview)
        except NotFoundError:  # ``all`` over finer scopes only: the ids alone
            out["labels"] = {}
        return out

    return await run_in_threadpool(run)


def _labels(inv: Inventory, preview: Any) -> dict[str, str]:
    """A short line of what each listed record says, so the confirmation shows the words that go."""
    out: dict[str, str] = {}
    for tid in preview.turn_ids:
        if tid in inv.turns:
            out[tid] = _short(f"{inv.turns[tid].speaker}: {inv.turns[tid].text}")
    for cid in preview.context_ids:
        if cid in inv.contexts:
            out[cid] = f"session {inv.contexts[cid].session}, turns {', '.join(inv.contexts[cid].turn_ids)}"
    for fid in preview.fact_ids:
        if fid in inv.facts:
            out[fid] = _short(inv.facts[fid].text)
    for eid in preview.event_ids:
        if eid in inv.events:
            out[eid] = _short(inv.events[eid].text)
    return out


def _short(text: str, limit: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@router.get("/size", summary="How much this memory holds: text and vector bytes (store file size for admin keys)")
async def size(inspected: Inspected, key: Key) -> Any:
    memory = inspected.service.memory

    def run(inv: Inventory) -> dict[str, Any]:
        text = sum(len(t.text.encode()) + len((t.image_caption or "").encode()) for t in inv.turns.values())
        text += sum(len(c.text.encode()) for c in inv.contexts.values())
        text += sum(len(f.text.encode()) for f in inv.facts.values())
        text += sum(len(e.text.encode()) for e in inv.events.values())
        dim = memory.store.get_meta("embedder_dim")
        vectors = (len(inv.facts) + len(inv.events)) * int(dim or 0) * 4
        out: dict[str, Any] = {"text_bytes": text, "vector_bytes": vectors, "total_bytes": text + vectors}
        out["store_file_bytes"] = _file_bytes(memory.settings.store_location) if key.admin else None
        return out

    return await inspected.read(run)


def _file_bytes(location: str) -> int | None:
    """Bytes of an SQLite store with its WAL (the whole file holds every user: admin keys only)."""
    if "://" in location:
        return None
    path = Path(location).expanduser()
    total = 0
    for p in (path, path.with_name(path.name + "-wal")):
        if p.exists():
            total += p.stat().st_size
    return total if path.exists() else None
