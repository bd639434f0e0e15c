"""The snapshot cache keeps at most ``retrieval.cached_scopes`` scopes: the least recently used one goes first,
is loaded again when it is searched next, and searches the same as before."""

from __future__ import annotations

from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory

USERS = ("ana", "ben", "cleo")


def _memory(path: Path, cached: int) -> Memory:
    settings = Settings.load(env={}, store=str(path / "m.db"), embed__backend="hash", retrieval__cached_scopes=cached)
    return Memory(settings, embedder=HashEmbedder())


def _view(memory: Memory, user: str) -> list[tuple[str, float]]:
    result = memory.search("Where does the cat sleep?", user_id=user)
    return [(h.context.id, round(h.score, 9)) for h in result.contexts]


def test_the_least_recently_used_scope_is_dropped_and_loaded_again(tmp_path: Path) -> None:
    with _memory(tmp_path, cached=2) as memory:
        for user in USERS:
            memory.add(
                [
                    {"speaker": user, "text": f"My cat sleeps on the {user} sofa every night.", "session": "1"},
                    {"speaker": "Kim", "text": "Cats pick the warmest spot.", "session": "1"},
                ],
                user_id=user,
            )
        cache = memory._snapshots
        first = {user: _view(memory, user) for user in USERS}  # ana, then ben, then cleo: ana is dropped
        assert len(cache._snapshots) == 2 and [s.user_id for s in cache._snapshots] == ["ben", "cleo"]
        loads = cache.loads
        assert _view(memory, "ben") == first["ben"] and cache.loads == loads  # still held: no load
        assert _view(memory, "ana") == first["ana"] and cache.loads == loads + 1  # dropped: loaded again
        assert [s.user_id for s in cache._snapshots] == ["ben", "ana"]  # cleo was the least recent


def test_a_bound_of_one_still_searches_every_scope_right(tmp_path: Path) -> None:
    with _memory(tmp_path, cached=1) as memory:
        for user in USERS:
            memory.add([{"speaker": user, "text": f"I keep bees in {user} garden.", "session": "1"}], user_id=user)
        for _ in range(2):
            for user in USERS:
                hits = memory.search("bees", user_id=user).contexts
                assert hits and all(user in h.context.text for h in hits)
        assert len(memory._snapshots._snapshots) == 1
