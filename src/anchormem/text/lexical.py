"""BM25 (Okapi) over short documents: our own small implementation.

The postings (per term: the documents holding it and how often) are built once per document; a query
weighs the postings of its few terms with the corpus statistics of the moment, so scoring is one
``bincount``, and documents can be added and removed without re-tokenising the others
(:meth:`BM25Index.changed`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Self

import numpy as np
import numpy.typing as npt

from anchormem._util.languages import ENGLISH, detect, known, language
from anchormem._util.words import FUNCTION_WORDS, stem

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")

# A small English stop list: function words only (names, dates and numbers stay searchable), and the
# pieces a tokenizer leaves of contractions ("don't" -> "don", "t").
STOPWORDS = FUNCTION_WORDS | frozenset(["s", "t", "don", "ll", "re", "ve", "d", "m"])
_stem = stem


@lru_cache(maxsize=1 << 17)
def _term(word: str) -> str:
    """The index term of one lowercase English word token ("" for a stop word)."""
    if word.endswith("'s"):
        word = word[:-2]
    word = word.replace("'", "")
    return _stem(word) if word and word not in STOPWORDS else ""


@lru_cache(maxsize=1 << 17)
def _term_in(code: str, word: str) -> str:
    """The index term of one lowercase word token of another language: an elided article or preposition cut
    ("l'utente" -> "utente"), its function words and English ones stopped, stemmed by its own rules."""
    rules = language(code)
    head, apostrophe, rest = word.partition("'")
    if apostrophe and head in rules.elided:
        word = rest
    word = word.replace("'", "")
    if not word or word in rules.function_words or word in STOPWORDS:
        return ""
    return rules.stem(word)


def tokenize(text: str, lang: str = ENGLISH) -> list[str]:
    """Lowercase word tokens without stop words, stemmed by the rules of ``lang`` (English: Snowball, possessive
    "'s" dropped)."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    terms = map(_term, words) if lang == ENGLISH else (_term_in(lang, w) for w in words)
    return [t for t in terms if t]


def document_terms(text: str) -> tuple[str, list[str]]:
    """The language a document is written in (:func:`anchormem._util.languages.detect`) and its terms."""
    lang = detect(text)
    return lang, tokenize(text, lang)


@dataclass(frozen=True)
class _Segment:
    """Postings of some documents, sorted by term: for term t (t < len(start) - 1), the documents
    ``seqs[start[t]:start[t + 1]]`` hold it ``tfs[...]`` times. Documents are named by their sequence
    number (in order of addition, never reused), not by row, so a segment stays valid while rows move."""

    start: IntArray
    seqs: IntArray
    tfs: FloatArray

    @property
    def n_terms(self) -> int:
        return len(self.start) - 1

    def term(self, t: int) -> slice:
        return slice(int(self.start[t]), int(self.start[t + 1])) if t < self.n_terms else slice(0, 0)

    @property
    def terms(self) -> IntArray:
        return np.repeat(np.arange(self.n_terms, dtype=np.int64), np.diff(self.start))


def _segment(terms: IntArray, seqs: IntArray, tfs: FloatArray, n_terms: int) -> _Segment:
    order = np.argsort(terms, kind="stable")
    counts = np.bincount(terms, minlength=n_terms)
    start = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return _Segment(start, seqs[order].astype(np.int64), tfs[order].astype(np.float64))


def _merged(segments: Sequence[_Segment], alive: IntArray, n_terms: int) -> _Segment:
    """One segment of the given ones' postings of documents still held (``alive[seq] >= 0``)."""
    terms = np.concatenate([s.terms for s in segments])
    seqs = np.concatenate([s.seqs for s in segments])
    tfs = np.concatenate([s.tfs for s in segments])
    keep = alive[seqs] >= 0
    return _segment(terms[keep], seqs[keep], tfs[keep], n_terms)


class BM25Index:
    """Okapi BM25 (k1, b) over a list of documents.

    Postings keep raw term counts; a query weighs the postings of its few terms with the corpus statistics
    of the moment (number of documents, document frequencies, mean length), so :meth:`changed` can remove
    and add documents without touching the other documents' postings, and a changed index scores exactly
    as one built from its documents. Postings live in a few segments merged as a binary counter.
    """

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.vocab: dict[str, int] = {}
        self._segments: tuple[_Segment, ...] = ()
        self._seq_len = np.zeros(0, dtype=np.float64)
        self._row_seq = np.zeros(0, dtype=np.int64)  # row -> seq
        self._df = np.zeros(0, dtype=np.float64)
        self._total = 0
        self._stats: tuple[int, int] | None = None  # (documents, total length) of a parent: see subset
        self._languages: dict[str, int] = {}  # documents held per language they are read in
        self._add(documents)
        self._seq_row = self._rows_of(self._row_seq)

    # -- building ---------------------------------------------------------------------------------------
    def _analyze(self, text: str) -> tuple[str, list[str]]:
        """A document's language and its terms (:func:`document_terms`; a subclass may read text otherwise)."""
        return document_terms(text)

    def _add(self, documents: Sequence[str]) -> None:
        first = len(self._seq_len)
        vocab = self.vocab
        ids: list[int] = []
        lengths = np.zeros(len(documents), dtype=np.int64)
        languages = self._languages
        for i, text in enumerate(documents):
            lang, tokens = self._analyze(text)
            languages[lang] = languages.get(lang, 0) + 1
            lengths[i] = len(tokens)
            ids.extend([vocab.setdefault(t, len(vocab)) for t in tokens])
        n_terms = len(vocab)
        # one posting per (document, term): counted over all documents at once
        keys = np.repeat(np.arange(len(documents), dtype=np.int64), lengths) * max(n_terms, 1) + np.asarray(
            ids, dtype=np.int64
        )
        pairs, tfs = np.unique(keys, return_counts=True)
        term_arr = pairs % max(n_terms, 1)
        df = np.zeros(n_terms, dtype=np.float64)
        df[: len(self._df)] = self._df
        df += np.bincount(term_arr, minlength=n_terms)
        self._df = df
        self._total += int(lengths.sum())
        self._seq_len = np.concatenate([self._seq_len, lengths.astype(np.float64)])
        self._row_seq = np.concatenate([self._row_seq, np.arange(first, first + len(documents), dtype=np.int64)])
        if pairs.size:
            seqs = first + pairs // max(n_terms, 1)
            fresh = _segment(term_arr, seqs, tfs.astype(np.float64), n_terms)
            self._segments = (*self._segments, fresh)

    def _rows_of(self, row_seq: IntArray) -> IntArray:
        out = np.full(len(self._seq_len), -1, dtype=np.int64)
        out[row_seq] = np.arange(len(row_seq), dtype=np.int64)
        return out

    def changed(self, removed: Sequence[int], removed_texts: Sequence[str], added: Sequence[str]) -> Self:
        """A new index: documents at rows ``removed`` (whose texts are ``removed_texts``) taken out, the others
        moved up in order, ``added`` appended. This index is left as it was (it shares the vocabulary, which
        only grows, and the postings, which are never changed)."""
        if self._stats is not None:
            raise ValueError("a subset of an index cannot change")
        out = object.__new__(type(self))
        out.k1, out.b, out.vocab = self.k1, self.b, self.vocab
        out._segments, out._stats = self._segments, None
        out._seq_len, out._total = self._seq_len, self._total
        out._df = self._df.copy()
        out._languages = dict(self._languages)
        for text in removed_texts:
            lang, tokens = self._analyze(text)
            out._languages[lang] -= 1
            counts = Counter(tokens)
            out._total -= sum(counts.values())
            for term in counts:
                out._df[self.vocab[term]] -= 1.0
        out._row_seq = np.delete(self._row_seq, np.asarray(removed, dtype=np.int64)) if len(removed) else self._row_seq
        out._add(added)
        out._seq_row = out._rows_of(out._row_seq)
        segments = list(out._segments)
        while len(segments) > 1 and 2 * len(segments[-1].seqs) >= len(segments[-2].seqs):
            last = segments.pop()
            segments[-1] = _merged([segments[-1], last], out._seq_row, len(out.vocab))
        out._segments = tuple(segments)
        return out

    def subset(self, docs: Sequence[int]) -> Self:
        """The index of ``docs`` only (renumbered 0.. in the given order), with this index's weights: a
        kept document scores exactly as it does here (idf and length norm of the whole corpus). Costs an
        array over the documents, not a re-tokenisation."""
        out = object.__new__(type(self))
        out.k1, out.b, out.vocab = self.k1, self.b, self.vocab
        out._segments, out._seq_len, out._df, out._total = self._segments, self._seq_len, self._df, self._total
        out._languages = self._languages
        out._stats = self._stats or (self.n_docs, self._total)
        out._row_seq = self._row_seq[np.asarray(docs, dtype=np.int64)]
        out._seq_row = out._rows_of(out._row_seq)
        return out

    # -- statistics ---------------------------------------------------------------------------------------
    @property
    def n_docs(self) -> int:
        return len(self._row_seq)

    @property
    def idf(self) -> FloatArray:
        """Per term id, its BM25 idf (terms no document holds any more: 0 documents)."""
        n = self._stats[0] if self._stats else self.n_docs
        df = self._df
        return np.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def knows(self, term: str) -> bool:
        """Whether a document of the corpus holds ``term`` (a stemmed token)."""
        t = self.vocab.get(term)
        return t is not None and t < len(self._df) and self._df[t] > 0

    # -- queries ------------------------------------------------------------------------------------------
    @property
    def languages(self) -> tuple[str, ...]:
        """The languages some document held is read in (:func:`document_terms`), English first."""
        held = self._languages
        return tuple(code for code in known() if held.get(code, 0) > 0) or (ENGLISH,)

    def share(self, lang: str) -> float:
        """The share of the documents held that are read in ``lang`` (1.0 of an empty index for English)."""
        total = sum(self._languages.values())
        if not total:
            return 1.0 if lang == ENGLISH else 0.0
        return self._languages.get(lang, 0) / total

    def query_terms(self, query: str) -> list[int]:
        """Ids of the query's distinct terms that some document holds, in query order: the query read by the
        rules of each language a document is read in, so a document matches the question's words as it
        stemmed its own (a short Italian sentence read as English still matches the question read as
        English)."""
        seen: dict[int, None] = {}
        for lang in self.languages:
            for term in tokenize(query, lang):
                if self.knows(term):
                    seen.setdefault(self.vocab[term], None)
        return list(seen)

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """BM25 score of every document (0.0 where no query term occurs)."""
        return self.scores_for_terms(self.query_terms(query))

    def scores_for_terms(self, terms: Sequence[int]) -> npt.NDArray[np.float64]:
        """BM25 score of every document for a query given as distinct term ids."""
        known = [t for t in terms if t < len(self._df) and self._df[t] > 0]
        if not known or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype=np.float64)
        n, total = self._stats or (self.n_docs, self._total)
        avg = total / n if n and total > 0 else 1.0
        idf = np.log(1.0 + (n - self._df[known] + 0.5) / (self._df[known] + 0.5))
        parts = [(i, s.seqs[s.term(t)], s.tfs[s.term(t)]) for i, t in enumerate(known) for s in self._segments]
        seqs = np.concatenate([p[1] for p in parts])
        tfs = np.concatenate([p[2] for p in parts])
        which = np.concatenate([np.full(len(p[1]), p[0], dtype=np.int64) for p in parts])
        rows = self._seq_row[seqs]
        held = rows >= 0
        rows, seqs, tfs, which = rows[held], seqs[held], tfs[held], which[held]
        k1, b = self.k1, self.b
        norm = k1 * (1.0 - b + b * self._seq_len[seqs] / avg)
        weights = idf[which] * tfs * (k1 + 1.0) / (tfs + norm)
        return np.bincount(rows, weights=weights, minlength=self.n_docs).astype(np.float64)

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best documents with a positive score, best first (ties: lower index first)."""
        return top_positive(self.scores(query), k)


def top_positive(scores: npt.NDArray[np.float64], k: int) -> list[tuple[int, float]]:
    """Indices of the ``k`` largest positive scores, best first, ties broken by lower index."""
    if k <= 0 or scores.size == 0:
        return []
    n = scores.size
    part = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    order = part[np.lexsort((part, -scores[part]))]
    return [(int(i), float(scores[i])) for i in order if scores[i] > 0.0]


def idf_weight(n_docs: int, df: int) -> float:
    """The BM25 idf used by :class:`BM25Index` (exposed for tests)."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
