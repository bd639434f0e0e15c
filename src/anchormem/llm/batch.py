"""An LLM answered through batch files (the OpenAI Batch API's JSONL input and output formats).

:class:`BatchLLM` implements the :class:`~anchormem.llm.protocol.LLM` protocol. A request it holds an
answer for is answered at once, as a live call would be (the completion's text, token usage and
model, ``cached=False``); any other request is recorded and :class:`BatchPendingError` is raised.
So the product's own code runs unchanged: the same prompts, the same parsing and JSON repair
(:func:`~anchormem.llm.structured.complete_parsed`; a reply it cannot read is asked again, which is
one more request for the next batch), the same accounting (wrap it with
:meth:`~anchormem.llm.accounting.Accounting.wrap`; a pending call counts no call and no tokens) and the
same response cache (``CachedLLM(BatchLLM(...), path)``).

The round trip::

    llm = BatchLLM("gpt-4.1", Path("run/batch.sqlite"))
    run(llm)                                # every call raises BatchPendingError, recorded
    llm.export(Path("run/requests.jsonl"))  # the batch input file (or parts of it)
    # ... the file is answered elsewhere ...
    report = llm.import_results(Path("run/results.jsonl"))
    print(report.describe())                # line by line: malformed, unknown, duplicate, failed, missing
    run(llm)                                # answered now; what is still pending is exported again

The store (one SQLite file) keeps every request recorded and every answer imported. An import only
adds answers, never replaces or deletes one, so a damaged or repeated results file loses nothing
already answered; :meth:`export` writes only requests without an answer, so a partly answered batch
resumes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchormem._util.shared_sqlite import SQLiteFile
from anchormem.errors import InputError, LLMError, LLMResponseError, StoreError
from anchormem.llm.batch_lines import BatchRequest, LineProblem, ResultLine, read_result_line
from anchormem.llm.openai_compat import completion_from_body
from anchormem.llm.protocol import Completion, CompletionParams, Message

__all__ = ["BatchLLM", "BatchPendingError", "ImportReport"]

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS batch_requests (
        custom_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, line TEXT NOT NULL, exported REAL)""",
    """CREATE TABLE IF NOT EXISTS batch_answers (
        custom_id TEXT PRIMARY KEY, text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL, model TEXT NOT NULL, source TEXT NOT NULL, imported REAL NOT NULL)""",
)


class BatchPendingError(LLMError):
    """The request has no batch answer yet; it is recorded for the next :meth:`BatchLLM.export`."""

    def __init__(self, custom_id: str, model: str) -> None:
        super().__init__(f"request {custom_id[:16]}… to {model} waits for a batch answer")
        self.custom_id = custom_id


@dataclass
class ImportReport:
    """What one results file gave: answers added, answers already held, and every line (or request)
    that gave none, in file order; ``missing`` are requests of the store still without an answer."""

    path: Path
    added: int = 0
    already: int = 0
    problems: list[LineProblem] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.missing

    def summary(self) -> dict[str, Any]:
        """The counts and the problems as plain data (the CLI's and the service's JSON answer)."""
        return {
            "added": self.added,
            "already": self.already,
            "problems": [
                {"line": p.line, "custom_id": p.custom_id, "kind": p.kind, "detail": p.detail} for p in self.problems
            ],
            "missing": len(self.missing),
        }

    def describe(self) -> str:
        lines = [f"{self.path}: {self.added} answers added, {self.already} already held"]
        lines += [f"  {problem}" for problem in self.problems]
        if self.missing:
            lines.append(f"  {len(self.missing)} requests still without an answer (export them again)")
        return "\n".join(lines)


class BatchLLM(SQLiteFile):
    """The LLM protocol over batch files; ``store`` is the SQLite file of its requests and answers.
    Thread-safe."""

    def __init__(self, model: str, store: Path) -> None:
        self._model = model
        self._pending: dict[str, None] = {}  # recorded by this process, in order
        super().__init__(store, "batch store", ("PRAGMA journal_mode=WAL", "PRAGMA busy_timeout=5000", *_SCHEMA))
        self._db, self._lock = self._sql.db, self._sql.lock  # for the transactions below

    @property
    def model(self) -> str:
        return self._model

    def complete(self, messages: list[Message], params: CompletionParams | None = None) -> Completion:
        request = BatchRequest.of(self._model, messages, params)
        rows = self._sql.query(
            "SELECT text, prompt_tokens, completion_tokens, model FROM batch_answers WHERE custom_id = ?",
            (request.custom_id,),
        )
        if rows:
            text, prompt_tokens, completion_tokens, model = rows[0]
            return Completion(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, model=model)
        self._record(request)
        raise BatchPendingError(request.custom_id, self._model)

    def pending(self) -> list[str]:
        """custom_ids of this process's requests that have no answer yet, in the order first asked."""
        with self._lock:
            recorded = list(self._pending)
        answered = self._answered(recorded)
        return [cid for cid in recorded if cid not in answered]

    def unanswered(self) -> list[str]:
        """custom_ids of every request the store holds without an answer (any process), oldest first."""
        rows = self._sql.query(
            "SELECT custom_id FROM batch_requests WHERE custom_id NOT IN (SELECT custom_id FROM batch_answers)"
            " ORDER BY seq"
        )
        return [row[0] for row in rows]

    def export(self, path: Path, *, part_size: int | None = None, everything: bool = False) -> list[Path]:
        """Write the requests without an answer as batch input JSONL: this process's pending ones, or
        ``everything`` the store holds. With ``part_size`` the lines go to ``<stem>.partNNN.jsonl``
        files of at most that many lines. Returns the files written (none when nothing is pending)."""
        if part_size is not None and part_size < 1:
            raise InputError(f"part_size must be at least 1, got {part_size}")
        ids = self.unanswered() if everything else self.pending()
        if not ids:
            return []
        lines = self._lines(ids)
        size = part_size or len(lines)
        chunks = [lines[i : i + size] for i in range(0, len(lines), size)]
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if part_size is None:
            targets = [path]
        else:
            targets = [
                path.with_name(f"{path.stem}.part{n:03d}{path.suffix or '.jsonl'}") for n in range(1, len(chunks) + 1)
            ]
        for target, chunk in zip(targets, chunks, strict=True):
            target.write_text("".join(line + "\n" for line in chunk), encoding="utf-8")
        self._run_many("UPDATE batch_requests SET exported = ? WHERE custom_id = ?", [(time.time(), c) for c in ids])
        return targets

    def import_results(self, path: Path) -> ImportReport:
        """Read a batch output file; store every usable answer, report every line that gave none.

        An answer already held is kept (a second copy of it is counted in ``already``); a custom_id
        the store never recorded is ``unknown``; a second line for the same custom_id is a
        ``duplicate`` and ignored. Raises :class:`InputError` only when the file cannot be read."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InputError(f"cannot read batch results {path}: {exc}") from exc
        report = ImportReport(path)
        seen: set[str] = set()
        for number, raw in enumerate(text.splitlines(), start=1):
            item = read_result_line(number, raw)
            if item is None:
                continue
            if isinstance(item, LineProblem):
                if item.custom_id is not None and item.custom_id in seen:
                    item = LineProblem(number, item.custom_id, "duplicate", f"another line for it ({item.detail})")
                report.problems.append(item)
                if item.custom_id is not None:
                    seen.add(item.custom_id)
                continue
            if item.custom_id in seen:
                report.problems.append(LineProblem(number, item.custom_id, "duplicate", "a second answer, ignored"))
                continue
            seen.add(item.custom_id)
            self._take(item, path, report)
        report.missing = self.unanswered()
        return report

    def forget_containing(self, text: str) -> int:
        """Delete every request whose line holds ``text``, and its answer, and every answer whose text holds it
        (a delete or update of the memory forgot these words); returns how many requests and answers went.
        A results line for a forgotten request is then ``unknown``: its answer is never stored."""
        if not text:
            return 0
        escaped = json.dumps(text, ensure_ascii=False)[1:-1]  # as it appears inside a request's JSON line
        with self._lock:
            try:
                self._db.execute("BEGIN")
                gone = [
                    row[0]
                    for row in self._db.execute(
                        "SELECT custom_id FROM batch_requests WHERE instr(line, ?) > 0 OR instr(line, ?) > 0",
                        (text, escaped),
                    ).fetchall()
                ]
                gone += [
                    row[0]
                    for row in self._db.execute(
                        "SELECT custom_id FROM batch_answers WHERE instr(text, ?) > 0", (text,)
                    ).fetchall()
                ]
                removed = 0
                for cid in dict.fromkeys(gone):
                    removed += self._db.execute("DELETE FROM batch_requests WHERE custom_id = ?", (cid,)).rowcount
                    removed += self._db.execute("DELETE FROM batch_answers WHERE custom_id = ?", (cid,)).rowcount
                    self._pending.pop(cid, None)
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._db.execute("ROLLBACK")
                raise StoreError(f"batch store {self._path}: {exc}") from exc
        return removed

    def _take(self, item: ResultLine, path: Path, report: ImportReport) -> None:
        rows = self._sql.query("SELECT line FROM batch_requests WHERE custom_id = ?", (item.custom_id,))
        if not rows:
            report.problems.append(LineProblem(item.line, item.custom_id, "unknown", "no request of this store"))
            return
        messages = json.loads(rows[0][0])["body"]["messages"]
        try:
            completion = completion_from_body(item.body, messages, model=self._model, source=f"line {item.line}")
        except LLMResponseError as exc:
            report.problems.append(LineProblem(item.line, item.custom_id, "malformed", str(exc)))
            return
        added = self._sql.run(
            "INSERT OR IGNORE INTO batch_answers VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                item.custom_id,
                completion.text,
                completion.prompt_tokens,
                completion.completion_tokens,
                completion.model,
                f"{path.name}:{item.line}",
                time.time(),
            ),
        )
        if added:
            report.added += 1
        else:
            report.already += 1

    def _record(self, request: BatchRequest) -> None:
        with self._lock:
            self._pending.setdefault(request.custom_id, None)
        self._sql.run(
            "INSERT OR IGNORE INTO batch_requests"
            " VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM batch_requests), ?, NULL)",
            (request.custom_id, request.line()),
        )

    def _lines(self, ids: list[str]) -> list[str]:
        lines = {cid: line for cid, line in self._sql.query("SELECT custom_id, line FROM batch_requests")}
        return [lines[cid] for cid in ids if cid in lines]

    def _answered(self, ids: Iterable[str]) -> set[str]:
        wanted = set(ids)
        return {row[0] for row in self._sql.query("SELECT custom_id FROM batch_answers") if row[0] in wanted}

    def _run_many(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN")
                self._db.executemany(sql, rows)
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._db.execute("ROLLBACK")
                raise StoreError(f"batch store {self._path}: {exc}") from exc
