"""In a memory not written in English, BM25 over four-letter pieces of the words joins what the stemmer leaves
apart (a compound and its head), and it is built and weighed only there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import ConfigError
from anchormem.memory import Memory
from anchormem.model import SearchResult
from anchormem.text.lexical import BM25Index
from anchormem.text.subwords import SubwordIndex, pieces, query_pieces

GERMAN = [
    "user: Letzten Sonntag hab ich fünf Brutableger gebildet, zusammen mit den Überlebenden bin ich jetzt bei neun "
    "Völkern. Der Umzug mit dem Bienenbus hat gut geklappt.",
    "user: Der Heizungsbauer war da, wir tendieren zu einer Pelletheizung, weil im Keller Platz ist.",
    "user: Die Vereinsordnung regelt den Jahresbeitrag und die Umlage je gemeldetem Volk.",
]


def test_a_word_gives_its_pieces_with_its_ends_marked() -> None:
    assert pieces("völker") == [" völ", "völk", "ölke", "lker", "ker "]
    assert pieces("zu") == [" zu "]
    asked = query_pieces("Wie hat der Nutzer Bienenvölker?")
    assert asked[:3] == [" nut", "nutz", "utze"] and " bie" in asked
    assert " wie" not in asked and " der" not in asked and " hat" not in asked, "function words and short ones: none"


def test_a_compound_in_the_question_matches_its_head_where_stemmed_bm25_does_not() -> None:
    question = "Wie viele Bienenvölker hat der Nutzer derzeit?"
    assert BM25Index(GERMAN).scores(question)[0] == 0.0
    scores = SubwordIndex(GERMAN).scores(question)
    assert scores[0] > 0.0 and scores[0] == scores.max()


def test_a_changed_or_sliced_index_stays_one_of_pieces_and_scores_as_one_built_anew() -> None:
    added = ["user: Seit November wohne ich in der Hufnerstraße, der Balkon ist voller Kisten."]
    changed = SubwordIndex(GERMAN).changed([1], GERMAN[1:2], added)
    built = SubwordIndex([GERMAN[0], GERMAN[2], *added])
    assert isinstance(changed, SubwordIndex) and isinstance(changed.subset([0, 2]), SubwordIndex)
    for query in ("Bienenvölker", "Wohnung in der Hufnerstraße", "Vereinsbeitrag"):
        assert np.allclose(changed.scores(query), built.scores(query))
    assert np.allclose(changed.subset([2]).scores("Hufnerstraße"), changed.scores("Hufnerstraße")[[2]])


def test_the_subword_weight_is_checked() -> None:
    assert Settings.load(env={}).retrieval.other_language_subwords == 1.0
    with pytest.raises(ConfigError, match="other_language_subwords"):
        Settings.load(env={}, retrieval__other_language_subwords=11.0)


def _signals(result: SearchResult) -> dict[str, float]:
    assert result.trace is not None
    return {s.name: s.weight for s in result.trace.contexts[0].signals}


def _german(memory: Memory) -> None:
    messages = [
        {"role": "user", "content": text.removeprefix("user: "), "created_at": f"2025-0{1 + i}-10T10:00:00"}
        for i, text in enumerate(GERMAN)
    ]
    memory.add(messages, user_id="florian")


@pytest.mark.parametrize("setting", [1.0, 0.0])
def test_only_a_memory_not_written_in_english_weighs_the_pieces(tmp_path: Path, setting: float) -> None:
    settings = Settings.load(
        env={}, store=str(tmp_path / "mem.db"), embed__backend="hash", retrieval__other_language_subwords=setting
    )
    with Memory(settings, embedder=HashEmbedder()) as memory:
        _german(memory)
        memory.add([{"role": "user", "content": "We moved to the flat on Calder Road in March."}], user_id="hannah")
        german = memory.search("Wie viele Bienenvölker hat der Nutzer derzeit?", user_id="florian", trace=True)
        english = memory.search("How many bee colonies does the user have?", user_id="hannah", trace=True)
    if setting:
        assert _signals(german)["subwords"] == pytest.approx(1.0)
        assert "neun Völkern" in german.contexts[0].context.text
    else:
        assert "subwords" not in _signals(german)
    assert "subwords" not in _signals(english), "an English memory as before"
