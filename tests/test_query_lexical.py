"""BM25 basics: our own index over small documents."""

from __future__ import annotations

import numpy as np

from anchormem.text.lexical import BM25Index, idf_weight, tokenize, top_positive


def test_tokenize_stems_lowercases_and_drops_stop_words() -> None:
    assert tokenize("Caroline's paintings were at the Art Shows!") == ["carolin", "paint", "art", "show"]
    assert tokenize("") == []
    assert tokenize("what did you do?") == []


def test_matching_document_scores_higher_and_non_matching_scores_zero() -> None:
    index = BM25Index(["Ana adopted a dog", "Ben plays the cello", "the dog loves the beach"])
    scores = index.scores("cello lessons")
    assert scores[1] > 0.0
    assert scores[0] == 0.0 and scores[2] == 0.0


def test_rare_terms_weigh_more_than_common_ones() -> None:
    docs = ["dog park", "dog beach", "dog cello", "dog house"]
    index = BM25Index(docs)
    df_dog, df_cello = 4, 1
    assert idf_weight(4, df_cello) > idf_weight(4, df_dog)
    scores = index.scores("dog cello")
    assert int(np.argmax(scores)) == 2


def test_term_frequency_saturates_and_length_normalises() -> None:
    index = BM25Index(["cello", "cello cello cello cello", "cello and many other words about music today"])
    s = index.scores("cello")
    assert s[1] > s[0] > s[2]
    assert s[1] < 4 * s[0]  # saturation: four times the term is far from four times the score


def test_top_orders_by_score_then_lower_index_and_skips_zero() -> None:
    index = BM25Index(["red apple", "green pear", "red apple", "blue sky"])
    top = index.top("red apple", 10)
    assert [i for i, _ in top] == [0, 2]
    assert top_positive(np.array([0.0, 2.0, 2.0, 1.0]), 2) == [(1, 2.0), (2, 2.0)]
    assert top_positive(np.array([1.0]), 0) == []


def test_unknown_terms_and_empty_index() -> None:
    assert BM25Index(["a b c"]).scores("zebra").tolist() == [0.0]
    empty = BM25Index([])
    assert empty.scores("anything").shape == (0,)
    assert empty.top("anything", 3) == []


def test_repeated_query_terms_count_once() -> None:
    index = BM25Index(["cello music", "music"])
    assert np.allclose(index.scores("cello cello music"), index.scores("cello music"))


def test_words_of_every_alphabet_are_whole_terms() -> None:
    assert tokenize("Die Übergabe ist am Montag") == tokenize("die übergabe ist am montag")
    assert "übergab" in tokenize("Die Übergabe ist am Montag"), "not 'bergab', the word cut at its umlaut"
    index = BM25Index(["A mudança foi no sábado", "O coworking fica em Pompeia"])
    assert index.scores("mudança")[0] > 0.0 and index.scores("mudan")[0] == 0.0
