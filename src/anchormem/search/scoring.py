"""Per-context relevance signals and their normalisation (score fusion)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from anchormem.index.snapshot import ScopeSnapshot
from anchormem.text.lexical import document_terms

Floats = npt.NDArray[np.float64]


def context_max(snapshot: ScopeSnapshot, fact_values: npt.NDArray[np.floating]) -> Floats:
    """Per context, the largest value among its facts (``-inf`` for a context without facts)."""
    order, starts, has_facts = snapshot.fact_segments
    out = np.full(len(snapshot.contexts), -np.inf)
    if order.size:
        out[has_facts] = np.maximum.reduceat(np.asarray(fact_values, dtype=np.float64)[order], starts)
    return out


def context_soft_max(snapshot: ScopeSnapshot, fact_values: npt.NDArray[np.floating], temperature: float) -> Floats:
    """Per context, a soft maximum of its facts' values: ``t * log(sum(exp(v / t)))``, the best
    value plus up to ``t * log(n)`` when several facts come close to it, so a window in which
    several messages match gains over one with a single match (``-inf`` without facts;
    ``temperature <= 0``: the plain maximum)."""
    if temperature <= 0:
        return context_max(snapshot, fact_values)
    order, starts, has_facts = snapshot.fact_segments
    out = np.full(len(snapshot.contexts), -np.inf)
    if order.size:
        values = np.asarray(fact_values, dtype=np.float64)[order]
        top = np.maximum.reduceat(values, starts)
        seg = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, order.size]))
        sums = np.add.reduceat(np.exp((values - top[seg]) / temperature), starts)
        out[has_facts] = top + temperature * np.log(sums)
    return out


def shared_turn_mean(snapshot: ScopeSnapshot, values: Floats) -> Floats:
    """Spread scores over the turns windows share: a turn scores the best window holding it, a
    window the mean of its turns. Windows overlap by a turn, so a window gains when a neighbour
    scores higher (the answer often continues past the matched window) and never loses; a context
    without turns keeps its value. Parameter-free."""
    ctx_rows, turn_rows, n_turns = snapshot.turn_segments
    if ctx_rows.size == 0:
        return values
    turn_best = np.full(n_turns, -np.inf)
    np.maximum.at(turn_best, turn_rows, values[ctx_rows])
    n = len(snapshot.contexts)
    counts = np.bincount(ctx_rows, minlength=n)
    sums = np.bincount(ctx_rows, weights=turn_best[turn_rows], minlength=n)
    return np.where(counts > 0, sums / np.maximum(counts, 1), values)


def normalise(values: Floats, reference_rank: int = 50) -> Floats:
    """Map scores to [0, 1]: the best is 1, the ``reference_rank``-th best (and anything lower) 0.

    Anchoring at a deep rank rather than the minimum keeps one signal's long tail from flattening
    its head; ``-inf`` (no evidence) maps to 0.
    """
    n = values.shape[0]
    if n == 0:
        return values.astype(np.float64)
    finite = np.where(np.isfinite(values), values, -1e300)
    ref = min(reference_rank, n - 1)
    top = float(finite.max())
    floor = float(-np.partition(-finite, ref)[ref])
    if floor < -1e299:
        floor = float(finite[finite > -1e299].min()) if (finite > -1e299).any() else 0.0
    span = top - floor
    if span <= 0.0:
        return np.where(finite >= top, 1.0, 0.0) if top > -1e299 else np.zeros(n)
    return np.clip((finite - floor) / span, 0.0, 1.0)


def other_language_weight(snapshot: ScopeSnapshot, other_language: float) -> float:
    """How much a lexical signal gains in ``snapshot``: ``other_language`` (``RetrievalSettings.other_language_lexical``
    for BM25, ``other_language_subwords`` for the word pieces) times the share of its contexts written in another
    language than English (``ScopeSnapshot.other_language_share``), where the bundled embedder (it learned English)
    says less; 0.0 in an English scope."""
    return other_language * snapshot.other_language_share


def anchor_order(
    snapshot: ScopeSnapshot, query: str, fact_scores: npt.NDArray[np.floating], other_language: float
) -> npt.NDArray[np.floating]:
    """What a context's anchors are picked by: the facts' cosines, plus, in a scope written in another language
    than English, their BM25 for the query (scaled to the best one's 1.0) times :func:`other_language_weight`:
    the anchors the English embedder ranks first in an Italian reply are often not the sentences the question's
    words are in, and the anchors pick the sentences a long message is shown by (``render.excerpt``)."""
    weight = other_language_weight(snapshot, other_language) if snapshot.facts else 0.0
    if weight <= 0.0:
        return fact_scores
    lexical = snapshot.fact_bm25.scores(query)
    top = float(lexical.max()) if lexical.size else 0.0
    return fact_scores + weight * (lexical / top) if top > 0.0 else fact_scores


def expansion_terms(snapshot: ScopeSnapshot, query: str, fact_rows: list[int], limit: int) -> list[int]:
    """Query expansion from anchors: the lexical-index terms most common among the best facts that
    the query does not already contain (facts paraphrase the conversation in its own words)."""
    index = snapshot.context_bm25
    asked = set(index.query_terms(query))
    counts: Counter[str] = Counter()
    for f in fact_rows:
        counts.update(t for t in set(document_terms(snapshot.facts[f].text)[1]) if index.knows(t))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [t for t in (index.vocab[t] for t, _ in ranked) if t not in asked][:limit]


def event_votes(
    snapshot: ScopeSnapshot, events: list[tuple[int, float]], fact_scores: npt.NDArray[np.floating]
) -> Floats:
    """Per context: the best min(event cosine, source fact cosine) over the top events."""
    votes = np.full(len(snapshot.contexts), -np.inf)
    fact_context = snapshot.fact_context
    for e, score in events:
        for f in snapshot.event_facts[e]:
            row = int(fact_context[f])
            if row >= 0:
                votes[row] = max(votes[row], min(score, float(fact_scores[f])))
    return votes


def exchange_lift(snapshot: ScopeSnapshot, values: Floats, rows: list[int]) -> tuple[Floats, dict[int, int]]:
    """The message a long message answers scores at least as well as the long message's best passage.

    A long message (an assistant's answer, a pasted text) is cut into passages, each in a window of its own
    (:mod:`anchormem.ingest.chunk`), which parts it from the message it answers; in the paper's 3-turn windows
    a message and its reply share a context. A reply's words say what the exchange was about: an answer's
    "Hybrid tips" or "Biscuit's stocking" tell that the message before it spoke of a hybrid car or a dog, in
    words the message may not use. So for each passage among ``rows``, the window holding the message before
    its message (same session and scope) takes the passage's value when that is higher, as a turn takes its
    best window's value in :func:`shared_turn_mean`. Windows that share turns (the paper's) hold no passages,
    and nothing moves. Returns the values and, per lifted row, the passage row it took its value from.
    """
    contexts = snapshot.contexts
    out = values.copy()
    lifted: dict[int, int] = {}
    for row in sorted(rows, key=lambda r: -float(values[r])):
        context = contexts[row]
        if not context.offsets:
            continue
        message, prev = context.turn_ids[0], row - 1
        while prev >= 0 and _same_session(snapshot, prev, row) and message in contexts[prev].turn_ids:
            prev -= 1
        if prev >= 0 and _same_session(snapshot, prev, row) and values[row] > out[prev]:
            out[prev] = values[row]
            lifted[prev] = row
    return out, lifted


def _asks(text: str) -> bool:
    """Whether a window's last turn ends with a question (rendered ``Name said, "...?"``)."""
    return text.rstrip().endswith(('?"', "?”"))


def _same_session(snapshot: ScopeSnapshot, a: int, b: int) -> bool:
    contexts = snapshot.contexts
    return contexts[a].session == contexts[b].session and snapshot.scope_of(a) == snapshot.scope_of(b)


def reply_side(
    snapshot: ScopeSnapshot, values: Floats, rows: list[int], fact_scores: npt.NDArray[np.floating]
) -> Floats:
    """Of two overlapping windows whose best anchor lies in the turn they share, a turn that ends with a question,
    the one in which the reply follows ranks first: it takes the higher of the two values, the other the lower.

    In the paper's 3-turn windows a turn is the last of one window and the first of the next. A question's answer
    is the next turn ("A museum job, that's perfect for you. What do you do there?" / "I restore the old wooden boat
    models"), while the turns before it answer something else; the anchor itself is in both windows. Only
    whole-message windows that share a turn move (passages of long messages share none: :func:`exchange_lift`).
    Returns new values."""
    contexts, groups, facts = snapshot.contexts, snapshot.context_facts, snapshot.facts
    out = values.copy()
    moved: set[int] = set()
    for row in sorted(rows, key=lambda r: -float(values[r])):
        after = row + 1
        if row in moved or after >= len(contexts) or after in moved or out[after] >= out[row]:
            continue
        window, following = contexts[row], contexts[after]
        if window.offsets or following.offsets or not groups[row] or not _same_session(snapshot, row, after):
            continue
        if len(window.turn_ids) < 2 or following.turn_ids[0] != window.turn_ids[-1] or not _asks(window.text):
            continue
        best = max(groups[row], key=lambda f: (float(fact_scores[f]), -f))
        if all(facts[f].text != facts[best].text for f in groups[after]):
            continue  # the best anchor is not in the shared turn
        out[row], out[after] = out[after], out[row]
        moved.update((row, after))
    return out


def exchanges(
    snapshot: ScopeSnapshot,
    values: Floats,
    pool: Callable[[Floats], list[int]],
    fact_scores: npt.NDArray[np.floating],
) -> tuple[Floats, dict[int, int]]:
    """What an exchange of messages tells of relevance: :func:`exchange_lift`, then :func:`reply_side`, each on
    the rows ``pool`` picks from the values it is given. Returns the values and :func:`exchange_lift`'s map."""
    values, replies = exchange_lift(snapshot, values, pool(values))
    return reply_side(snapshot, values, pool(values), fact_scores), replies
