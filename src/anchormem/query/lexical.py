"""BM25 (Okapi) over short documents: our own small implementation.

The index is built once: the document side is fully precomputed into postings (per term: the
documents holding it and their BM25 weights), so scoring a query is one ``bincount`` over the
postings of its few terms.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anchormem._util.words import FUNCTION_WORDS, stem

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

# A small English stop list: function words only (names, dates and numbers stay searchable), and the
# pieces a tokenizer leaves of contractions ("don't" -> "don", "t").
STOPWORDS = FUNCTION_WORDS | frozenset(["s", "t", "don", "ll", "re", "ve", "d", "m"])
_stem = stem


def tokenize(text: str) -> list[str]:
    """Lowercase word tokens without stop words, Snowball-stemmed; possessive "'s" dropped."""
    out: list[str] = []
    for match in _WORD.finditer(text.lower().replace("\u2019", "'")):
        word = match.group(0)
        if word.endswith("'s"):
            word = word[:-2]
        word = word.replace("'", "")
        if word and word not in STOPWORDS:
            out.append(_stem(word))
    return out


class BM25Index:
    """Okapi BM25 (k1, b) over a fixed list of documents."""

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.n_docs = len(documents)
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        tfs: list[float] = []
        lengths = np.zeros(self.n_docs, dtype=np.float64)
        for doc, text in enumerate(documents):
            counts = Counter(tokenize(text))
            lengths[doc] = sum(counts.values())
            for term, tf in counts.items():
                rows.append(vocab.setdefault(term, len(vocab)))
                cols.append(doc)
                tfs.append(float(tf))
        self.vocab = vocab
        avg = float(lengths.mean()) if self.n_docs and lengths.mean() > 0 else 1.0
        row_arr = np.asarray(rows, dtype=np.int64)
        col_arr = np.asarray(cols, dtype=np.int64)
        tf_arr = np.asarray(tfs, dtype=np.float64)
        df = np.bincount(row_arr, minlength=len(vocab)).astype(np.float64)
        idf = np.log(1.0 + (self.n_docs - df + 0.5) / (df + 0.5))
        norm = k1 * (1.0 - b + b * lengths[col_arr] / avg)
        weights = idf[row_arr] * tf_arr * (k1 + 1.0) / (tf_arr + norm)
        order = np.argsort(row_arr, kind="stable")
        self._post_docs = col_arr[order]
        self._post_weights = weights[order]
        self._term_start = np.concatenate(([0], np.cumsum(df))).astype(np.int64)
        self.idf = idf

    def subset(self, docs: Sequence[int]) -> BM25Index:
        """The index of ``docs`` only (renumbered 0.. in the given order), with this index's weights: a
        kept document scores exactly as it does here (idf and length norm of the whole corpus). Costs a
        pass over the postings, not a re-tokenisation."""
        rows = np.asarray(docs, dtype=np.int64)
        renumber = np.full(self.n_docs, -1, dtype=np.int64)
        renumber[rows] = np.arange(rows.size, dtype=np.int64)
        terms = np.repeat(np.arange(len(self.vocab), dtype=np.int64), np.diff(self._term_start))
        keep = renumber[self._post_docs] >= 0
        out = object.__new__(BM25Index)
        out.n_docs = int(rows.size)
        out.vocab = self.vocab
        out.idf = self.idf
        out._post_docs = renumber[self._post_docs[keep]]
        out._post_weights = self._post_weights[keep]
        counts = np.bincount(terms[keep], minlength=len(self.vocab))
        out._term_start = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return out

    def query_terms(self, query: str) -> list[int]:
        """Ids of the query's distinct known terms."""
        seen: dict[int, None] = {}
        for term in tokenize(query):
            idx = self.vocab.get(term)
            if idx is not None:
                seen.setdefault(idx, None)
        return list(seen)

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """BM25 score of every document (0.0 where no query term occurs)."""
        return self.scores_for_terms(self.query_terms(query))

    def scores_for_terms(self, terms: Sequence[int]) -> npt.NDArray[np.float64]:
        """BM25 score of every document for a query given as distinct term ids."""
        if not terms or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype=np.float64)
        starts = self._term_start
        if len(terms) == 1:
            sl = slice(int(starts[terms[0]]), int(starts[terms[0] + 1]))
            docs, weights = self._post_docs[sl], self._post_weights[sl]
        else:
            idx = np.concatenate([np.arange(starts[t], starts[t + 1]) for t in terms])
            docs, weights = self._post_docs[idx], self._post_weights[idx]
        return np.bincount(docs, weights=weights, minlength=self.n_docs).astype(np.float64)

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
