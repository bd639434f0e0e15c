"""Cut a session's messages into contexts (paper §4.1).

The paper's rule: per session, windows of ``window`` turns start every ``stride`` turns,
so consecutive windows share ``window - stride`` turns (one, with the defaults 3 and 2).
A session with an odd number of turns ends with a one-turn window repeating the last
turn, as in the authors' chunking (so precomputed facts attach by turn ids exactly).
That rule is made for dialogue in which every message is a turn and the speakers
alternate (LoCoMo), and it is used for every such session.

Real chats differ: people send several short messages in a row, and one message may
be a paragraph. A *chat session* — one in which a speaker sends two messages in a row,
more than once — is therefore cut by text length (``ChunkSettings.chat_chars``): consecutive messages of
one speaker form a turn, and a window takes whole turns while its text stays within
``chat_chars`` characters (a window holds at least one turn; a turn longer than that is
cut between messages). Chat windows do not overlap: a shared turn would be handed to the
reader twice whenever both neighbours are returned, and in a chat a turn is long.

Every message keeps its own id and line in the context's text (``Speaker said, "…"``;
the further messages of a turn as ``  "…"`` lines, the speaker named once), so
provenance, citations and deletes stay per message.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from anchormem.config import ChunkSettings
from anchormem.model import Context, Scope, Turn, stable_id

WINDOW = 3
STRIDE = 2


def render_turn(turn: Turn, continued: bool = False) -> str:
    """One message's line; ``continued``: a further message of the speaker's turn (speaker not repeated)."""
    line = f'  "{turn.text}"' if continued else f'{turn.speaker} said, "{turn.text}"'
    if turn.image_caption:
        line += f" and shared {turn.image_caption}."
    return line


def render_context(date: str | None, turns: Sequence[Turn]) -> str:
    header = f"DATE: {date}" if date else "DATE: unknown"
    lines = [header]
    for i, turn in enumerate(turns):
        lines.append(render_turn(turn, continued=i > 0 and turns[i - 1].speaker == turn.speaker))
    return "\n".join(lines)


def windows(n: int, size: int = WINDOW, stride: int = STRIDE) -> list[range]:
    """Index ranges of the paper's windows over ``n`` turns."""
    if size < 1 or stride < 1:
        raise ValueError("window size and stride must be positive")
    return [range(start, min(start + size, n)) for start in range(0, n, stride)]


CHAT_REPEATS = 2


def is_chat(messages: Sequence[Turn]) -> bool:
    """Whether a speaker sends two messages in a row at least ``CHAT_REPEATS`` times (one double
    message, or one that a deleted message leaves behind, does not make dialogue a chat)."""
    repeats = sum(a.speaker == b.speaker for a, b in itertools.pairwise(messages))
    return repeats >= CHAT_REPEATS


def speaker_turns(messages: Sequence[Turn], max_chars: int = 0) -> list[list[Turn]]:
    """Consecutive messages of one speaker grouped into turns, in order. A turn grows while its
    text stays within ``max_chars`` characters (0: no limit); a message is never split."""
    out: list[list[Turn]] = []
    size = 0
    for message in messages:
        length = len(message.text)
        if out and out[-1][-1].speaker == message.speaker and (max_chars <= 0 or size + length <= max_chars):
            out[-1].append(message)
            size += length
        else:
            out.append([message])
            size = length
    return out


def packed_windows(lengths: Sequence[int], max_chars: int) -> list[range]:
    """Consecutive, non-overlapping windows over items of the given lengths: each takes items while
    its total stays within ``max_chars`` (at least one item)."""
    out: list[range] = []
    start = 0
    while start < len(lengths):
        end, total = start + 1, lengths[start]
        while end < len(lengths) and total + lengths[end] <= max_chars:
            total += lengths[end]
            end += 1
        out.append(range(start, end))
        start = end
    return out


def session_windows(messages: Sequence[Turn], settings: ChunkSettings) -> list[list[Turn]]:
    """The messages of each window of one session (rules in the module docstring)."""
    if settings.chat_chars > 0 and is_chat(messages):
        turns = speaker_turns(messages, settings.chat_chars)
        spans = packed_windows([sum(len(m.text) for m in t) for t in turns], settings.chat_chars)
        return [[m for i in span for m in turns[i]] for span in spans]
    return [[messages[i] for i in idx] for idx in windows(len(messages), settings.window, settings.stride)]


def chunk_session(scope: Scope, session_turns: Sequence[Turn], settings: ChunkSettings | None = None) -> list[Context]:
    """Contexts of one session, whose messages must be in conversation order."""
    settings = settings or ChunkSettings()
    contexts: list[Context] = []
    for position, turns in enumerate(session_windows(session_turns, settings)):
        date = turns[0].timestamp
        text = render_context(date, turns)
        turn_ids = tuple(t.id for t in turns)
        cid = stable_id("c", scope.key(), turns[0].session, "|".join(turn_ids), text)
        contexts.append(
            Context(id=cid, session=turns[0].session, position=position, turn_ids=turn_ids, date=date, text=text)
        )
    return contexts
