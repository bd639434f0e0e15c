"""Cut a session's turns into contexts (paper §4.1).

Per session, windows of ``size`` turns start every ``stride`` turns, so consecutive
windows share ``size - stride`` turns (one, with the defaults 3 and 2). A session
with an odd number of turns ends with a one-turn window repeating the last turn, as
in the authors' chunking (so precomputed facts attach by turn ids exactly).
"""

from __future__ import annotations

from collections.abc import Sequence

from anchormem.model import Context, Scope, Turn, stable_id

WINDOW = 3
STRIDE = 2


def render_turn(turn: Turn) -> str:
    line = f'{turn.speaker} said, "{turn.text}"'
    if turn.image_caption:
        line += f" and shared {turn.image_caption}."
    return line


def render_context(date: str | None, turns: Sequence[Turn]) -> str:
    header = f"DATE: {date}" if date else "DATE: unknown"
    return "\n".join([header, *(render_turn(t) for t in turns)])


def windows(n: int, size: int = WINDOW, stride: int = STRIDE) -> list[range]:
    """Index ranges of the windows over ``n`` turns."""
    if size < 1 or stride < 1:
        raise ValueError("window size and stride must be positive")
    return [range(start, min(start + size, n)) for start in range(0, n, stride)]


def chunk_session(
    scope: Scope, session_turns: Sequence[Turn], size: int = WINDOW, stride: int = STRIDE
) -> list[Context]:
    """Contexts of one session, whose turns must be in conversation order."""
    contexts: list[Context] = []
    for position, idx in enumerate(windows(len(session_turns), size, stride)):
        turns = [session_turns[i] for i in idx]
        date = turns[0].timestamp
        text = render_context(date, turns)
        turn_ids = tuple(t.id for t in turns)
        cid = stable_id("c", scope.key(), turns[0].session, "|".join(turn_ids), text)
        contexts.append(
            Context(id=cid, session=turns[0].session, position=position, turn_ids=turn_ids, date=date, text=text)
        )
    return contexts
