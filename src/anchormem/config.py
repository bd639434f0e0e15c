"""Typed settings. Environment variables and config files are read here, and only
when :meth:`Settings.load` is called explicitly (never at import time).

Precedence (highest first): explicit arguments / CLI options, environment
variables, the TOML config file, defaults.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from anchormem._util.files import MAX_CONFIG_BYTES, read_limited
from anchormem.errors import ConfigError

DEFAULT_HOME = Path("~/.anchormem")


@dataclass(frozen=True)
class LLMSettings:
    """An OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp server, OpenAI, LiteLLM)."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 120.0
    max_retries: int = 3
    concurrency: int = 4
    temperature: float = 0.0
    ungrounded_facts: str = "drop"  # a fact its context does not support: "drop" or "keep" (counted either way)
    client: str = "openai"  # the client by name (``anchormem.registries.LLMS``; a third party's by entry point)


@dataclass(frozen=True)
class EmbedSettings:
    """``backend``: ``minilm`` (onnxruntime when available, else torch), ``minilm-torch``,
    ``minilm-onnx``, ``openai`` (an OpenAI-compatible /v1/embeddings endpoint), ``hash``
    (a tiny deterministic embedder for tests only), or one a third party names
    (:data:`anchormem.registries.EMBEDDERS`)."""

    backend: str = "minilm"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    batch_size: int = 64


@dataclass(frozen=True)
class GraphSettings:
    """Associative event graph parameters (paper §4.2). ``change_tau`` (beyond the paper, LLM path only; None:
    off): each new fact is also paired with its nearest fact of another context whose cosine lies between
    ``change_tau`` and ``tau``, and the LLM asked whether one replaced the other; the pair's event is kept only
    when the answer lists a change (one more integration call per such fact; see docs/search.md)."""

    tau: float = 0.85
    n_neighbors: int = 3
    change_tau: float | None = None


@dataclass(frozen=True)
class ChunkSettings:
    """How a session's messages are cut into contexts (``anchormem.ingest.chunk``).

    Per session: when the speakers alternate message by message, no message is longer than
    ``passage_chars`` and no window of the paper's rule (§4.1: ``window`` messages starting every
    ``stride``) holds more than ``paper_chars`` characters of message text, the session keeps the
    paper's windows (every LoCoMo session does: its largest window holds 1,056 characters). Any
    other session (texting, long assistant replies, pasted text) is cut by length: a message longer
    than ``passage_chars`` is cut into passages (at paragraph, then sentence, then word boundaries)
    that keep its id and their offsets, and non-overlapping windows of whole speaker turns hold at
    most ``chat_chars`` characters. So every context holds at most ``paper_chars`` characters of
    message text. ``chat_chars = 0`` uses the paper's rule everywhere, with whole messages;
    ``passage_chars = 0`` never cuts a message; ``paper_chars = 0`` keeps the paper's windows on
    every session whose speakers alternate, whatever their length.
    """

    window: int = 3
    stride: int = 2
    chat_chars: int = 650
    passage_chars: int = 650  # a passage fills at most one window: a window holds one passage or whole messages
    paper_chars: int = 1300  # two windows' worth: above LoCoMo's largest window (1,056), below 3 long replies

    @classmethod
    def paper(cls) -> ChunkSettings:
        """The paper's rule for every session: 3 messages per window, stride 2, whole messages."""
        return cls(window=3, stride=2, chat_chars=0)


@dataclass(frozen=True)
class RetrievalSettings:
    """Retrieval parameters (paper §4.3). ``variant`` names a retrieval recipe. ``max_contexts``
    counts full windows: a chat window cut short takes the share of a window it fills
    (``ScopeSnapshot.context_share``), so a result may hold more, shorter contexts. ``max_chars`` caps the
    context text one search returns. ``rerankers`` names the rerank stages that run, in order: ``own-words``
    (any language, by name or in the first person: a question about one speaker puts that speaker's own
    messages first), ``statements`` (the user's requests give way to the user's statements), ``recency``
    (any language: the latest statement on a subject earlier sessions spoke of gains), ``tense`` (English:
    more for a question about the present, none for one about the past) and ``before-change`` (English:
    "…before X?" favours what was said before X came up); leave one out to switch it off, ``()`` for the
    plain ranking. ``rerank_bound`` is the most a stage may move a score (see ``docs/search.md``).
    ``cached_scopes`` bounds the scopes whose snapshots a process keeps (at least 1). A scope of at least
    ``snapshot_files`` facts keeps its snapshot in a file next to a SQLite store, or for a server store
    (PostgreSQL) in a folder of ``snapshot_dir`` named by the database, so a new process's first search need not
    rebuild it (``anchormem.index.snapshot_files``; None: no files). ``other_language_lexical``: in a scope whose
    contexts are written in a language other than English, in proportion to their share, the lexical signal weighs
    this much more (all of them Italian: 1 + 1.0 = twice the anchors' cosine) and a context's anchors are picked by
    their cosine plus this much of their BM25, since the bundled embedder (all-MiniLM-L6-v2) learned English; 0
    with an embedder that reads the scope's language as well as English. ``other_language_subwords``: in such a
    scope, BM25 over four-letter pieces of the words (``anchormem.text.subwords``: a compound's head, a word's
    root) is a signal of this weight times that share, the lexical signal's weight being 1 (0: off).
    ``ann_index``: a PostgreSQL scope that has an HNSW index (``anchormem maintenance ann-index``, scopes of
    200,000+ facts) is searched through it, its fact matrix never loaded (False: every scope on the in-process
    matrix); ``ann_candidates`` is how many nearest facts such a search reads (``anchormem.index.ann``)."""

    k_facts: int = 10
    k_events: int = 10
    # 16 full chat windows (650 characters each) reach ``max_chars``: with 10, a long history's result held
    # about 6,500 characters and a 10,000-character block stayed a third empty (docs/search.md)
    max_contexts: int = 16
    variant: str = "anchormem"
    max_chars: int | None = 10_000  # context text per search (the best context is always returned); None: no cap
    rerankers: tuple[str, ...] = (
        "own-words",
        "statements",
        "recency",
        "tense",
        "before-change",
    )  # in order (``query.rerank``)
    rerank_bound: float = 0.1  # the most one stage may add to or take from a context's score
    other_language_lexical: float = 1.0  # the lexical signal's extra weight in a scope not written in English
    other_language_subwords: float = 1.0  # the word pieces' weight (as the lexical signal's) in such a scope
    cached_scopes: int = 64  # scope snapshots one process keeps in memory; the least recently used goes first
    snapshot_files: int | None = 10_000  # scopes of this many facts keep their snapshot in a file; None: never
    snapshot_dir: str | None = None  # a server store's snapshot files; None: ~/.anchormem/server-snapshots
    ann_index: bool = True  # search a scope through its HNSW index when it has one (False: the matrix, always)
    ann_candidates: int = 1000  # nearest facts a search through the index reads (at least the recipe's depths)


@dataclass(frozen=True)
class Settings:
    store: str = str(DEFAULT_HOME / "memory.db")
    cache: str | None = None  # LLM response cache path; default: next to the store
    llm: LLMSettings | None = None
    embed: EmbedSettings = field(default_factory=EmbedSettings)
    graph: GraphSettings = field(default_factory=GraphSettings)
    chunking: ChunkSettings = field(default_factory=ChunkSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)

    @property
    def store_is_url(self) -> bool:
        """A server store (``postgresql://…``) rather than a SQLite file."""
        return "://" in self.store and not self.store.startswith("sqlite:")

    @property
    def store_location(self) -> str:
        """What opens the store: a URL as given, or the expanded SQLite path."""
        return self.store if self.store_is_url else str(self.store_path)

    @property
    def store_path(self) -> Path:
        """The SQLite file (for a URL store: the default home, where local files such as the LLM cache go)."""
        if self.store_is_url:
            return DEFAULT_HOME.expanduser() / "server-store"
        store = self.store[len("sqlite:///") :] if self.store.startswith("sqlite:///") else self.store
        return Path(store).expanduser()

    @property
    def cache_path(self) -> Path:
        """The LLM response cache: next to a SQLite store, under ``~/.anchormem`` for a server store."""
        if self.cache:
            return Path(self.cache).expanduser()
        if self.store_is_url:
            return DEFAULT_HOME.expanduser() / "llm-cache.db"
        return self.store_path.with_name(self.store_path.stem + ".llm-cache.db")

    @property
    def batch_path(self) -> Path:
        """The batch file store (requests written to batch files, answers read back; ``anchormem.llm.batch``):
        beside the LLM response cache."""
        cache = self.cache_path
        return cache.with_name(cache.stem.removesuffix(".llm-cache") + ".llm-batch.db")

    @classmethod
    def load(
        cls,
        config_file: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> Settings:
        """Build settings from a TOML file, environment variables and overrides.

        ``env`` defaults to ``os.environ``; pass ``{}`` to ignore the environment.
        Recognised variables: ``ANCHORMEM_CONFIG``, ``ANCHORMEM_STORE``,
        ``ANCHORMEM_LLM_BASE_URL``, ``ANCHORMEM_LLM_MODEL``, ``ANCHORMEM_LLM_API_KEY``
        (falls back to ``OPENAI_API_KEY``), ``ANCHORMEM_EMBED_BACKEND``.
        """
        env = os.environ if env is None else env
        data: dict[str, Any] = {}
        path = config_file or env.get("ANCHORMEM_CONFIG")
        if path:
            data = _read_toml(Path(path).expanduser())
        env_map = {
            ("store",): env.get("ANCHORMEM_STORE"),
            ("llm", "base_url"): env.get("ANCHORMEM_LLM_BASE_URL"),
            ("llm", "model"): env.get("ANCHORMEM_LLM_MODEL"),
            ("llm", "api_key"): env.get("ANCHORMEM_LLM_API_KEY") or env.get("OPENAI_API_KEY"),
            ("embed", "backend"): env.get("ANCHORMEM_EMBED_BACKEND"),
        }
        for keys, value in env_map.items():
            if value:
                _set(data, keys, value)
        for name, value in overrides.items():
            if value is not None:
                _set(data, tuple(name.split("__")), value)
        return cls._from_dict(data)

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> Settings:
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ConfigError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        settings = cls()
        if "store" in data:
            settings = replace(settings, store=str(data["store"]))
        if "cache" in data:
            settings = replace(settings, cache=str(data["cache"]))
        llm = data.get("llm") or {}
        if llm:
            if not llm.get("base_url") or not llm.get("model"):
                if llm.get("base_url") or llm.get("model"):
                    raise ConfigError("an LLM needs both a base URL and a model name")
            else:
                settings = replace(settings, llm=_build(LLMSettings, llm, "llm"))
        sections = (
            ("embed", EmbedSettings),
            ("graph", GraphSettings),
            ("chunking", ChunkSettings),
            ("retrieval", RetrievalSettings),
        )
        for key, typ in sections:
            if key in data:
                settings = replace(settings, **{key: _build(typ, data[key], key)})
        _validate(settings)
        return settings


def _validate(s: Settings) -> None:
    if not 0.0 < s.graph.tau < 1.0:
        raise ConfigError(f"graph.tau must lie in (0, 1), got {s.graph.tau}")
    if s.graph.n_neighbors < 1:
        raise ConfigError("graph.n_neighbors must be at least 1")
    if s.graph.change_tau is not None and not 0.0 < s.graph.change_tau < s.graph.tau:
        raise ConfigError(f"graph.change_tau must lie in (0, tau), got {s.graph.change_tau}")
    c = s.chunking
    if c.window < 1 or c.stride < 1 or min(c.chat_chars, c.passage_chars, c.paper_chars) < 0:
        raise ConfigError(
            "chunking.window and stride must be >= 1; chat_chars (0: the paper's windows only), passage_chars "
            "and paper_chars (0: no limit) >= 0"
        )
    if s.llm is not None and s.llm.ungrounded_facts not in ("drop", "keep"):
        raise ConfigError(f"llm.ungrounded_facts must be 'drop' or 'keep', got {s.llm.ungrounded_facts!r}")
    r = s.retrieval
    if min(r.k_facts, r.k_events + 1, r.max_contexts) < 1:
        raise ConfigError("retrieval.k_facts and max_contexts must be >= 1, k_events >= 0")
    if r.max_chars is not None and r.max_chars < 1:
        raise ConfigError("retrieval.max_chars must be >= 1 (or unset: no cap)")
    if not 0.0 <= r.rerank_bound <= 1.0:
        raise ConfigError(f"retrieval.rerank_bound must lie in [0, 1], got {r.rerank_bound}")
    if not 0.0 <= r.other_language_lexical <= 10.0:
        raise ConfigError(f"retrieval.other_language_lexical must lie in [0, 10], got {r.other_language_lexical}")
    if not 0.0 <= r.other_language_subwords <= 10.0:
        raise ConfigError(f"retrieval.other_language_subwords must lie in [0, 10], got {r.other_language_subwords}")


def _read_toml(path: Path) -> dict[str, Any]:
    raw = read_limited(path, MAX_CONFIG_BYTES, ConfigError)
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path} is not UTF-8 text (byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc


def _set(data: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    node = data
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = value


def _build(typ: type[Any], values: Mapping[str, Any], section: str) -> Any:
    names = {f.name: f for f in fields(typ)}
    unknown = set(values) - set(names)
    if unknown:
        raise ConfigError(f"unknown setting(s) in [{section}]: {', '.join(sorted(unknown))}")
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        default = getattr(typ, key, None) if not callable(getattr(typ, key, None)) else None
        try:
            if key in ("max_chars", "snapshot_files"):  # a number, or none
                kwargs[key] = None if value in (None, "", "none", "None") else int(value)
            elif key == "snapshot_dir":  # a folder, or none (the default)
                kwargs[key] = None if value in (None, "") else str(value)
            elif isinstance(default, bool):
                kwargs[key] = value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
            elif isinstance(default, int):
                kwargs[key] = int(value)
            elif isinstance(default, float):
                kwargs[key] = float(value)
            elif isinstance(default, tuple):  # a list in TOML, or "a,b" in the environment
                items = value.split(",") if isinstance(value, str) else list(value)
                kwargs[key] = tuple(str(v).strip() for v in items if str(v).strip())
            else:
                kwargs[key] = value
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[{section}] {key}: expected a number, got {value!r}") from exc
    try:
        return typ(**kwargs)
    except TypeError as exc:
        raise ConfigError(f"[{section}]: {exc}") from exc
