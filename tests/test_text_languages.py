"""A text is read in the language its function words show, and the lexical index stems each document by the rules
of its own language: a question in the chat's language matches the words it inflects otherwise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anchormem._util.languages import ENGLISH, detect, known, language
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import ConfigError
from anchormem.memory import Memory
from anchormem.model import SearchResult
from anchormem.text.lexical import BM25Index, document_terms, tokenize


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Ieri ho preso una Brompton usata, nera, del 2021: per andare in studio è perfetta.", "it"),
        ("Por fin nos dieron las llaves de la casita, con patio para Trufa, y pagamos 920 al mes.", "es"),
        ("A gente finalmente mudou para o apartamento novo e o aluguel ficou em 2.300 por mês.", "pt"),
        ("Nous avons enfin signé le bail pour la boulangerie et je commence les travaux en mars.", "fr"),
        ("Wir haben die neue Wohnung in der Wiehre bekommen und ich fange im März mit der Arbeit an.", "de"),
        ("We hebben eindelijk de sleutel van het huis in Utrecht en ik begin in maart met de studie.", "nl"),
        ("We finally got the keys to the flat in Hove and I start the new job in March.", "en"),
        ("Ok perfetto", "en"),  # too short to show a language: the English rules it always had
        ("Brompton M6L 2021", "en"),
        ("", "en"),
    ],
)
def test_a_text_is_read_in_the_language_its_function_words_show(text: str, code: str) -> None:
    assert detect(text) == code


def test_the_rules_of_each_language_cut_elisions_and_stem_by_its_own_stemmer() -> None:
    assert tokenize("dell'appartamento", "it") == tokenize("appartamento", "it") == ["appart"]
    assert tokenize("l'utilisatrice habite à Nantes", "fr") == ["utilis", "habit", "nant"]
    assert tokenize("consigliato", "it") == tokenize("consiglio", "it")
    assert tokenize("la bicicletta di Marco", "it") == ["biciclett", "marc"], "the function words stopped"
    assert tokenize("Caroline's paintings") == ["carolin", "paint"], "English as before"
    assert known()[0] == ENGLISH and set(known()) == {"en", "es", "pt", "it", "fr", "de", "nl"}
    with pytest.raises(ValueError, match="no rules for language 'xx'"):
        language("xx")
    assert document_terms("Vivo con Javi en un piso de alquiler en la calle Feria.")[0] == "es"


def test_a_question_matches_an_italian_document_in_other_inflections() -> None:
    docs = [
        "assistant: Sotto le piastrelle ti consiglio una guaina liquida, in due mani incrociate.",
        "user: Ho preso una Brompton usata per andare in studio, la bicicletta pieghevole è perfetta.",
        "user: We moved to the flat on Calder Road in March and the boiler is broken.",
    ]
    index = BM25Index(docs)
    assert index.languages == ("en", "it")
    scores = index.scores("Quale guaina mi hai consigliato per le piastrelle?")
    assert int(np.argmax(scores)) == 0
    assert index.scores("biciclette")[1] > 0.0, "the plural matches the singular once both are stemmed in Italian"
    assert index.scores("boilers")[2] > 0.0, "the English document is read as English"
    assert index.share("it") == pytest.approx(2 / 3) and index.share(ENGLISH) == pytest.approx(1 / 3)
    assert BM25Index([]).share(ENGLISH) == 1.0 and BM25Index([]).languages == ("en",)


def test_a_short_sentence_read_as_english_still_matches_the_question_read_as_english() -> None:
    index = BM25Index(["user: Brompton usata, nera.", "user: Ho preso una Brompton usata per andare in studio."])
    assert detect("user: Brompton usata, nera.") == ENGLISH
    scores = index.scores("Quale Brompton usata?")
    assert scores[0] > 0.0 and scores[1] > 0.0


def test_a_changed_index_scores_as_one_built_from_its_documents_in_any_language() -> None:
    first = ["user: Ho preso una Brompton usata per andare in studio.", "user: I moved to Hove in March."]
    added = [
        "user: Nous avons signé le bail de la boulangerie en mars.",
        "user: Il contratto della casa scade a giugno.",
    ]
    changed = BM25Index(first).changed([0], first[:1], added)
    built = BM25Index(first[1:] + added)
    assert changed.languages == built.languages == ("en", "fr", "it")
    for query in ("bail de la boulangerie", "contratto di giugno", "Brompton", "moved to Hove"):
        assert np.allclose(changed.scores(query), built.scores(query))


def test_the_other_language_weight_is_checked() -> None:
    assert Settings.load(env={}).retrieval.other_language_lexical == 1.0
    assert Settings.load(env={}, retrieval__other_language_lexical=0.0).retrieval.other_language_lexical == 0.0
    with pytest.raises(ConfigError, match="other_language_lexical"):
        Settings.load(env={}, retrieval__other_language_lexical=-1.0)


# -- through the product ------------------------------------------------------------------------------------

ITALIAN = [
    ("user", "Ciao! Sto ristrutturando il bagno della casa in via Pacini e voglio una doccia a filo pavimento."),
    (
        "assistant",
        "Per la doccia a filo pavimento ti consiglio una guaina liquida sotto le piastrelle, in due mani. "
        "Controlla anche la pendenza verso la canalina prima di posare. "
        "Per il resto del cantiere conviene fissare le fasi con l'impresa e tenere un margine sui tempi.",
    ),
    ("user", "Ho preso una Brompton usata per andare in studio: la bicicletta pieghevole è perfetta per il tram."),
    ("assistant", "Ottima scelta: con la pieghevole puoi salire sul tram anche nelle ore di punta."),
]


def _italian(memory: Memory, user: str) -> None:
    messages = [
        {"role": role, "content": text, "created_at": f"2025-0{1 + i // 2}-10T10:00:00", "id": f"D{1 + i // 2}:{i % 2}"}
        for i, (role, text) in enumerate(ITALIAN)
    ]
    memory.add(messages, user_id=user)


def _lexical_weight(result: SearchResult) -> float:
    assert result.trace is not None
    return next(s.weight for s in result.trace.contexts[0].signals if s.name == "lexical")


@pytest.mark.parametrize(("setting", "weight"), [(1.0, 2.0), (0.0, 1.0)])
def test_in_a_memory_written_in_another_language_the_lexical_signal_weighs_more(
    tmp_path: Path, setting: float, weight: float
) -> None:
    settings = Settings.load(
        env={}, store=str(tmp_path / "mem.db"), embed__backend="hash", retrieval__other_language_lexical=setting
    )
    with Memory(settings, embedder=HashEmbedder()) as memory:
        _italian(memory, "marco")
        memory.add([{"role": "user", "content": "We moved to the flat on Calder Road in March."}], user_id="hannah")
        italian = memory.search("Quale guaina ha consigliato l'assistente?", user_id="marco", trace=True)
        english = memory.search("Where does the user live?", user_id="hannah", trace=True)
    assert _lexical_weight(italian) == pytest.approx(weight)
    assert _lexical_weight(english) == pytest.approx(1.0), "an English memory as before"
