"""BM25 over the pieces of words: what matches a question's words where the embedder does not know the language.

The embedder (all-MiniLM-L6-v2) was trained on English; in a German, French or Dutch chat the anchors' cosines say
little, and the stemmed BM25 is left to match the question's words alone. Stemming joins "wohnt" and "wohne" but
not a compound and its head ("Bienenvölker" and "bei neun Völkern"), a noun and its verb ("Umzug", "umgezogen") or
the forms a stemmer cuts differently. Four-letter pieces of each word, taken with the word's ends marked
(" völ", "völk", "ölke", "lker", "ker "), match whatever two words share a stretch of: the head of a compound, the
root of a derived word. :class:`SubwordIndex` is a :class:`~anchormem.text.lexical.BM25Index` over those pieces; a
query gives the pieces of its content words (at least ``MIN_LETTERS`` letters, no function word of a language
read here). The search weighs it by the share of a scope not written in English
(``RetrievalSettings.other_language_subwords``); in English it lowered the answer-terms proxy, the embedder
already joining such words there.
"""

from __future__ import annotations

import re
from functools import cache

from anchormem._util.languages import known, language
from anchormem._util.words import FUNCTION_WORDS
from anchormem.text.lexical import BM25Index

SIZE = 4  # letters in a piece, the word's ends marked by a space
MIN_LETTERS = 4  # a query word shorter than this gives no pieces
_WORD = re.compile(r"[^\W\d_]+|\d+")
_READ_AS = "pieces"  # the index holds no language; its documents count under this name


@cache
def _function_words() -> frozenset[str]:
    return FUNCTION_WORDS | frozenset(w for code in known() for w in language(code).function_words)


def pieces(word: str) -> list[str]:
    """The ``SIZE``-letter pieces of one lowercase word, its ends marked (a short word is one piece)."""
    marked = f" {word} "
    if len(marked) <= SIZE:
        return [marked]
    return [marked[i : i + SIZE] for i in range(len(marked) - SIZE + 1)]


def text_pieces(text: str) -> list[str]:
    """The pieces of every word of ``text``, in order."""
    return [p for word in _WORD.findall(text.casefold()) for p in pieces(word)]


def query_pieces(query: str) -> list[str]:
    """The distinct pieces of the query's content words, in order."""
    stop = _function_words()
    out: dict[str, None] = {}
    for word in _WORD.findall(query.casefold()):
        if len(word) >= MIN_LETTERS and word not in stop:
            out.update(dict.fromkeys(pieces(word)))
    return list(out)


class SubwordIndex(BM25Index):
    """BM25 over the pieces of the documents' words (see the module docstring)."""

    def _analyze(self, text: str) -> tuple[str, list[str]]:
        return _READ_AS, text_pieces(text)

    def query_terms(self, query: str) -> list[int]:
        """Ids of the query's pieces some document holds, in query order."""
        return [self.vocab[p] for p in query_pieces(query) if self.knows(p)]
