"""How CLI results look to people: short readable text (``--json`` output is :mod:`anchormem.wire.serialize`)."""

from __future__ import annotations

import json
from typing import Any

from anchormem.model import Answer, Context, Event, Fact, Scope, SearchResult, Stats, Turn
from anchormem.wire.serialize import to_jsonable


def to_text(value: Any) -> str:
    if isinstance(value, SearchResult):
        return search_text(value)
    if isinstance(value, Answer):
        cites = ", ".join(value.cited_turn_ids) or "none"
        how = {
            "matched": " (the reader cited none; these turns hold the answer's words)",
            "none": " (the reader cited none, and no turn shown to it holds the answer's words)",
        }.get(value.citation, "")
        return f"{value.text}\n  (cited turns: {cites}{how}; model: {value.model})"
    if isinstance(value, Stats):
        return stats_text(value)
    if isinstance(value, list):
        return "\n".join(record_line(v) for v in value) if value else "(none)"
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_short(v)}" for k, v in value.items())
    if isinstance(value, (Turn, Context, Fact, Event)):
        return "\n".join(f"{k}: {v}" for k, v in to_jsonable(value).items())
    return str(value)


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items() if v not in (0, [], None))
    return str(value)


def record_line(record: Any) -> str:
    if isinstance(record, Turn):
        meta = f"  {json.dumps(record.metadata, ensure_ascii=False)}" if record.metadata else ""
        return f"{record.id:>8}  [{record.timestamp}] {record.speaker}: {record.text}{meta}"
    if isinstance(record, Context):
        return f"{record.id}  session {record.session}  turns {','.join(record.turn_ids)}"
    if isinstance(record, Fact):
        return f"{record.id}  ({record.context_id}) {record.text}"
    if isinstance(record, Event):
        return f"{record.id}  ({len(record.fact_ids)} facts) {record.text[:160]}"
    if isinstance(record, Scope):
        agent = f"(agent) {record.agent_id}" if not record.user_id and record.agent_id else record.agent_id
        return " / ".join(x for x in (record.user_id, agent, record.run_id) if x)
    return str(record)


def search_text(result: SearchResult) -> str:
    lines = [f"query: {result.query}", f"{len(result.contexts)} contexts (best first), {len(result.events)} events", ""]
    several = len({hit.scope for hit in result.contexts}) > 1  # then each context says where it is stored
    for hit in result.contexts:
        c = hit.context
        mark = {True: "  [latest]", False: "  [earlier]", None: ""}[hit.latest]
        turns = ", ".join(c.turn_ids)
        where = f"  in {record_line(hit.scope)}" if several and hit.scope is not None else ""
        lines.append(
            f"── #{hit.rank} context {c.id}{where}  session {c.session}  turns {turns}  score {hit.score:.3f}{mark}"
        )
        lines.extend("   " + line for line in c.text.splitlines())
        for a in hit.anchors[:3]:
            lines.append(f"   ↳ anchor {a.score:.2f}: {a.fact.text}")
    if result.events:
        lines.append("")
        for ev in result.events:
            lines.append(f"── event {ev.event.id}  score {ev.score:.3f}  from contexts {len(ev.context_ids)}")
            lines.append(f"   {ev.event.text[:300]}")
    return "\n".join(lines)


def stats_text(s: Stats) -> str:
    lines = [
        f"turns {s.turns} in {s.sessions} sessions; contexts {s.contexts}; facts {s.facts}; events {s.events}",
        f"extractions pending {s.pending_extractions}, failed {s.failed_extractions}; "
        f"facts their context did not support {s.ungrounded_facts}",
    ]
    if s.batch_extractions or s.unlinked_facts:
        lines.append(
            f"waiting: {s.batch_extractions} contexts for their facts' batch answer (searchable by provisional "
            f"anchors), {s.unlinked_facts} facts for their events"
        )
    for phase, u in s.usage.items():
        cached = (
            f" (+ {u.cached_prompt_tokens} + {u.cached_completion_tokens} from the cache)"
            if u.cached_prompt_tokens or u.cached_completion_tokens
            else ""
        )
        lines.append(
            f"{phase}: {u.calls} calls ({u.cached_calls} cached, {u.failed_calls} failed), "
            f"{u.prompt_tokens} prompt + {u.completion_tokens} completion tokens spent{cached}, "
            f"wall time {u.wall_seconds:.1f} s, call time {u.call_seconds:.1f} s"
        )
    return "\n".join(lines)
