"""The question as :func:`anchormem.search.retrieve.retrieve` embeds it: in the voice of the one speaker it is about
(:func:`voice_of`), and its own subject beside it (:func:`query_vectors`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from anchormem.index.snapshot import ScopeSnapshot
from anchormem.search.rerank.earlier import subject_query
from anchormem.text.person import alias_named, user_speaker
from anchormem.text.voice import in_voice, named_speaker


def query_vectors(
    embed: Callable[[list[str]], npt.NDArray[np.float32]], snapshot: ScopeSnapshot, query: str
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
    """The vectors :func:`anchormem.search.retrieve.retrieve` takes for ``query``: the query's, and its own
    subject's when it has one (:func:`anchormem.search.rerank.earlier.subject_query`), embedded in one call; else
    None.

    A query about one speaker is embedded in that speaker's own voice ("Where does the user work now?" as
    "Where do I work now?") when the memory holds that speaker's verbatim anchors ("user: I've said yes to
    the manager post at Hollins Pharmacy"): their statements say "I", and the speaker's name in the
    question matches the name every one of their anchors starts with, most in the shortest ("user: Well,
    that's dead." came closer than the job). So is a query that names the user by a name no message is
    stored under ("Where does Hannah work?", the user having said "my name is Hannah" or the name given
    with the messages). An LLM's facts name their subject ("The user works at …"), so a memory without
    verbatim anchors is asked the question as written."""
    subject = subject_query(snapshot, query)
    asked = query if (speaker := voice_of(snapshot, query)) is None else in_voice(query, speaker)
    vectors = embed([asked] if subject is None else [asked, subject])
    return vectors[0], None if subject is None else vectors[1]


def voice_of(snapshot: ScopeSnapshot, query: str) -> str | None:
    """How ``query`` calls the one speaker it is about, for :func:`query_vectors` to ask it in their voice, where
    the memory holds that speaker's verbatim anchors: a stored speaker's name ("the user", "Caroline"), the
    user's role ("the user", the user's messages being stored under their name) or a name of the user's no
    message is stored under (:func:`alias_named`); else None."""
    if not snapshot.speakers:
        return None
    named = named_speaker(query, snapshot.speakers)
    if named is not None:
        return named
    if user_speaker(snapshot.speakers) is not None and named_speaker(query, ("user", "assistant")) == "user":
        return "user"
    return alias_named(query, snapshot.speakers, snapshot.user_names) if snapshot.user_names else None
