"""Per-phase accounting of LLM use (calls, tokens, seconds), as in the paper's
Tables 2 and 4. Wrap an LLM once per phase; every call through the wrapper is
recorded under that phase (a request that waits for a batch answer is no call: it counts nothing).

One operation (an add, a delete's rebuild, an answer) gets its own :class:`Accounting`
whose ``parent`` is the process-wide one: the operation's own counts are exact however
many other operations run at the same time, and the parent still sums them all."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from anchormem.llm.batch import BatchPendingError
from anchormem.llm.protocol import LLM, Completion, CompletionParams, Message
from anchormem.model import Usage


class Accounting:
    """Thread-safe usage counters, one :class:`~anchormem.model.Usage` per phase.

    Tokens of calls answered from the response cache are counted apart from spent ones
    (``cached_prompt_tokens``, ``cached_completion_tokens``; ``cached_calls`` says how many calls were
    free). ``call_seconds`` sums the time of every call, failed ones included; ``wall_seconds`` is the
    time during which at least one call of the phase ran, measured by each accounting for the calls it
    sees (an operation's own, or the whole process's), so concurrent calls count once.
    """

    def __init__(self, parent: Accounting | None = None) -> None:
        self._lock = threading.Lock()
        self._phases: dict[str, Usage] = {}
        self._running: dict[str, tuple[int, float]] = {}  # phase -> (calls running now, since when)
        self.parent = parent

    def child(self) -> Accounting:
        """A fresh accounting for one operation; what it records is also recorded here."""
        return Accounting(parent=self)

    def wrap(self, llm: LLM, phase: str) -> LLM:
        """An LLM that forwards to ``llm`` and records every call under ``phase``."""
        return AccountedLLM(llm, self, phase)

    def begin(self, phase: str) -> None:
        """A call of ``phase`` starts (pair it with :meth:`record`): the phase's wall clock runs from the
        first of the calls running at once to the end of the last."""
        now = time.monotonic()
        with self._lock:
            running, since = self._running.get(phase, (0, now))
            self._running[phase] = (running + 1, since if running else now)
        if self.parent is not None:
            self.parent.begin(phase)

    def record(self, phase: str, completion: Completion | None, seconds: float) -> None:
        """Record one call that took ``seconds``; ``completion=None`` records a failed call. After
        :meth:`begin` it also ends that call on the phase's wall clock."""
        one = Usage(calls=1, call_seconds=seconds)
        if completion is None:
            one.failed_calls = 1
        elif completion.cached:
            one.cached_calls = 1
            one.cached_prompt_tokens = completion.prompt_tokens
            one.cached_completion_tokens = completion.completion_tokens
        else:
            one.prompt_tokens = completion.prompt_tokens
            one.completion_tokens = completion.completion_tokens
        self._add(phase, one)

    def cancel(self, phase: str) -> None:
        """A call of ``phase`` begun with :meth:`begin` was not made after all (its request waits for a batch
        answer): it ends on the wall clock and counts no call and no tokens."""
        now = time.monotonic()
        with self._lock:
            running, since = self._running.pop(phase, (0, now))
            if running > 1:
                self._running[phase] = (running - 1, since)
            elif running == 1:
                usage = self._phases.setdefault(phase, Usage())
                usage.wall_seconds += now - since
        if self.parent is not None:
            self.parent.cancel(phase)

    def _add(self, phase: str, one: Usage) -> None:
        now = time.monotonic()
        with self._lock:
            usage = self._phases.setdefault(phase, Usage())
            usage.add(one)
            running, since = self._running.pop(phase, (0, now))
            if running > 1:
                self._running[phase] = (running - 1, since)
            elif running == 1:
                usage.wall_seconds += now - since
            else:  # recorded without begin(): its own time is all the wall clock knows
                usage.wall_seconds += one.call_seconds
        if self.parent is not None:
            self.parent._add(phase, one)

    def usage(self, phase: str) -> Usage:
        """A copy of one phase's usage (zeros for an unknown phase)."""
        with self._lock:
            return replace(self._phases.get(phase, Usage()))

    def snapshot(self) -> dict[str, Usage]:
        """Copies of every phase's usage."""
        with self._lock:
            return {name: replace(u) for name, u in self._phases.items()}

    def used(self) -> dict[str, Usage]:
        """Copies of the phases that saw at least one call (what is worth storing)."""
        return {name: u for name, u in self.snapshot().items() if u.calls or u.failed_calls}

    def total(self) -> Usage:
        total = Usage()
        for usage in self.snapshot().values():
            total.add(usage)
        return total

    def reset(self) -> None:
        with self._lock:
            self._phases.clear()


class AccountedLLM:
    """An LLM that records its calls into an :class:`Accounting` under one phase."""

    def __init__(self, inner: LLM, accounting: Accounting, phase: str) -> None:
        self._inner = inner
        self._accounting = accounting
        self.phase = phase

    @property
    def model(self) -> str:
        return self._inner.model

    def complete(self, messages: list[Message], params: CompletionParams | None = None) -> Completion:
        self._accounting.begin(self.phase)
        started = time.monotonic()
        try:
            completion = self._inner.complete(messages, params)
        except BatchPendingError:  # no call was made: the request waits for a batch answer
            self._accounting.cancel(self.phase)
            raise
        except Exception:
            self._accounting.record(self.phase, None, time.monotonic() - started)
            raise
        self._accounting.record(self.phase, completion, time.monotonic() - started)
        return completion
