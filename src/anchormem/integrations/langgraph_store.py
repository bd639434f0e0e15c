"""A LangGraph ``BaseStore`` backed by anchormem (``pip install 'anchormem[langchain]'``, with ``langgraph``).

LangGraph keeps long-term memory in a store: ``put(namespace, key, value)``, ``get``, ``search``,
``delete``, ``list_namespaces`` and their async variants. :class:`AnchorMemStore` keeps each item as one
message of the memory, so what a graph writes is searched like any conversation:

- **namespace → scope**: ``(user,)``, ``(user, agent)``, ``(user, agent, run)``; a longer namespace puts
  the rest into the run (``("u1", "notes", "2024", "may")`` is user ``u1``, agent ``notes``, run
  ``2024/may``). A namespace prefix covers the scopes under it, as a user's search covers its agents.
- **an item is a message**: its own session (the key), turn id ``lg:<key>``; its text is the value's
  ``content``, ``text``, ``memory`` or ``data`` string, else the value as compact JSON; its speaker the
  value's ``speaker`` or ``role``, else ``memory``. The value itself is kept in the message's metadata and
  read back unchanged. ``put`` of a stored key replaces the item (a delete, then an add: forgetting is
  real); ``put(..., None)`` and ``delete`` forget it.
- **search**: with ``query``, an anchormem search of the prefix's scope: one item per turn of the
  returned contexts, best first, each item once, its ``score`` the context's scaled by the share of the query's
  content words its own text holds (half to whole, :func:`turn_score`), and the provenance under
  ``value["anchormem"]`` (context id, turn ids, rank, date, session, the context's text, and the
  ``latest``/``newer`` marks of :class:`~anchormem.model.ContextHit`). Turns added to
  the memory in other ways (``memory.add``) come back too, with ``{"text", "speaker"}`` as value.
  Without ``query``: the items of the prefix in insertion order. ``filter`` is equality on the value's
  top-level fields (with a query it narrows the search itself, as anchormem's metadata filters).

Items have no TTL (``supports_ttl`` is False) and the store does no vector indexing of its own.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from anchormem._util.extras import requires_extra
from anchormem._util.words import word_keys
from anchormem.errors import NotFoundError
from anchormem.memory import Memory
from anchormem.model import Scope, Turn
from anchormem.wire.scopes import covers

with requires_extra("langchain", "anchormem.integrations.langgraph_store"):
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )

__all__ = ["AnchorMemStore", "namespace_of", "scope_of"]

PREFIX = "lg:"  # turn ids of items, apart from the memory's own turns and from record ids (c-, f-, e-)
_TIMES = "_langgraph"  # metadata key of an item's times, beside its value
_TEXT_FIELDS = ("content", "text", "memory", "data")


def turn_score(context_score: float, asked: set[str], turn: Turn) -> float:
    """An item's score: its context's, scaled by how many of the query's content words (by stem) the turn's own
    text holds, from half (none) to whole (all). The turns of one window are then told apart, and a turn that
    says what was asked comes before its neighbours that only share its window."""
    if not asked:
        return round(context_score, 6)
    share = len(asked & word_keys(turn.text)) / len(asked)
    return round(context_score * (0.5 + 0.5 * share), 6)


def scope_of(namespace: tuple[str, ...]) -> Scope:
    """The anchormem scope of a LangGraph namespace (see the module's notes)."""
    if not namespace:
        raise ValueError("a namespace needs at least one label (the user)")
    run = "/".join(namespace[2:]) or None
    return Scope(namespace[0], namespace[1] if len(namespace) > 1 else None, run)


def namespace_of(scope: Scope) -> tuple[str, ...]:
    """The LangGraph namespace of an anchormem scope."""
    run = tuple(scope.run_id.split("/")) if scope.run_id else ()
    return (scope.user_id or "", *((scope.agent_id,) if scope.agent_id else ()), *run)


def _kwargs(scope: Scope) -> dict[str, Any]:
    return {"user_id": scope.user_id, "agent_id": scope.agent_id, "run_id": scope.run_id}


def _now() -> datetime:
    return datetime.now(UTC)


class AnchorMemStore(BaseStore):
    """A LangGraph store over one :class:`~anchormem.Memory` (see the module's notes)."""

    supports_ttl = False

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    # -- BaseStore -------------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op.namespace, op.key, op.value)
                out.append(None)
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self._namespaces(op))
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        return out

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations ------------------------------------------------------------------------------------

    def _turn(self, scope: Scope, key: str) -> Turn | None:
        try:
            record = self.memory.get(PREFIX + key, **_kwargs(scope))
        except NotFoundError:
            return None
        return record if isinstance(record, Turn) else None

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        scope = scope_of(namespace)
        turn = self._turn(scope, key)
        return None if turn is None else self._item(turn, namespace)

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None) -> None:
        scope = scope_of(namespace)
        old = self._turn(scope, key)
        created = _now()
        if old is not None:
            times = (old.metadata or {}).get(_TIMES, {})
            created = datetime.fromisoformat(times["created_at"]) if "created_at" in times else created
            self.memory.delete(session=old.session, **_kwargs(scope))
        if value is None:
            return
        stamp = {"created_at": created.isoformat(), "updated_at": _now().isoformat()}
        message = {
            "id": PREFIX + key,
            "session": PREFIX + key,
            "speaker": str(value.get("speaker") or value.get("role") or "memory"),
            "text": _text(value),
            "created_at": stamp["updated_at"],
            "metadata": {**value, _TIMES: stamp},
        }
        self.memory.add([message], readd=True, **_kwargs(scope))  # a put is on purpose, even of a deleted key

    def _item(
        self,
        turn: Turn,
        namespace: tuple[str, ...],
        *,
        found: bool = False,
        score: float | None = None,
        provenance: dict[str, Any] | None = None,
    ) -> Any:
        meta = dict(turn.metadata or {})
        times = meta.pop(_TIMES, None)
        if turn.id.startswith(PREFIX) and times is not None:
            key, value = turn.id[len(PREFIX) :], meta
            created, updated = (datetime.fromisoformat(times[k]) for k in ("created_at", "updated_at"))
        else:  # a turn the memory got another way: its words
            key, value = turn.id, {"text": turn.text, "speaker": turn.speaker}
            created = updated = _turn_time(turn)
        if provenance:
            value = {**value, "anchormem": provenance}
        if not found:
            return Item(value=value, key=key, namespace=namespace, created_at=created, updated_at=updated)
        return SearchItem(namespace, key, value, created, updated, score=score)

    def _scopes_under(self, prefix: tuple[str, ...]) -> list[Scope]:
        if not prefix:
            return self.memory.users()
        wanted = scope_of(prefix)
        return [s for s in self.memory.users() if s == wanted or covers(wanted, s)]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.query:
            return self._found(op)
        items: list[SearchItem] = []
        for scope in self._scopes_under(op.namespace_prefix):
            namespace = namespace_of(scope)
            for turn in self.memory.turns(**_kwargs(scope)):
                item = self._item(turn, namespace, found=True)
                if _matches(item.value, op.filter):
                    items.append(item)
        return items[op.offset : op.offset + op.limit]

    def _found(self, op: SearchOp) -> list[SearchItem]:
        assert op.query is not None
        tops = [scope_of(op.namespace_prefix)] if op.namespace_prefix else self._top_scopes()
        filters = {k: v for k, v in (op.filter or {}).items() if not isinstance(v, dict)} or None
        hits: list[SearchItem] = []
        asked = word_keys(op.query)
        for top in tops:
            result = self.memory.search(op.query, k=min(200, op.limit + op.offset), filters=filters, **_kwargs(top))
            for hit in result.contexts:
                scope = hit.scope or top
                turns = {t.id: t for t in self.memory.turns(**_kwargs(scope))}
                for tid in hit.context.turn_ids:
                    turn = turns.get(tid)
                    if turn is None:
                        continue
                    provenance = {
                        "context_id": hit.context.id,
                        "turn_ids": list(hit.context.turn_ids),
                        "rank": hit.rank,
                        "score": round(hit.score, 6),
                        "date": hit.context.date,
                        "session": hit.context.session,
                        "text": hit.context.text,
                        "latest": hit.latest,  # [latest]/[earlier] on the query's subject (None: not compared)
                        "newer": list(hit.newer),
                    }
                    score = turn_score(hit.score, asked, turn)
                    item = self._item(turn, namespace_of(scope), found=True, score=score, provenance=provenance)
                    if _matches({k: v for k, v in item.value.items() if k != "anchormem"}, op.filter):
                        hits.append(item)
        seen: set[tuple[tuple[str, ...], str]] = set()
        unique = []
        for item in sorted(hits, key=lambda i: -(i.score or 0.0)):
            if (item.namespace, item.key) not in seen:
                seen.add((item.namespace, item.key))
                unique.append(item)
        return unique[op.offset : op.offset + op.limit]

    def _top_scopes(self) -> list[Scope]:
        return list(dict.fromkeys(Scope(s.user_id) for s in self.memory.users() if s.user_id))

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for scope in self.memory.users():
            namespace = namespace_of(scope)
            if not all(_condition(namespace, c.match_type, tuple(c.path)) for c in op.match_conditions or ()):
                continue
            found.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]


def _text(value: Mapping[str, Any]) -> str:
    for name in _TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return str(value[name])
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _turn_time(turn: Turn) -> datetime:
    for text in (turn.time_given, turn.timestamp):
        if text:
            try:
                when = datetime.fromisoformat(text)
            except ValueError:
                continue
            return when if when.tzinfo else when.replace(tzinfo=UTC)
    return datetime.fromtimestamp(0, UTC)


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    """LangGraph's filter: each key equals (a dict value: ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``)."""
    for key, condition in (wanted or {}).items():
        have = value.get(key)
        if isinstance(condition, dict):
            for op, target in condition.items():
                if not _compare(have, op, target):
                    return False
        elif have != condition:
            return False
    return True


def _compare(have: Any, op: str, target: Any) -> bool:
    if op == "$eq":
        return bool(have == target)
    if op == "$ne":
        return bool(have != target)
    try:
        return {"$gt": have > target, "$gte": have >= target, "$lt": have < target, "$lte": have <= target}[op]
    except (TypeError, KeyError):
        return False


def _condition(namespace: tuple[str, ...], kind: str, path: tuple[str, ...]) -> bool:
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if kind == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p in ("*", n) for p, n in zip(path, part, strict=True))
