"""The store calls of one add are bounded by what the add touches, not by the memory's size.

A counting proxy stands in for the store (``Memory(settings, store=proxy)``) and records every call by
method name with its arguments. One message added to a 200-turn memory reads only the touched session's
turns and windows, the contexts still to extract, the turns those hold and the events its clusters name;
the one read of the whole scope is the neighbour search's ``fact_matrix``. No timing: calls are counted.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.model import Scope
from anchormem.store.sqlite import SQLiteStore

WORDS = ["cello", "beach", "portrait", "dog", "recital", "bach", "garden", "bakery", "harbor", "lantern", "museum"]
SCOPE = Scope("ana")


class CountingStore:
    """Delegates every attribute to ``inner``; each method call is counted by name and logged with its arguments."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()
        self.log: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if name.startswith("_") or not callable(value):
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            self.log.append((name, args, kwargs))
            return value(*args, **kwargs)

        return counted

    def reset(self) -> None:
        self.calls.clear()
        self.log.clear()


def conversation(sessions: int = 10, turns: int = 20, seed: int = 3) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [
        {
            "speaker": "Ana" if i % 2 else "Ben",
            "session": str(s),
            "timestamp": f"2024-03-{s:02d} 10:00",
            "text": f"In session {s} I talked about the {rng.choice(WORDS)} and the {rng.choice(WORDS)}, item {i}.",
        }
        for s in range(1, sessions + 1)
        for i in range(turns)
    ]


@pytest.fixture
def counted(settings: Settings) -> Iterator[tuple[Memory, CountingStore]]:
    proxy = CountingStore(SQLiteStore(settings.store_path))
    with Memory(settings, store=proxy, embedder=HashEmbedder()) as mem:  # type: ignore[arg-type]
        mem.add(conversation(), user_id="ana")
        assert mem.stats(user_id="ana").turns == 200
        proxy.reset()
        yield mem, proxy


def _narrowed(call: tuple[str, tuple[Any, ...], dict[str, Any]]) -> bool:
    """Whether a read names what it wants (a session or ids) rather than the whole scope."""
    _, args, kwargs = call
    return (len(args) > 1 and args[1] is not None) or any(v is not None for v in kwargs.values())


def test_one_add_reads_only_what_it_touches(counted: tuple[Memory, CountingStore]) -> None:
    mem, proxy = counted
    report = mem.add(
        [{"speaker": "Ben", "session": "10", "text": "The lantern museum opens on Sunday."}], user_id="ana"
    )
    assert report.turns_added == 1 and report.contexts_added >= 1 and report.facts_added >= 1
    for name in ("turns", "contexts", "events", "facts", "extraction_states"):
        whole = [c for c in proxy.log if c[0] == name and not _narrowed(c)]
        assert not whole, f"{name} read without a filter: {whole}"
    assert proxy.calls["fact_matrix"] <= 1  # the neighbour search
    for name in ("event_matrix", "scopes", "history"):
        assert proxy.calls[name] == 0, name
    # measured: 15 calls with this bound in place, 21 before it (turns x4, contexts x3, events x2 of the whole scope);
    # 17 since an add reads the key of deleted messages (get_meta) and, offline, the contexts of the clusters' facts
    # (an extractive event joins facts of messages apart), each one narrowed read
    assert sum(proxy.calls.values()) <= 17, dict(proxy.calls)
    assert proxy.calls["turns"] <= 1 and proxy.calls["contexts"] <= 2 and proxy.calls["events"] <= 1


def test_the_calls_of_one_add_do_not_grow_with_the_memory(settings: Settings, tmp_path: Path) -> None:
    def calls_of_one_add(sessions: int) -> Counter[str]:
        where = Settings.load(env={}, store=str(tmp_path / f"m{sessions}.db"), embed__backend="hash")
        proxy = CountingStore(SQLiteStore(where.store_path))
        with Memory(where, store=proxy, embedder=HashEmbedder()) as mem:  # type: ignore[arg-type]
            mem.add(conversation(sessions), user_id="ana")
            proxy.reset()
            mem.add([{"speaker": "Ana", "session": "1", "text": "The harbor bakery sells rye."}], user_id="ana")
            return Counter(proxy.calls)

    assert calls_of_one_add(2) == calls_of_one_add(12)


def test_an_add_interrupted_before_its_windows_is_finished_by_the_next_add_of_another_session(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Crash(BaseException):
        """The process dies here."""

    with Memory(settings, embedder=HashEmbedder()) as mem:
        mem.add(conversation(2, 6), user_id="ana")
        store = mem.store

        def crash(*args: Any, **kwargs: Any) -> Any:
            raise Crash

        monkeypatch.setattr(store, "add_contexts", crash)
        with pytest.raises(Crash):
            mem.add(conversation(3, 6)[12:], user_id="ana")  # session 3: its turns are stored, no window
        monkeypatch.undo()
        assert {t.session for t in mem.turns(user_id="ana")} == {"1", "2", "3"}
        assert {c.session for c in mem.contexts(user_id="ana")} == {"1", "2"}
        mem.add([{"speaker": "Ana", "session": "1", "text": "The garden is blooming."}], user_id="ana")
        covered = {tid for c in mem.contexts(user_id="ana") for tid in c.turn_ids}
        assert {t.id for t in mem.turns(user_id="ana")} <= covered
        stats = mem.stats(user_id="ana")
        assert stats.pending_extractions == 0 and stats.sessions == 3


def test_a_window_another_writer_cut_from_turns_this_add_did_not_read_is_kept(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between this add reading a session's turns and cutting it, another process adds a turn to the session
    and cuts its windows: the add reads the session's turns again rather than supersede those windows."""
    with Memory(settings, embedder=HashEmbedder()) as mem, Memory(settings, embedder=HashEmbedder()) as other:
        mem.add(conversation(1, 4), user_id="ana")
        real: Callable[..., Any] = mem.store.add_turns
        done = []

        def add_then_another_writes(scope: Scope, turns: Any) -> Any:
            added = real(scope, turns)
            if not done:
                done.append(1)
                other.add([{"speaker": "Ben", "session": "1", "text": "Another writer's turn."}], user_id="ana")
            return added

        monkeypatch.setattr(mem.store, "add_turns", add_then_another_writes)
        mem.add([{"speaker": "Ana", "session": "1", "text": "This add's own turn."}], user_id="ana")
        monkeypatch.undo()
        covered = {tid for c in mem.contexts(user_id="ana") for tid in c.turn_ids}
        assert {t.id for t in mem.turns(user_id="ana")} <= covered
