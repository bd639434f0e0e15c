"""Export a memory to portable JSONL records and import them into an empty store.

One header record, then per scope: a ``scope`` record followed by its ``turn``,
``context`` (with extraction state and, for a passage of a long message, its ``offsets``; an export
without them imports as whole messages), ``fact`` and ``event`` records (vectors as base64
little-endian float32, so no re-embedding and an exact round trip), ``usage`` and
``history``. Import validates every record before it writes anything: every string storable (no NUL
byte, no lone surrogate, labels without control characters, bounded lengths), every number in its
column's range, every vector finite and of the header's dimension; a write that fails half-way removes
the scopes it created (see :func:`write_plan`).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from anchormem.errors import InputError
from anchormem.lifecycle import export_fields as read
from anchormem.model import CHANGE_KINDS, Context, Event, Fact, ImportReport, Scope, Supersession, Turn, Usage
from anchormem.store.protocol import Extraction, ExtractionState, Matrix, Store
from anchormem.wire.scopes import describe
from anchormem.wire.validation import (
    MAX_CAPTION_CHARS,
    MAX_DIM,
    check_int,
    check_json,
    check_metadata,
)

FORMAT = "anchormem-export"
VERSION = 1
_STATUSES = ("pending", "done", "failed", "batch")
_NEWER_COUNTS = ("cached_prompt_tokens", "cached_completion_tokens")  # usage fields an old export lacks


def export_records(store: Store, scopes: Iterable[Scope], embedder: str | None, dim: int) -> Iterator[dict[str, Any]]:
    yield {"type": "header", "format": FORMAT, "version": VERSION, "embedder": embedder, "dim": dim}
    for scope in scopes:
        yield {"type": "scope", "user_id": scope.user_id, "agent_id": scope.agent_id, "run_id": scope.run_id}
        for t in store.turns(scope):
            yield {"type": "turn", **_plain(t)}
        states = {s.context_id: s for s in store.extraction_states(scope)}
        for c in store.contexts(scope):
            st = states.get(c.id, ExtractionState(c.id, "pending"))
            yield {
                "type": "context",
                **_plain(c),
                "status": st.status,
                "error": st.error,
                "attempts": st.attempts,
                "ungrounded": st.ungrounded,
            }
        unlinked = set(store.unlinked_facts(scope))
        facts, fvecs = store.fact_matrix(scope)
        for f, v in zip(facts, fvecs, strict=True):
            yield {"type": "fact", **_plain(f), "linked": f.id not in unlinked, "vector": _b64(v)}
        events, evecs = store.event_matrix(scope)
        for e, v in zip(events, evecs, strict=True):
            yield {"type": "event", **_plain(e), "vector": _b64(v)}
        for phase, u in store.usage(scope).items():
            yield {"type": "usage", "phase": phase, **_plain(u)}
        for h in store.history(scope):
            if h.scope == scope:
                yield {"type": "history", "timestamp": h.timestamp, "op": h.op, "detail": h.detail}


def _supersedes(rec: Mapping[str, Any], fact_ids: Sequence[str], place: str) -> tuple[Supersession, ...]:
    """An event record's links (absent in exports of earlier versions): ``[[newer, older, kind], ...]`` between
    the event's own facts."""
    value = rec.get("supersedes", [])
    links: list[Supersession] = []
    if not isinstance(value, list):
        raise InputError(f"{place}: 'supersedes' must be a list of [newer fact id, older fact id, kind]")
    for link in value:
        ok = isinstance(link, list) and len(link) == 3 and all(isinstance(x, str) for x in link)
        if not ok or link[2] not in CHANGE_KINDS or link[0] == link[1] or not set(link[:2]) <= set(fact_ids):
            raise InputError(
                f"{place}: a 'supersedes' link must be [newer fact id, older fact id, kind] between two of the "
                f"event's facts, kind one of {', '.join(CHANGE_KINDS)}; got {link!r}"
            )
        links.append((link[0], link[1], link[2]))
    return tuple(links)


def _plain(record: Turn | Context | Fact | Event | Usage) -> dict[str, Any]:
    """A record's fields in their declared order, as JSON values (tuples become lists): the
    export record of that kind is ``type`` and these (and what the kind adds)."""
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        out[f.name] = [list(v) if isinstance(v, tuple) else v for v in value] if isinstance(value, tuple) else value
    return out


@dataclass
class ScopePlan:
    scope: Scope
    turns: list[Turn] = field(default_factory=list)
    contexts: list[Context] = field(default_factory=list)
    states: list[ExtractionState] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    fact_vectors: list[np.ndarray] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    event_vectors: list[np.ndarray] = field(default_factory=list)
    usage: dict[str, Usage] = field(default_factory=dict)
    history: list[tuple[float, str, dict[str, Any]]] = field(default_factory=list)
    turn_places: dict[str, str] = field(default_factory=dict)  # turn id -> "record N", for messages


@dataclass
class ImportPlan:
    embedder: str | None
    dim: int
    scopes: list[ScopePlan]


def _names(record: type, *more: str) -> frozenset[str]:
    return frozenset(("type", *(f.name for f in fields(record)), *more))


FIELDS: dict[str, frozenset[str]] = {
    "header": frozenset(("type", "format", "version", "embedder", "dim")),
    "scope": frozenset(("type", "user_id", "agent_id", "run_id")),
    "turn": _names(Turn),
    "context": _names(Context, "status", "error", "attempts", "ungrounded"),
    "fact": _names(Fact, "linked", "vector"),
    "event": _names(Event, "vector"),
    "usage": _names(Usage, "phase", "seconds"),  # "seconds": the call time of an export of an earlier version
    "history": frozenset(("type", "timestamp", "op", "detail")),
}
"""The fields each record type may hold; any other is refused (a typo or a crafted field would else
be dropped without a word)."""


def _known_fields(rec: Mapping[str, Any], kind: Any, place: str) -> None:
    allowed = FIELDS.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        return  # an unknown record type is refused where it is read
    unknown = sorted(str(k) for k in rec if k not in allowed)
    if unknown:
        raise InputError(
            f"{place}: unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown[:5]))} in a "
            f"{kind} record (known: {', '.join(sorted(allowed))})"
        )


def _every_turn_in_a_context(plan: ImportPlan) -> None:
    """Refuse turns that no context holds: the next add would derive them all (chunk, extract, embed),
    so a one-message add would take minutes; an export holds the contexts of every turn."""
    for sp in plan.scopes:
        held = {tid for c in sp.contexts for tid in c.turn_ids}
        loose = [t for t in sp.turns if t.id not in held]
        if loose:
            raise InputError(
                f"{sp.turn_places[loose[0].id]}: turn {loose[0].id!r} of {describe(sp.scope)} is in no context "
                f"({len(loose)} such turns): an export holds every turn's contexts. To load bare messages, add "
                "them instead (anchormem add FILE, or Memory.add): that derives contexts and facts as it goes"
            )


def parse_records(records: Iterable[Mapping[str, Any]]) -> ImportPlan:
    """Validate an export completely; raises :class:`InputError` naming the record."""
    header: ImportPlan | None = None
    current: ScopePlan | None = None
    seen_scopes: set[Scope] = set()
    ids: dict[str, set[str]] = {}
    for n, rec in enumerate(records, 1):
        place = f"record {n}"
        if not isinstance(rec, Mapping):
            raise InputError(f"{place}: expected an object, got {type(rec).__name__}")
        kind = rec.get("type")
        _known_fields(rec, kind, place)
        if header is None:
            if kind != "header" or rec.get("format") != FORMAT:
                raise InputError(f"{place}: not an anchormem export (the first record must be its header)")
            if rec.get("version") != VERSION:
                raise InputError(f"{place}: export version {rec.get('version')!r} is not supported (need {VERSION})")
            dim = check_int(rec.get("dim"), "dim", place, high=MAX_DIM)
            embedder = rec.get("embedder")
            header = ImportPlan(
                embedder=None if embedder is None else read.text(rec, "embedder", place), dim=dim, scopes=[]
            )
            continue
        if kind == "scope":
            scope = read.scope_of(rec, place)
            if scope in seen_scopes:
                raise InputError(f"{place}: scope {scope} appears twice")
            seen_scopes.add(scope)
            current = ScopePlan(scope)
            header.scopes.append(current)
            ids = {"turn": set(), "context": set(), "fact": set(), "event": set()}
            continue
        if current is None:
            raise InputError(f"{place}: a {kind!r} record before any scope record")
        _add(current, ids, rec, kind, place, header.dim)
    if header is None:
        raise InputError("the export is empty")
    if header.embedder is None and any(sp.facts or sp.events for sp in header.scopes):
        raise InputError("record 1 (header): 'embedder' is null, but the export holds fact and event vectors")
    _every_turn_in_a_context(header)
    return header


def _add(plan: ScopePlan, ids: dict[str, set[str]], rec: Mapping[str, Any], kind: Any, place: str, dim: int) -> None:
    if kind in ids:
        rid = read.label(rec, "id", place)
        if rid in ids[kind]:
            raise InputError(f"{place}: duplicate {kind} id {rid!r}")
    if kind == "turn":
        plan.turns.append(
            Turn(
                id=rid,
                session=read.label(rec, "session", place),
                position=read.integer(rec, "position", place),
                speaker=read.text(rec, "speaker", place),
                text=read.text(rec, "text", place, empty=True),
                timestamp=read.opt_label(rec, "timestamp", place),
                image_caption=read.opt_text(rec, "image_caption", place, limit=MAX_CAPTION_CHARS),
                time_given=read.opt_label(rec, "time_given", place),
                metadata=check_metadata(rec.get("metadata"), place),
            )
        )
        plan.turn_places[rid] = place
    elif kind == "context":
        turn_ids = read.labels(rec, "turn_ids", place)
        read.known(turn_ids, ids["turn"], "turn", place)
        status = rec.get("status")
        if status not in _STATUSES:
            raise InputError(f"{place}: 'status' must be one of {', '.join(_STATUSES)}")
        plan.contexts.append(
            Context(
                id=rid,
                session=read.label(rec, "session", place),
                position=read.integer(rec, "position", place),
                turn_ids=tuple(turn_ids),
                date=read.opt_label(rec, "date", place),
                text=read.text(rec, "text", place, limit=read.CONTEXT_CHARS),
                offsets=read.offsets(rec, place, len(turn_ids)),
            )
        )
        plan.states.append(
            ExtractionState(
                rid,
                status,
                read.opt_text(rec, "error", place),
                read.integer(rec, "attempts", place),
                read.count(rec, "ungrounded", place) if "ungrounded" in rec else 0,
            )
        )
    elif kind == "fact":
        context_id = read.text(rec, "context_id", place)
        read.known([context_id], ids["context"], "context", place)
        source = read.text(rec, "source", place)
        if source not in ("llm", "pack", "offline", "provisional"):
            raise InputError(f"{place}: unknown fact source {source!r}")
        plan.facts.append(Fact(id=rid, context_id=context_id, text=read.text(rec, "text", place), source=source))  # type: ignore[arg-type]
        plan.fact_vectors.append(read.vector(rec, place, dim))
        if not isinstance(rec.get("linked"), bool):
            raise InputError(f"{place}: 'linked' must be true or false")
        if not rec["linked"]:
            plan.unlinked.append(rid)
    elif kind == "event":
        fact_ids = read.labels(rec, "fact_ids", place)
        read.known(fact_ids, ids["fact"], "fact", place)
        source = read.text(rec, "source", place)
        if source not in ("llm", "pack", "extractive"):
            raise InputError(f"{place}: unknown event source {source!r}")
        links = _supersedes(rec, fact_ids, place)
        text = read.text(rec, "text", place)
        plan.events.append(Event(id=rid, text=text, fact_ids=tuple(fact_ids), source=source, supersedes=links))  # type: ignore[arg-type]
        plan.event_vectors.append(read.vector(rec, place, dim))
    elif kind == "usage":
        phase = read.text(rec, "phase", place)
        usage = Usage(
            calls=read.count(rec, "calls", place),
            prompt_tokens=read.count(rec, "prompt_tokens", place),
            completion_tokens=read.count(rec, "completion_tokens", place),
            # "seconds": an export written before call and wall time were told apart
            call_seconds=read.number(rec, "call_seconds" if "call_seconds" in rec else "seconds", place),
            cached_calls=read.count(rec, "cached_calls", place),
            failed_calls=read.count(rec, "failed_calls", place),
        )
        for name in _NEWER_COUNTS:
            if name in rec:
                setattr(usage, name, read.count(rec, name, place))
        if "wall_seconds" in rec:
            usage.wall_seconds = read.number(rec, "wall_seconds", place)
        plan.usage[phase] = usage
    elif kind == "history":
        detail = rec.get("detail")
        if not isinstance(detail, Mapping):
            raise InputError(f"{place}: 'detail' must be an object")
        check_json(detail, "detail", place)
        plan.history.append((read.number(rec, "timestamp", place), read.label(rec, "op", place), dict(detail)))
    else:
        raise InputError(f"{place}: unknown record type {kind!r}")
    if kind in ids:
        ids[kind].add(rid)


def write_plan(store: Store, plan: ImportPlan) -> ImportReport:
    """Write a validated export; every scope must be empty in ``store``. Each scope is written in one
    transaction: a scope whose write fails (the disk, a value the database refuses) leaves nothing."""
    for sp in plan.scopes:
        if store.version(sp.scope) != 0:
            raise InputError(
                f"the store already holds a memory for {describe(sp.scope)}; import needs an empty scope "
                "(delete it first, or import into another store)"
            )
    report = ImportReport()
    for sp in plan.scopes:
        with store.transaction(sp.scope):
            if store.version(sp.scope) != 0:  # another import got there first
                raise InputError(f"the store already holds a memory for {describe(sp.scope)}")
            _write_scope(store, sp, plan.dim, report)
    return report


def _write_scope(store: Store, sp: ScopePlan, dim: int, report: ImportReport) -> None:
    scope = sp.scope
    report.scopes += 1
    report.turns += len(store.add_turns(scope, sp.turns))
    report.contexts += len(store.add_contexts(scope, sp.contexts))
    report.facts += store.save_extractions(scope, _extractions(sp, dim))
    unlinked = set(sp.unlinked)
    store.set_linked(scope, [f.id for f in sp.facts if f.id not in unlinked], True)
    store.set_linked(scope, sp.unlinked, False)
    store.restore_states(scope, sp.states)
    if sp.events:
        report.events += store.add_events(scope, sp.events, _stack(sp.event_vectors, dim))
    if sp.usage:
        store.record_usage(scope, sp.usage)
    for when, op, detail in sp.history:
        store.append_history(scope, op, detail, timestamp=when)
        report.history += 1
    store.append_history(
        scope,
        "import",
        {"turns": len(sp.turns), "contexts": len(sp.contexts), "facts": len(sp.facts), "events": len(sp.events)},
    )


def _extractions(sp: ScopePlan, dim: int) -> list[Extraction]:
    """Facts grouped in runs of one context, in their stored order (so the import keeps it)."""
    out: list[Extraction] = []
    start = 0
    for i in range(1, len(sp.facts) + 1):
        if i == len(sp.facts) or sp.facts[i].context_id != sp.facts[start].context_id:
            out.append(Extraction(sp.facts[start].context_id, sp.facts[start:i], _stack(sp.fact_vectors[start:i], dim)))
            start = i
    with_facts = {f.context_id for f in sp.facts}
    out += [
        Extraction(s.context_id, [], _stack([], dim))
        for s in sp.states
        if s.status == "done" and s.context_id not in with_facts
    ]
    return out


def _stack(vectors: list[np.ndarray], dim: int) -> Matrix:
    if not vectors:
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack(vectors).astype(np.float32)


def _b64(vector: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii")
