"""all-MiniLM-L6-v2 run with onnxruntime: the fast runtime for single queries.

The ONNX graph is built from the weights, without torch, and cached once (see
:mod:`anchormem.embed.bert_graph` and :mod:`anchormem.embed.onnx_export`) with the
mean pooling and L2 normalisation inside it; texts are tokenised with the
package's ``tokenizer.json`` (truncated to 256 tokens, padded to the longest in a
batch), exactly as sentence-transformers does. Everything loads on first use.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from anchormem.embed.bert_graph import INPUT_NAMES, OUTPUT_NAME, build_model_bytes
from anchormem.embed.bundled import MODEL_NAME, MiniLMIdentity, max_seq_length, minilm_model_dir
from anchormem.embed.onnx_export import CacheUnwritableError, ensure_onnx
from anchormem.embed.protocol import Vectors
from anchormem.embed.vectors import batches, empty_vectors, l2_normalize
from anchormem.errors import EmbeddingError

if TYPE_CHECKING:
    import tokenizers

log = logging.getLogger(__name__)

MAX_BATCH_TOKENS = 4096
"""Tokens (padding included) one batch may hold: 16 texts of 256 tokens, or 64 short ones. onnxruntime keeps
the largest batch's buffers (attention grows with batch x length x length), so 64 long texts held about
1.3 GiB against about 0.6 GiB at 16, for the same time (bench/long_message.py: one 100,000-character message)."""
MAX_TOKENIZED = 1024
"""Texts tokenised at once (their ids are padded to the longest of them)."""
ALONE_UP_TO = 32
"""Calls with at most this many texts (one added message's facts) run each text alone on the single-text
session: no padding, and the vector of a text is the one a query of that text gets. In the agent loop
(bench/agent_loop_mem0.py: 9 facts of a 250-word reply, 9 to 180 tokens each) the padded batch on the
batch session cost 2.5-2.9x as much as the texts one by one on one thread (a 9-text batch padded to its
longest holds ~1,260 tokens where the texts hold ~420), and two texts at a time on two threads took another
1.6x off (at load 15 on 2 cores: 40 against 64 s for the first 24 adds of a chat, twice)."""


def token_batches(lengths: np.ndarray, size: int, budget: int) -> list[slice]:
    """Consecutive slices of ``lengths`` (sorted ascending): at most ``size`` items each, and at most ``budget``
    tokens once padded to the slice's longest (a single longer text still gets a slice of its own)."""
    out: list[slice] = []
    start = 0
    for end in range(1, len(lengths) + 1):
        too_big = end - start > size or (end - start) * int(lengths[end - 1]) > budget
        if too_big and end - 1 > start:
            out.append(slice(start, end - 1))
            start = end - 1
    out.append(slice(start, len(lengths)))
    return out


def longest_first(lengths: Sequence[int]) -> list[int]:
    """The positions of ``lengths``, the longest first (equal lengths in their given order): the order in which
    texts run alone on a few threads, each free thread taking the next, so that the threads finish close together
    (longest-processing-time-first; a text's time grows with its tokens)."""
    return sorted(range(len(lengths)), key=lambda i: -lengths[i])


@dataclass
class _Runtime:
    session: Any  # onnxruntime.InferenceSession (onnxruntime ships no type hints); single queries
    tokenizer: tokenizers.Tokenizer
    model_dir: Path
    batch_session: Any = None  # a second session with more threads, opened on the first batch


class OnnxMiniLMEmbedder(MiniLMIdentity):
    """all-MiniLM-L6-v2 via onnxruntime on CPU; the same vectors as :class:`MiniLMEmbedder`.

    ``threads`` sets onnxruntime's intra-op threads for single texts (default 1: on an idle 2-core
    machine 2 threads gave 2.9 ms against 4.6 ms, but with anything else busy — another process, or
    torch's spinning threads in the same one — 1 thread was twice as fast). A call of at most
    :data:`ALONE_UP_TO` texts (an add's facts) runs each text alone on that session, ``batch_threads`` texts
    at a time, the longest first; larger calls run in padded batches on a second session with
    ``batch_threads`` (default: the machine's cores, at most 4), sorted by length so that little padding is
    computed. ``cache_dir`` holds
    the built ONNX file (default ``~/.cache/anchormem/onnx``).
    """

    def __init__(
        self,
        batch_size: int = 64,
        model_dir: str | Path | None = None,
        cache_dir: str | Path | None = None,
        threads: int | None = None,
        batch_threads: int | None = None,
    ) -> None:
        self._batch_size = max(1, batch_size)
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self._cache_dir = Path(cache_dir).expanduser() if cache_dir is not None else None
        self._threads = max(1, threads or 1)
        self._batch_threads = max(1, batch_threads or min(4, os.cpu_count() or 1))
        self._runtime: _Runtime | None = None
        self._pool: ThreadPoolExecutor | None = None  # the one-by-one path's threads, made on first use
        self._lock = threading.Lock()

    def load(self) -> None:
        """Build (if needed) and load the model now instead of on the first :meth:`embed`."""
        self._load()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return empty_vectors(self.dim)
        runtime = self._load()
        if len(texts) <= ALONE_UP_TO:
            return l2_normalize(self._alone(runtime, list(texts)))
        session = self._batch_session(runtime)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for chunk in batches(range(len(texts)), MAX_TOKENIZED):
            feeds = self._tokens(runtime, [texts[i] for i in chunk])
            lengths = feeds["attention_mask"].sum(axis=1)
            order = np.argsort(lengths, kind="stable")  # batches of like lengths: little padding
            for rows in token_batches(lengths[order], self._batch_size, MAX_BATCH_TOKENS):
                picked = order[rows]
                width = int(lengths[picked].max())
                batch = {name: array[picked, :width] for name, array in feeds.items()}
                out[np.asarray(chunk)[picked]] = self._run(session, batch)
        return l2_normalize(out)

    def _alone(self, runtime: _Runtime, texts: list[str]) -> Vectors:
        """Each text run by itself on the single-text session (no padding), on up to ``batch_threads``
        threads at once (a session runs calls in parallel; each call keeps to its one thread), the longest
        first: a thread that is free takes the next, so the threads finish close together (a reply's texts
        run 9 to 180 tokens; one long text left for last would keep one thread busy alone)."""
        feeds = self._each(runtime, texts)
        if len(texts) == 1 or self._batch_threads == 1:
            return np.concatenate([self._run(runtime.session, f) for f in feeds])
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._batch_threads, thread_name_prefix="anchormem-minilm")
            pool = self._pool
        order = longest_first([f["input_ids"].shape[1] for f in feeds])
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, vector in zip(order, pool.map(lambda i: self._run(runtime.session, feeds[i]), order), strict=True):
            out[i] = vector[0]
        return out

    @classmethod
    def _each(cls, runtime: _Runtime, texts: list[str]) -> list[dict[str, np.ndarray]]:
        """Each text's own unpadded inputs, from one tokenizer call (the batch's padding cut off: with
        padding on the right, a text's ids are the same alone or in a batch)."""
        feeds = cls._tokens(runtime, texts)
        lengths = feeds["attention_mask"].sum(axis=1)
        return [{name: array[i : i + 1, : int(lengths[i])] for name, array in feeds.items()} for i in range(len(texts))]

    def _batch_session(self, runtime: _Runtime) -> Any:
        if self._batch_threads == self._threads:
            return runtime.session
        with self._lock:
            if runtime.batch_session is None:
                runtime.batch_session = self._open_session(runtime.model_dir, self._batch_threads)
            return runtime.batch_session

    @staticmethod
    def _tokens(runtime: _Runtime, texts: list[str]) -> dict[str, np.ndarray]:
        """The model's inputs for ``texts``, padded to the longest of them."""
        try:
            encodings = runtime.tokenizer.encode_batch(texts)
        except Exception as exc:  # tokenizers errors; translate at this boundary
            raise EmbeddingError(f"{MODEL_NAME} tokenizer failed: {exc}") from exc
        return {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }

    @staticmethod
    def _run(session: Any, feeds: dict[str, np.ndarray]) -> Vectors:
        try:
            (out,) = session.run([OUTPUT_NAME], feeds)
        except Exception as exc:  # onnxruntime errors; translate at this boundary
            raise EmbeddingError(f"{MODEL_NAME} (onnxruntime) failed to embed: {exc}") from exc
        return np.asarray(out, dtype=np.float32)

    def _load(self) -> _Runtime:
        with self._lock:
            if self._runtime is None:
                model_dir = self._model_dir or minilm_model_dir()
                tokenizer = _load_tokenizer(model_dir)
                self._runtime = _Runtime(self._open_session(model_dir, self._threads), tokenizer, model_dir)
            return self._runtime

    def _open_session(self, model_dir: Path, threads: int) -> Any:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise EmbeddingError("the ONNX MiniLM backend needs onnxruntime: pip install onnxruntime") from exc
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # no spinning: by default a worker thread busy-waits after each run for the next one, and on a machine
        # with anything else to run it takes the core from the code that follows the embedding (an add's
        # snapshot growth and linking: 2-3x slower at 50,000 turns on a loaded 2-core machine, the embedding
        # itself 2x slower); its vectors are the same either way (bench/profile_add.py, BENCHMARKS.md)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")

        def open_model(model: str | bytes) -> Any:
            return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

        try:
            path = ensure_onnx(model_dir, self._cache_dir)
        except CacheUnwritableError as exc:  # a read-only home: build the graph in memory on every start
            log.info("%s; building the ONNX graph in memory", exc)
            return self._checked(open_model(build_model_bytes(model_dir)), "the in-memory graph")
        try:
            session = open_model(str(path))
        except Exception:  # a truncated or stale cache file: write it again, once
            path.unlink(missing_ok=True)
            path = ensure_onnx(model_dir, self._cache_dir)
            try:
                session = open_model(str(path))
            except Exception as exc:
                raise EmbeddingError(f"onnxruntime cannot load {path}: {exc}") from exc
        return self._checked(session, str(path))

    @staticmethod
    def _checked(session: Any, where: str) -> Any:
        names = {i.name for i in session.get_inputs()}
        if names != set(INPUT_NAMES):
            raise EmbeddingError(f"{where} has unexpected inputs {sorted(names)}; delete it to rebuild")
        return session


def _load_tokenizer(model_dir: Path) -> tokenizers.Tokenizer:
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise EmbeddingError("the ONNX MiniLM backend needs tokenizers: pip install tokenizers") from exc
    path = model_dir / "tokenizer.json"
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises plain Exception subclasses
        raise EmbeddingError(f"cannot load the tokenizer {path}: {exc}") from exc
    # tokenizer.json ships with truncation 128 and fixed padding 128; sentence-transformers
    # truncates at max_seq_length (256) and pads to the longest text of the batch.
    tokenizer.enable_truncation(max_length=max_seq_length(model_dir), strategy="longest_first")
    tokenizer.enable_padding(pad_id=0, pad_type_id=0, pad_token="[PAD]", direction="right")
    return tokenizer
