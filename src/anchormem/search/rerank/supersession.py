"""Which statement holds now, read from the supersession links of the LLM path.

With an LLM, event integration says when one statement replaces another ("moved from Lavapiés to
Carabanchel in September 2024", "actually it's Thursday, not Tuesday") and its event records which fact
supersedes which (:attr:`anchormem.model.Event.supersedes`). On that path the ``latest``/``earlier`` marks
and the ``recency`` stage (:mod:`anchormem.search.rerank.recency`) come from those links, not from dates: two
contexts are compared only when a fact of one supersedes a fact of the other and the superseded fact is its
context's best anchor for the query (:mod:`anchormem.search.rerank.subject`): a context is ``earlier`` for what
the query asks, so one that also holds a replaced detail about something else is not marked for it (on the
blind-7 chats "the query went from 14 s to 300 ms" marked ``earlier`` the context that answers a question about
the app's web framework). A statement held by two overlapping windows is one
statement: a link naming it in one window marks the other too.

The path is the LLM's when a candidate context has LLM-extracted facts; without links between the
candidates nothing is marked there (the LLM saw no change). Links live on events: deleting the newer
statement deletes its event, and with it the link, so the older statement is current again.

A link is read only where its two facts show a change (:func:`shows_change`): a change replaces a value, so
the newer fact holds a value the older lacks, and the older one a value the newer lacks, unless the link is a
correction, whose newer fact often names the value it corrects ("on Thursdays, not Tuesdays"). A value is a
number or a capitalised word past the fact's first (a name, a place, a day, a month). The model also lists
restatements as changes: on the blind-7 chats (claude-helper) 9 of its 16 links joined two wordings of one
thing ("is titled …" / "is on …", "Mrs Elaine Pritchard" / "Elaine Pritchard", the same two chapters left);
the rule keeps 7 (6 changes, 1 date written two ways) and drops 9 (8 restatements, 1 change: second-year to
third-year). The links stay stored with their events (provenance); the search leaves out those whose facts
show no change of value, marks and the ``recency`` stage alike.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from anchormem.index.snapshot import ScopeSnapshot


@dataclass(frozen=True)
class Links:
    """Per candidate row: the candidate rows whose facts supersede one of its facts (``newer``) and those
    with a fact it supersedes (``older``)."""

    newer: Mapping[int, frozenset[int]]
    older: Mapping[int, frozenset[int]]

    def latest(self, rows: Collection[int]) -> list[int]:
        """Rows that supersede another of ``rows`` and are superseded by none of them."""
        wanted = set(rows)
        return [
            r for r in rows if self.older.get(r, frozenset()) & wanted and not self.newer.get(r, frozenset()) & wanted
        ]


def on_llm_path(snapshot: ScopeSnapshot, rows: Sequence[int]) -> bool:
    """Whether any of ``rows`` holds LLM-extracted facts (then marks come from links)."""
    facts = snapshot.facts
    groups = snapshot.context_facts
    return any(facts[f].source == "llm" for row in rows for f in groups[row])


def links(snapshot: ScopeSnapshot, rows: Sequence[int], best_fact: Mapping[int, int]) -> Links:
    """The supersession :class:`Links` among ``rows`` (``best_fact``: each row's best anchor row, or -1)."""
    facts = snapshot.facts
    wanted = set(rows)
    row_of: dict[str, int] = {}
    best: set[str] = set()
    fact_row: dict[str, int] = {}
    for row in rows:
        held = _held(snapshot, row)
        for f in held:
            row_of.setdefault(facts[f].id, row)
            fact_row.setdefault(facts[f].id, f)
        top = best_fact.get(row, -1)
        if top >= 0:
            said = _norm(facts[top].text)
            best.update(facts[f].id for f in held if _norm(facts[f].text) == said)
    held_events = snapshot.event_row  # fact_event_ids may name events a grown snapshot no longer holds
    seen: set[str] = set()
    newer: dict[int, set[int]] = {}
    older: dict[int, set[int]] = {}
    for fid in list(row_of):
        for eid in snapshot.fact_event_ids.get(fid, ()):
            if eid in seen or eid not in held_events:
                continue
            seen.add(eid)
            for new, old, kind in snapshot.events[held_events[eid]].supersedes:
                a, b = row_of.get(new), row_of.get(old)
                if a is None or b is None or a == b or a not in wanted or old not in best:
                    continue
                if not shows_change(facts[fact_row[new]].text, facts[fact_row[old]].text, kind):
                    continue
                newer.setdefault(b, set()).add(a)
                older.setdefault(a, set()).add(b)
    return Links(
        newer={r: frozenset(v) for r, v in newer.items()},
        older={r: frozenset(v) for r, v in older.items()},
    )


_TOKEN = re.compile(r"\w+")


def values(text: str) -> set[str]:
    """The values a fact states: its numbers and its capitalised words past the first (names, places, days,
    months), casefolded."""
    words = _TOKEN.findall(text)
    return {w.casefold() for i, w in enumerate(words) if any(c.isdigit() for c in w) or (i > 0 and w[:1].isupper())}


def shows_change(newer: str, older: str, kind: str) -> bool:
    """Whether facts ``newer`` and ``older`` show the change a link between them says (module docstring): the
    newer holds a value the older lacks, and the older one the newer lacks unless ``kind`` is a correction."""
    new, old = values(newer), values(older)
    return bool(new - old) and (kind == "correction" or bool(old - new))


def _held(snapshot: ScopeSnapshot, row: int) -> list[int]:
    """The fact rows of context ``row``, and the facts of the same text in its session's neighbouring windows:
    windows overlap by a message, so one statement is often a fact of two contexts, and the event that links it
    may name the other one."""
    facts, contexts, groups = snapshot.facts, snapshot.contexts, snapshot.context_facts
    own = groups[row]
    texts = {_norm(facts[f].text) for f in own}
    out = list(own)
    for near in (row - 1, row + 1):
        if 0 <= near < len(contexts) and contexts[near].session == contexts[row].session:
            out.extend(f for f in groups[near] if _norm(facts[f].text) in texts)
    return out


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()
