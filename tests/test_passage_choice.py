"""Of a long message cut into passages, the search returns the passage that holds the question's terms."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from anchormem.config import RetrievalSettings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context, Fact, stable_id
from anchormem.search.passages import prefer_passages, siblings
from anchormem.search.retrieve import retrieve

EMB = HashEmbedder(dim=256)
REQUEST = "Could you translate the surgery letter below into plain English for me? Here it is, copied out:"
LETTER = (
    "Letter from Beech Grove Surgery, 16 April. Allergies: penicillin (widespread rash, 1987). Re: hypertension review."
)
OTHER = [
    ("2", "I walked the coast path with my sister on Sunday and we had lunch in the harbour."),
    ("3", "The plumber fixed the boiler at last, so the house is warm again."),
]


def _snapshot() -> ScopeSnapshot:
    """Session 1: one long message D1:1 in two passages (the request, then the letter), then a short reply in its
    own window; sessions 2 and 3: one short message each. The offline anchors are the message's sentences; the
    letter's facts do not name allergies, its text does."""
    contexts = [
        Context("p1", "1", 0, ("D1:1",), "1 May", f'DATE: 1 May\nuser said (part 1 of 2), "{REQUEST}…"', ((0, 95),)),
        Context("p2", "1", 1, ("D1:1",), "1 May", f'DATE: 1 May\nuser said (part 2 of 2), "…{LETTER}"', ((96, 200),)),
        Context("r1", "1", 2, ("D1:2",), "1 May", 'DATE: 1 May\nassistant said, "Of course, here it is."'),
    ]
    facts_of = {
        "p1": ["user: Could you translate the surgery letter below into plain English for me?"],
        "p2": ["user: Beech Grove Surgery, 16 April.", "user: Re: hypertension review."],
        "r1": ["assistant: Of course, here it is."],
    }
    for session, text in OTHER:
        cid = f"s{session}"
        contexts.append(Context(cid, session, 0, (f"D{session}:1",), None, f'DATE: x\nuser said, "{text}"'))
        facts_of[cid] = [f"user: {text}"]
    facts = [Fact(stable_id("f", cid, t), cid, t, "offline") for cid, texts in facts_of.items() for t in texts]
    vectors = EMB.embed([f.text for f in facts])
    return ScopeSnapshot(contexts, facts, vectors, embed_texts=EMB.embed, window_chars=100)  # a passage: a place


def test_siblings_are_the_other_passages_of_the_same_message() -> None:
    snap = _snapshot()
    assert siblings(snap, 0) == [1]
    assert siblings(snap, 1) == [0]  # the reply after it is another message
    assert siblings(snap, 2) == []  # a window of whole messages has no passages
    assert siblings(snap, 3) == []


def test_the_passage_holding_the_question_terms_replaces_its_sibling() -> None:
    snap = _snapshot()
    query = "What allergies does the user have?"
    assert prefer_passages(snap, query, [0, 3]) == [1, 3]
    assert prefer_passages(snap, query, [0, 1]) == [0, 1]  # the sibling is returned already: nothing moves
    assert prefer_passages(snap, "Could you translate it into plain English?", [0]) == [0]  # the request holds it
    assert prefer_passages(snap, "", [0]) == [0]


def test_search_returns_the_passage_with_the_answer() -> None:
    snap = _snapshot()
    query = "Could you tell me which allergies the surgery letter gave?"
    settings = replace(RetrievalSettings(), max_contexts=1)  # the default recipe
    result = retrieve(snap, query, EMB.embed([query])[0], settings)
    ids = [hit.context.id for hit in result.contexts]
    assert "p2" in ids and "p1" not in ids
    assert "penicillin" in result.prompt(max_chars=4000).text
    assert np.isfinite([hit.score for hit in result.contexts]).all()  # the passage keeps a score
