"""Answer metrics: SQuAD-style F1 and NLTK-compatible BLEU-1 (hand-computed expectations)."""

from __future__ import annotations

import math

import pytest

from anchormem.eval.metrics import bleu1, bleu1_tokens, f1_score, normalize_answer, word_tokenize


def test_normalize_answer_drops_case_punctuation_and_articles() -> None:
    assert normalize_answer("The Cat, a dog & AN apple!") == "cat dog apple"
    assert normalize_answer("  theory  ") == "theory"  # only whole-word articles go


def test_f1_ignores_articles_and_punctuation() -> None:
    # pred tokens [cat, sat], gold [cat]: P = 1/2, R = 1 -> F1 = 2/3
    assert f1_score("The cat sat.", "a cat") == pytest.approx(2 / 3)
    assert f1_score("7 May, 2023", "7 may 2023") == 1.0


def test_f1_counts_duplicates_as_a_multiset() -> None:
    # pred [cat, cat, cat], gold [cat, dog]: shared 1 -> P = 1/3, R = 1/2 -> F1 = 0.4
    assert f1_score("cat cat cat", "cat dog") == pytest.approx(0.4)


def test_f1_is_zero_without_shared_tokens_even_when_both_are_empty() -> None:
    assert f1_score("dog", "cat") == 0.0
    assert f1_score("", "cat") == 0.0
    assert f1_score("the", "a") == 0.0  # both normalise to nothing: 0.0, as the authors score it


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("she went home. then she slept.", ["she", "went", "home", ".", "then", "she", "slept", "."]),
        ("in may 2022. she moved.", ["in", "may", "2022.", "she", "moved", "."]),
        ("dr. smith isn't here!", ["dr.", "smith", "is", "n't", "here", "!"]),
        ('"the wind" by pat', ["``", "the", "wind", "''", "by", "pat"]),
        ("j.k. rowling, c. s. lewis.", ["j.k.", "rowling", ",", "c.", "s.", "lewis", "."]),
        ("gonna say cannot", ["gon", "na", "say", "can", "not"]),
        ("it's 5 p.m. now.", ["it", "'s", "5", "p.m.", "now", "."]),
        ("wait... what? (yes.) ok.", ["wait", "...", "what", "?", "(", "yes", ".", ")", "ok", "."]),
        ("costs $3.88, or 3,000 yen; fine", ["costs", "$", "3.88", ",", "or", "3,000", "yen", ";", "fine"]),
        ('she said "stop." then left.', ["she", "said", "``", "stop", ".", "''", "then", "left", "."]),
        ("", []),
    ],
)
def test_word_tokenize_matches_nltk(text: str, tokens: list[str]) -> None:
    # Expected lists are NLTK 3.9's word_tokenize output for these (lowercased) texts.
    assert word_tokenize(text) == tokens


def test_bleu1_brevity_penalty_for_a_short_hypothesis() -> None:
    # 3 of 3 unigrams match, hyp 3 < ref 5: BP = exp(1 - 5/3)
    assert bleu1_tokens(["a", "b", "c"], ["a", "b", "c", "d", "e"]) == pytest.approx(math.exp(-2 / 3))
    assert bleu1_tokens(["a", "b"], ["a", "b"]) == 1.0


def test_bleu1_clips_unigram_counts_and_has_no_penalty_when_longer() -> None:
    # a: min(2, 1) + b: 1 = 2 of 4 hypothesis tokens; hyp longer than ref -> BP = 1
    assert bleu1_tokens(["a", "a", "b", "x"], ["a", "b"]) == pytest.approx(0.5)


def test_bleu1_is_zero_without_unigram_match_or_hypothesis() -> None:
    assert bleu1_tokens(["x", "y"], ["a", "b"]) == 0.0
    assert bleu1_tokens([], ["a"]) == 0.0


def test_bleu1_smoothing_leaves_missing_higher_order_ngrams_harmless() -> None:
    # No bigram matches: without smoothing NLTK would give ~0; method1 keeps BLEU-1 at 1/2.
    assert bleu1_tokens(["a", "x"], ["a", "y"]) == pytest.approx(0.5)


def test_bleu1_lowercases_and_tokenizes_text() -> None:
    # hyp [the, cat, sat, .], ref [the, cat]: 2/4, BP = 1
    assert bleu1("The Cat sat.", "the cat") == pytest.approx(0.5)
    # hyp [2022] vs ref [may, 2022]: 1/1 * exp(1 - 2/1)
    assert bleu1("2022", "May 2022") == pytest.approx(math.exp(-1))
