"""A reader in another process that holds a read transaction on a SQLite store keeps its WAL from being
truncated; that must not block anyone: a delete returns and another user's search runs while the
reader still holds, and the deleted words leave the WAL at the first write after the reader lets go.

Ordering, not time: the reader lets go only when told (or, as a bound, after READER_BOUND seconds;
a delete that waited for that shows as a reader that had already let go)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory

SECRET = "quartz otter 5150"
READER_BOUND = 45

READER = """
import select, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN")
db.execute("SELECT count(*) FROM turns").fetchone()  # a read transaction on the current snapshot
print("reading", flush=True)
select.select([sys.stdin], [], [], float(sys.argv[2]))
db.execute("COMMIT")
db.close()
print("released", flush=True)
"""


def _files(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_a_slow_reader_blocks_no_delete_and_no_search(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    cfg = Settings.load(env={}, store=str(path), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem:
        mem.add([{"speaker": "Ana", "session": "s", "text": f"the {SECRET} is in the drawer"}], user_id="ana")
        mem.add([{"speaker": "Ana", "session": "k", "text": "my cat Tom likes fish"}], user_id="ana")
        mem.add([{"speaker": "Bob", "session": "b", "text": "my dog Rex likes bones"}], user_id="bob")
        reader = subprocess.Popen(
            [sys.executable, "-c", READER, str(path), str(READER_BOUND)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert reader.stdout is not None and reader.stdout.readline().strip() == "reading"
            report = mem.delete(user_id="ana", session="s")
            hits = mem.search("dog bones", user_id="bob")
            assert reader.poll() is None, "the delete waited for the reader to let go"
            assert report.turns == 1 and hits.contexts
        finally:
            out, _ = reader.communicate(input="go\n", timeout=READER_BOUND + 30)
        assert "released" in out
        assert SECRET.encode() in _files(path)  # the old WAL frames the reader needed are still there
        mem.add([{"speaker": "Bob", "session": "b2", "text": "Rex ran away"}], user_id="bob")  # a later write
        assert SECRET.encode() not in _files(path)  # it truncated the WAL that was left pending
        assert [t.text for t in mem.turns(user_id="ana")] == ["my cat Tom likes fish"]
