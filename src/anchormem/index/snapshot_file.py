"""A scope's retrieval snapshot kept in a file next to a SQLite store, so that a new process answers its first
search without rebuilding it (at 50,000 turns the rebuild reads ~180,000 facts and events and rebuilds the
lexical and subject indexes: seconds; the file is read in a fraction of that).

One file per scope, ``<store>.snapshots/<hash of the scope>.snap``: the snapshot's records, vectors and derived
indexes, and a stamp (the scope, its stored version, the store's token, the file format and the package version).
A file is used only when its stamp matches the store now: any write by any process moves the scope's version on,
so a stale file is never read (it is removed when found). The vectors are mapped from the file, not read; the facts
and events are decoded in chunks when a search first touches them.

Forgetting: the file holds the scope's words, so :func:`remove` is called for every scope a delete, an update or an
import touches (``SnapshotCache.forget``), in the process that made the change, after the store committed it. A file
written concurrently with such a change checks the version again once it is in place and removes itself if it moved.

The file is read with an unpickler that admits only the classes of a snapshot (no other code can run from it); it
is written with mode 0600 in a folder of mode 0700, like the store.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import io
import json
import logging
import mmap
import os
import pickle
import secrets
import struct
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import __version__
from anchormem.index import packed as packing
from anchormem.index.rows import Blocks
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Scope

log = logging.getLogger(__name__)

FORMAT = 1
MAGIC = b"ANCHORMEM-SNAPSHOT\n"
TOKEN_KEY = "snapshot_token"  # the store's meta key: a random token, so a file never matches another store
CHUNK = 1024  # records per decoded chunk
_ALIGN = 64
_SUFFIX = ".snap"
_NOT_KEPT = frozenset({"embed_texts", "load_turns", "restricted", "turns", "context_vectors", "fact_neighbours"})
_DERIVED = (
    "fact_speakers",
    "speaker_sums",
    "speakers",
    "context_times",
    "session_codes",
    "fact_event_ids",
    "several_scopes",
    "event_row",
)

# -- reading safely -------------------------------------------------------------------------------------------

# numpy arrays come back through ``_frombuffer`` only, over bytes the file holds (no ``ndarray`` or ``_reconstruct``:
# a pickle could call them with any shape and make the reader allocate it)
_NUMPY = frozenset({"_frombuffer", "dtype"})
_NUMPY_MODULES = frozenset({"numpy", "numpy.core.numeric", "numpy._core.numeric"})
_CLASSES = {
    "anchormem.model.records": {"Context", "Fact", "Event", "Scope"},  # where they are defined: pickle names it
    "anchormem.text.lexical": {"BM25Index", "_Segment"},
    "anchormem.index.rowindex": {"RowIndex", "_Numbers"},
    "anchormem.index.snapshot": {"FactGroups", "EventFacts"},
    "anchormem.index.rows": {"Blocks"},
    "anchormem.index.shared_list": {"SharedList"},
    "anchormem.index.packed": {"PackedMap", "PackedStrs", "PackedRecords"},
    "anchormem.index.evolve": {"_Ids"},
    "builtins": {"frozenset", "set", "dict", "list", "tuple", "slice"},
    "collections": {"OrderedDict"},
}


class _Snapshot(pickle.Unpickler):
    """Admits only the classes a snapshot is made of; the file's records and vectors come by reference."""

    def __init__(self, data: bytes, external: dict[str, Any], packed: Sequence[bytes]) -> None:
        super().__init__(io.BytesIO(data))
        self._external = external
        self._packed = packed

    def find_class(self, module: str, name: str) -> Any:
        if (module in _NUMPY_MODULES and name in _NUMPY) or name in _CLASSES.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a snapshot file names {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        name = str(pid)
        got = self._external.get(name)
        if got is None and name.startswith("packed:"):  # once per object: one object shared in places stays one
            got = self._external[name] = packing.unpack(_Snapshot(self._packed[int(name[7:])], {}, []).load())
        if got is None:
            raise pickle.UnpicklingError(f"a snapshot file refers to {name!r}, which it does not hold")
        return got


class _Writer(pickle.Pickler):
    """Pickles a snapshot's state; the file's records and vectors by reference, and each big dictionary or list
    of strings (the id -> row numbers, fact id -> event ids, row ids) packed into a few strings and arrays, which
    read back an order of magnitude faster than pickle's one object at a time."""

    def __init__(self, file: io.BytesIO, external: dict[int, str]) -> None:
        super().__init__(file, protocol=5)
        self._external = external
        self.packed: list[bytes] = []
        self._kept: list[Any] = []  # the packed objects stay alive while pickling, so no id() is reused

    def persistent_id(self, obj: Any) -> str | None:
        named = self._external.get(id(obj))
        if named is not None:
            return named
        found = packing.pack(obj)
        if found is None:
            return None
        self._external[id(obj)] = name = f"packed:{len(self.packed)}"
        self._kept.append(obj)
        self.packed.append(pickle.dumps(found, protocol=5))
        return name


# -- where --------------------------------------------------------------------------------------------------


def folder(store_file: Path) -> Path:
    """The folder of a store's snapshot files (beside the store's real path: a process that opens the store
    through a link or another spelling of its path finds, and removes, the same files)."""
    real = store_file.resolve()
    return real.with_name(real.name + ".snapshots")


def path_of(store_file: Path, scope: Scope) -> Path:
    digest = hashlib.sha256(json.dumps(list(scope.key())).encode()).hexdigest()[:32]
    return folder(store_file) / f"{digest}{_SUFFIX}"


def remove(store_file: Path, scope: Scope) -> None:
    """Remove the scope's file, and any file of it being written."""
    target = path_of(store_file, scope)
    if not target.parent.is_dir():
        return
    for found in target.parent.glob(target.name + "*"):
        with suppress(FileNotFoundError):
            found.unlink()


def token(store: Any, create: bool) -> str | None:
    """The store's snapshot token (made on first use when ``create``)."""
    got = store.get_meta(TOKEN_KEY)
    if got is None and create:
        store.set_meta(TOKEN_KEY, secrets.token_hex(16))
        got = store.get_meta(TOKEN_KEY)
    return str(got) if got is not None else None


@functools.cache
def code_stamp() -> str:
    """A hash of the modules whose objects a file holds: a file of other code (a development build with the
    same package version) is stale."""
    digest = hashlib.sha256()
    # the lexical indexes hold terms made by the language rules (``_util.languages``): a change there is other code
    modules = {*_CLASSES, "anchormem.index.snapshot", "anchormem.index.snapshot_file", "anchormem._util.languages"}
    for module in sorted(modules - {"builtins"}):
        if module.startswith("anchormem."):
            digest.update(Path(importlib.import_module(module).__file__ or "").read_bytes())
    return digest.hexdigest()[:16]


def stamp(
    scope: Scope, version: int, nonce: str | None, store_token: str, window_chars: int, migrations: int
) -> dict[str, Any]:
    """What a file must match: ``version`` and its ``nonce`` in the store's log name the content; the rest names
    the store and the code."""
    return {
        "nonce": nonce,
        "format": FORMAT,
        "anchormem": __version__,
        "code": code_stamp(),
        "migrations": int(migrations),
        "store": store_token,
        "scope": list(scope.key()),
        "version": int(version),
        "window_chars": int(window_chars),
    }


# -- writing ------------------------------------------------------------------------------------------------


def save(snap: ScopeSnapshot, target: Path, file_stamp: dict[str, Any]) -> None:
    """Write ``snap`` to ``target`` (atomically: a new file renamed into place)."""
    snap.warm()
    for name in _DERIVED:
        getattr(snap, name)
    fact_vectors = np.ascontiguousarray(np.asarray(snap.fact_vectors), dtype=np.float32)
    event_vectors = np.ascontiguousarray(np.asarray(snap.event_vectors), dtype=np.float32)
    external = {id(snap.facts): "facts", id(snap.events): "events"}
    external |= {id(snap.fact_vectors): "fact_vectors", id(snap.event_vectors): "event_vectors"}
    state = {k: v for k, v in vars(snap).items() if k not in _NOT_KEPT}
    for k in ("facts", "events", "fact_vectors", "event_vectors"):
        state.pop(k)
    buffer = io.BytesIO()
    writer = _Writer(buffer, external)
    writer.dump(state)
    segments: dict[str, Any] = {}
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = target.with_name(f"{target.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            segments["state"] = _write(out, buffer.getvalue())
            segments["packed"] = [_write(out, p) for p in writer.packed]
            for kind, records in (("facts", snap.facts), ("events", snap.events)):
                chunks = [packing.pack_records(records[i : i + CHUNK]) for i in range(0, len(records), CHUNK)]
                segments[kind] = {"length": len(records), "size": CHUNK, "chunks": [_write(out, c) for c in chunks]}
            for kind, matrix in (("fact_vectors", fact_vectors), ("event_vectors", event_vectors)):
                segments[kind] = {"at": _write(out, matrix.tobytes())[0], "shape": list(matrix.shape)}
            header = json.dumps({"stamp": file_stamp, "segments": segments}).encode()
            out.write(header + struct.pack("<Q", len(header)) + MAGIC)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    finally:
        with suppress(FileNotFoundError):
            temp.unlink()


def _write(out: Any, data: bytes) -> list[int]:
    at = out.tell()
    pad = -at % _ALIGN
    if pad:
        out.write(b"\0" * pad)
        at += pad
    out.write(data)
    return [at, len(data)]


# -- reading ------------------------------------------------------------------------------------------------


def load(
    target: Path, file_stamp: dict[str, Any], nonce_of: Callable[[int], str | None]
) -> tuple[int, ScopeSnapshot] | None:
    """The snapshot in ``target`` and its version, if its stamp is ``file_stamp`` but for the version (and its
    nonce): that may be older, and must still be in the store's log with the file's nonce (``nonce_of``); the
    caller brings an older one up to date or :func:`discard` s it. None when there is no such file. A file of
    another stamp, or one that cannot be read, is removed; one newer than ``file_stamp`` (another process wrote
    it since) is left alone."""
    try:
        with open(target, "rb") as f:
            header = _header(f)
            if header is None:
                raise _Stale
            found = header.get("stamp")
            same = {**file_stamp, "version": None, "nonce": None}
            if not isinstance(found, dict) or {**found, "version": None, "nonce": None} != same:
                raise _Stale
            version = found["version"]
            if not isinstance(version, int):
                raise _Stale
            if version > file_stamp["version"]:
                return None
            if found["nonce"] is None or found["nonce"] != nonce_of(version):
                raise _Stale  # its version is not this content any more (a restored backup), or the log let it go
            segments = header["segments"]
            mapped = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
            external: dict[str, Any] = {}
            for kind in ("facts", "events"):
                part = segments[kind]
                chunks = [_view(mapped, at, n) for at, n in part["chunks"]]
                external[kind] = packing.PackedRecords(kind, chunks, int(part["length"]), int(part["size"]))
            for kind in ("fact_vectors", "event_vectors"):
                rows, dim = (int(x) for x in segments[kind]["shape"])
                data = _view(mapped, int(segments[kind]["at"]), rows * dim * 4)  # the same mapping as the records
                external[kind] = Blocks.of(np.frombuffer(data, dtype=np.float32).reshape(rows, dim))
            packed = [_read(f, at, n) for at, n in segments["packed"]]
            state = _Snapshot(_read(f, *segments["state"]), external, packed).load()
    except (FileNotFoundError, MemoryError):  # MemoryError: this process is short, the file may be fine
        return None
    except _Stale:
        discard(target, "stale")
        return None
    except Exception as exc:  # a torn, foreign or older file: never an error for the search, just not used
        discard(target, f"unreadable ({type(exc).__name__}: {exc})")
        return None
    snap = ScopeSnapshot.__new__(ScopeSnapshot)
    snap.__dict__.update(state)
    snap.facts = external["facts"]
    snap.events = external["events"]
    snap.fact_vectors = external["fact_vectors"]
    snap.event_vectors = external["event_vectors"]
    snap.restricted = {}
    return version, snap


class _Stale(Exception):
    pass


def _header(f: Any) -> dict[str, Any] | None:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    tail = len(MAGIC) + 8
    if size < tail:
        return None
    f.seek(size - tail)
    end = f.read(tail)
    if end[8:] != MAGIC:
        return None
    (length,) = struct.unpack("<Q", end[:8])
    if length > size - tail:
        return None
    f.seek(size - tail - length)
    got = json.loads(f.read(length))
    return got if isinstance(got, dict) else None


def _view(mapped: memoryview, at: int, n: int) -> memoryview:
    """Bytes of the mapped file (read from disk when first touched): a chunk a search never decodes costs
    nothing."""
    if at < 0 or n < 0 or at + n > len(mapped):
        raise ValueError("the file is shorter than its header says")
    return mapped[at : at + n]


def _read(f: Any, at: int, n: int) -> bytes:
    f.seek(at)
    data = f.read(n)
    if len(data) != n:
        raise ValueError("the file is shorter than its header says")
    return bytes(data)


def discard(target: Path, why: str) -> None:
    log.info("snapshot file %s is %s: removed", target, why)
    with suppress(FileNotFoundError):
        target.unlink()
