"""LLM-free anchors: short search keys cut from a context's own turns.

Each turn gives its sentences prefixed with the speaker's name ("Caroline: I went to a LGBTQ support
group yesterday."), so an anchor names who said it, like an LLM fact does; an image turn also gives
"Caroline shared a photo of a dog.". Very short fragments are merged into their neighbour. A sentence
ends at "?" or "!" before any word (people texting write "how do i fix this? my dad would know"), and at
"." before a capital, a digit or a quote (a full stop before a lowercase word may be an abbreviation), except
where the full stop leaves the sentence open: "am 29. Juni", "Dr. Weber" (:mod:`anchormem._util.sentences`).
"""

from __future__ import annotations

import re

from anchormem._util.sentences import cut
from anchormem.model import Context, Turn

_SENTENCE_END = re.compile(r"(?<=[!?])\s+|(?<=\.)\s+(?=[A-Z0-9\"'])")
MIN_WORDS = 4


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; fragments shorter than ``MIN_WORDS`` words join the previous one."""
    out: list[str] = []
    for piece in cut(text.strip(), _SENTENCE_END):
        piece = piece.strip()
        if not piece:
            continue
        if (out and len(piece.split()) < MIN_WORDS) or (out and len(out[-1].split()) < MIN_WORDS):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def extract_anchors(context: Context, turns: list[Turn]) -> list[str]:
    """Anchors for one context, in turn order, without repeats."""
    wanted = set(context.turn_ids)
    anchors: dict[str, None] = {}
    for turn in turns:
        if wanted and turn.id not in wanted:
            continue
        for sentence in split_sentences(turn.text):
            anchors.setdefault(f"{turn.speaker}: {sentence}", None)
        if turn.image_caption:
            anchors.setdefault(f"{turn.speaker} shared {_caption(turn.image_caption)}.", None)
    return list(anchors)


def _caption(caption: str) -> str:
    """BLIP captions mostly start with "a photo of"; others get it added."""
    caption = caption.strip().rstrip(".")
    if caption.lower().startswith(("a photo", "a photograph", "a picture", "an image")):
        return caption
    return f"a photo of {caption}"
