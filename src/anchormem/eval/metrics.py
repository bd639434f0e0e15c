"""Answer metrics of the LoCoMo evaluation: token F1 and BLEU-1.

Both follow the scoring the AnchorMem authors (and Mem0 before them) used, so our numbers are
comparable with the paper's tables:

* **F1** — SQuAD-style: lowercase, drop ASCII punctuation, drop the articles a/an/the,
  split on whitespace, then the harmonic mean of precision and recall of the token multisets.
  As in the authors' code, a pair with no common token scores 0.0, *including* the case where
  both sides normalise to nothing (SQuAD v2 would give 1.0 there).
* **BLEU-1** — NLTK's ``sentence_bleu([ref], hyp, weights=(1, 0, 0, 0),
  smoothing_function=SmoothingFunction().method1)`` with tokens from NLTK's ``word_tokenize``
  of the lowercased texts, reproduced here without NLTK (so nothing is ever downloaded):
  clipped unigram precision times the brevity penalty; no unigram match scores 0.0. Smoothing
  method1 only touches the higher-order precisions, whose weights are 0, so it never changes
  BLEU-1.

``word_tokenize`` reproduces NLTK 3.9's: the Punkt sentence splitter with its pretrained English
parameters, then the improved Treebank word tokenizer on each sentence. We only ever tokenize
lowercased text, and for lowercased text Punkt's decisions need just a few pieces of its
English model (the abbreviation list, the collocations and four words that were never seen
capitalised); those are embedded below. Capitalisation-based rules have nothing to act on in
lowercased text and are reduced to their "no evidence" outcome.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

__all__ = ["bleu1", "bleu1_tokens", "f1_score", "normalize_answer", "word_tokenize"]


# --------------------------------------------------------------------------- F1

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Lowercase, remove ASCII punctuation and the articles a/an/the, collapse whitespace."""
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def f1_score(prediction: str, gold: str) -> float:
    """SQuAD-style token F1 of ``prediction`` against ``gold`` (0.0 when nothing is shared)."""
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    shared = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if shared == 0:
        return 0.0
    precision = shared / len(pred_tokens)
    recall = shared / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


# ----------------------------------------------------------------------- BLEU-1


def bleu1_tokens(hypothesis: list[str], reference: list[str]) -> float:
    """Sentence BLEU-1 of token lists, as NLTK computes it with one reference."""
    if not hypothesis:
        return 0.0
    ref_counts = Counter(reference)
    matches = sum(min(count, ref_counts[tok]) for tok, count in Counter(hypothesis).items())
    if matches == 0:
        return 0.0
    hyp_len, ref_len = len(hypothesis), len(reference)
    brevity = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    # exp(log(p)) rather than p: the same floating-point path as NLTK, bit for bit.
    return brevity * math.exp(math.log(matches / hyp_len))


def bleu1(prediction: str, gold: str) -> float:
    """BLEU-1 of ``prediction`` against ``gold``, both lowercased and word-tokenized."""
    return bleu1_tokens(word_tokenize(prediction.lower()), word_tokenize(gold.lower()))


def word_tokenize(text: str) -> list[str]:
    """NLTK-compatible ``word_tokenize`` for lowercased text (see the module docstring)."""
    return [tok for sentence in _split_sentences(text) for tok in _treebank_tokenize(sentence)]


# ------------------------------------------------- Punkt sentence splitting (English)

# From the English Punkt model shipped as NLTK's ``punkt_tab`` data (Kiss & Strunk).
# fmt: off
_ABBREVIATIONS = frozenset([
    "a.a", "a.c", "a.d", "a.g", "a.h", "a.m", "a.m.e", "a.s", "a.t", "adm", "ala", "ariz", "aug", "ave", "b.f",
    "b.v", "bros", "c", "c.i.t", "c.o.m.b", "c.v", "calif", "chg", "cie", "co", "col", "colo", "conn", "corp",
    "cos", "ct", "d", "d.c", "d.h", "d.w", "dec", "dr", "e", "e.f", "e.h", "e.l", "e.m", "f", "f.g", "f.j",
    "feb", "fla", "fri", "ft", "g", "g.d", "g.f", "g.k", "ga", "gen", "h", "h.c", "h.f", "h.m", "i.m.s", "ill",
    "inc", "j.b", "j.c", "j.j", "j.k", "j.p", "j.r", "jan", "jr", "k", "kan", "ky", "l", "l.a", "l.f", "l.p",
    "lt", "ltd", "m", "m.b.a", "m.d.c", "m.j", "maj", "messrs", "mg", "mich", "minn", "mr", "mrs", "ms", "n",
    "n.c", "n.d", "n.h", "n.j", "n.m", "n.v", "n.y", "nev", "nov", "oct", "ok", "okla", "ore", "p", "p.a.m",
    "p.m", "pa", "ph.d", "prof", "r", "r.a", "r.h", "r.i", "r.j", "r.k", "r.t", "rep", "reps", "s", "s.a",
    "s.a.y", "s.c", "s.g", "s.p.a", "s.s", "sen", "sep", "sept", "sr", "st", "sw", "t", "t.j", "tenn", "tues",
    "u.k", "u.n", "u.s", "u.s.a", "u.s.s.r", "v", "va", "vs", "vt", "w", "w.c", "w.r", "w.va", "w.w", "wash",
    "wed", "wis", "yr",
])
# fmt: on
_NUMBER = "##number##"
# fmt: off
_NUMBER_COLLOCATES = (
    "abreast", "aes", "business", "cbot", "colgate", "commodities", "cooper", "corrections", "credit",
    "dividend", "financing", "genentech", "henley", "insider", "international", "leisure", "letters", "notable",
    "pay-fone", "pegasus", "pepper", "review", "rj", "wedgestone", "who", "zimmer",
)
# fmt: on
_COLLOCATIONS = frozenset(
    [(_NUMBER, word) for word in _NUMBER_COLLOCATES]
    + [("b", w) for w in ("edelman", "levine", "smith", "stewart", "wigton")]
    + [("i", "magnin"), ("i", "toussie"), ("j", "aron"), ("j", "fialka"), ("j", "walter")]
    + [("o", "ludcke")]
)
# Words the model saw in lowercase at a sentence start and never capitalised: after a number
# or an initial they leave the sentence break standing. Every other lowercase word removes it.
_LOWERCASE_SENTENCE_STARTERS = frozenset({"administrators", "b-week", "r-revised", "z-holiday"})
_PUNCT_TOKENS = frozenset(";:,.!?")
_SENT_END = frozenset(".?!")

_NON_WORD = r"(?:[)\";}\]\*:@\'\({\[?!])"
_MULTI_CHAR = r"(?:\-{2,}|\.{2,}|(?:\.\s){2,}\.)"
_WORD_START = r"[^\(\"\`{\[:;&\#\*@\)}\]\-,]"
_PUNKT_WORD = re.compile(
    "("
    + _MULTI_CHAR
    + "|(?="
    + _WORD_START
    + r")\S+?(?=\s|$|"
    + _NON_WORD
    + "|"
    + _MULTI_CHAR
    + r"|,(?=$|\s|"
    + _NON_WORD
    + "|"
    + _MULTI_CHAR
    + r"))|\S)"
)
_PERIOD_CONTEXT = re.compile(r"[.?!](?=(?P<after_tok>" + _NON_WORD + r"|\s+(?P<next_tok>\S+)))")
_REALIGN = re.compile(r'["\')\]}]+?(?:\s+|(?=--)|$)', re.MULTILINE)
_NUMERIC = re.compile(r"^-?[\.,]?\d[\d,\.-]*\.?$")
_INITIAL = re.compile(r"[^\W\d]\.$")
_ELLIPSIS = re.compile(r"\.\.+$")


@dataclass
class _Token:
    """A Punkt word token with its sentence-break annotations."""

    text: str
    sentbreak: bool = False
    abbr: bool = False
    ellipsis: bool = False

    @property
    def type(self) -> str:
        return _NUMERIC.sub(_NUMBER, self.text.lower())

    @property
    def type_no_period(self) -> str:
        typ = self.type
        return typ[:-1] if len(typ) > 1 and typ.endswith(".") else typ

    @property
    def type_no_sentperiod(self) -> str:
        return self.type_no_period if self.sentbreak else self.type


def _punkt_words(text: str) -> list[_Token]:
    return [_Token(tok) for line in text.split("\n") for tok in _PUNKT_WORD.findall(line)]


def _first_pass(tok: _Token) -> None:
    """Mark sentence ends, ellipses and known abbreviations by the token alone."""
    text = tok.text
    if text in _SENT_END:
        tok.sentbreak = True
    elif _ELLIPSIS.match(text):
        tok.ellipsis = True
    elif text.endswith(".") and not text.endswith(".."):
        base = text[:-1].lower()
        if base in _ABBREVIATIONS or base.split("-")[-1] in _ABBREVIATIONS:
            tok.abbr = True
        else:
            tok.sentbreak = True


def _starts_sentence(tok: _Token) -> bool | None:
    """Punkt's orthographic evidence that ``tok`` starts a sentence (None: no evidence)."""
    if tok.text in _PUNCT_TOKENS:
        return False
    if tok.text[0].islower() and tok.type_no_sentperiod not in _LOWERCASE_SENTENCE_STARTERS:
        return False
    return None


def _second_pass(tok: _Token, nxt: _Token) -> None:
    """Revise the decision on a period-final token from the token that follows it."""
    if not tok.text.endswith("."):
        return
    typ = tok.type_no_period
    is_initial = _INITIAL.match(tok.text) is not None
    if (typ, nxt.type_no_sentperiod) in _COLLOCATIONS:
        tok.sentbreak, tok.abbr = False, True
        return
    # Abbreviations and ellipses only become breaks on capitalised evidence: none here.
    if is_initial or typ == _NUMBER:
        evidence = _starts_sentence(nxt)
        if evidence is False or (evidence is None and is_initial and nxt.text[0].isupper()):
            tok.sentbreak, tok.abbr = False, True


def _contains_break(context: str) -> bool:
    """True when some token of ``context`` ends a sentence and another token follows it."""
    tokens = _punkt_words(context)
    for tok in tokens:
        _first_pass(tok)
    for tok, nxt in pairwise(tokens):
        _second_pass(tok, nxt)
        if tok.sentbreak:
            return True
    return False


def _last_whitespace(text: str) -> int:
    for i in range(len(text) - 1, -1, -1):
        if text[i] in string.whitespace:
            return i
    return 0  # Punkt's convention: also 0 when the only whitespace is at index 0


def _end_contexts(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each candidate sentence end with the word before it and what follows it."""
    prev_start = prev_stop = 0
    prev_match: re.Match[str] | None = None
    for match in _PERIOD_CONTEXT.finditer(text):
        space = _last_whitespace(text[prev_stop : match.start()])
        start = space + prev_stop + 1 if space else prev_start
        if prev_match is not None and prev_stop <= start:
            yield prev_match, text[prev_start:prev_stop] + prev_match.group() + prev_match["after_tok"]
        prev_match, prev_start, prev_stop = match, start, match.start()
    if prev_match is not None:
        yield prev_match, text[prev_start:prev_stop] + prev_match.group() + prev_match["after_tok"]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    last = 0
    for match, context in _end_contexts(text):
        if _contains_break(context):
            spans.append((last, match.end()))
            last = match.start("next_tok") if match["next_tok"] else match.end()
    spans.append((last, len(text.rstrip())))
    return spans


def _split_sentences(text: str) -> list[str]:
    """Punkt's sentences, with closing quotes/brackets moved back onto the sentence they end."""
    spans = _sentence_spans(text)
    sentences = []
    shift = 0
    for i, (start, stop) in enumerate(spans):
        start += shift
        if i + 1 == len(spans):
            if text[start:stop]:
                sentences.append(text[start:stop])
            continue
        nxt_start = spans[i + 1][0]
        closing = _REALIGN.match(text[nxt_start : spans[i + 1][1]])
        if closing:
            sentences.append(text[start : nxt_start + len(closing.group(0).rstrip())])
            shift = closing.end()
        else:
            shift = 0
            if text[start:stop]:
                sentences.append(text[start:stop])
    return sentences


# --------------------------------------------- Treebank word tokenizer (NLTK 3.9 rules)

_Rule = tuple[re.Pattern[str], str]


def _rules(*rules: str | tuple[str, str]) -> tuple[_Rule, ...]:
    """Substitutions in order: a ``(pattern, replacement)`` pair, or a bare pattern whose match is set
    apart by a space on each side (most of the tokenizer's rules)."""
    pairs = (rule if isinstance(rule, tuple) else (rule, r" \g<0> ") for rule in rules)
    return tuple((re.compile(pattern), repl) for pattern, repl in pairs)


_OPENING_QUOTES = _rules(
    r"[«“‘„]|[`]+",
    (r"^\"", r"``"),
    r"``",
    (r"([ \(\[{<])(\"|\'{2})", r"\1 `` "),
    (r"(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b", r"\1 \2"),
)
_PUNCTUATION_RULES = _rules(
    (r"([^\.])(\.)([\]\)}>\"\'»”’ ]*)\s*$", r"\1 \2 \3 "),
    (r"([:,])([^\d])", r" \1 \2"),
    r"[:,]$",
    r"\.{2,}",
    r"[;@#$%&]",
    (r"([^\.])(\.)([\]\)}>\"\']*)\s*$", r"\1 \2\3 "),
    r"[?!]",
    (r"([^'])' ", r"\1 ' "),
    r"[*]",
    r"[\]\[\(\)\{\}\<\>]",
    r"--",
)
_CLOSING_QUOTES = _rules(
    r"[»”’]",
    r"''",
    (r'"', " '' "),
    (r"\s+", " "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "),
    (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
)
_CONTRACTIONS = _rules(
    *(
        (pattern, r" \1 \2 ")
        for pattern in (
            r"(?i)\b(can)(not)\b",
            r"(?i)\b(d)('ye)\b",
            r"(?i)\b(gim)(me)\b",
            r"(?i)\b(gon)(na)\b",
            r"(?i)\b(got)(ta)\b",
            r"(?i)\b(lem)(me)\b",
            r"(?i)\b(more)('n)\b",
            r"(?i)\b(wan)(na)(?=\s)",
            r"(?i) ('t)(is)\b",
            r"(?i) ('t)(was)\b",
        )
    )
)


def _treebank_tokenize(sentence: str) -> list[str]:
    text = sentence
    for pattern, repl in _OPENING_QUOTES + _PUNCTUATION_RULES:
        text = pattern.sub(repl, text)
    text = " " + text + " "
    for pattern, repl in _CLOSING_QUOTES + _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text.split()
