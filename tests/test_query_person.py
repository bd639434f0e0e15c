"""Questions as chatbot users ask them: "I" is the user, "you" the assistant, the user's own name is the
user, and the user's requests give way to their statements (hand-made chats, offline path)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.memory import Memory
from anchormem.model import Context, Fact, SearchResult
from anchormem.search.rerank.statements import is_request
from anchormem.search.retrieve import query_vectors, voice_of
from anchormem.text.person import (
    addresses_assistant,
    alias_named,
    first_person,
    question_speaker,
    user_names,
    user_speaker,
)
from anchormem.wire.scopes import make_scope

ROLES = {"user", "assistant"}
NAMED = {"Lena", "Assistant"}
FRIENDS = {"Caroline", "Melanie"}


@pytest.mark.parametrize(
    ("question", "roles", "named"),
    [
        ("Where do I live now?", "user", "Lena"),
        ("where do i work these days", "user", "Lena"),
        ("What's my sister's name?", "user", "Lena"),
        ("Can you remind me which bike I bought?", "user", "Lena"),  # a request's "you" asks, it is not about you
        ("Wo wohne ich jetzt?", "user", "Lena"),
        ("Was ist mein Beruf?", "user", "Lena"),
        ("¿Cuál es mi trabajo ahora?", "user", "Lena"),
        ("¿Qué coche tengo yo?", "user", "Lena"),
        ("What did you suggest for my knee?", "assistant", "Assistant"),
        ("Was hast du mir für das Knie empfohlen?", "assistant", "Assistant"),
        ("What did I ask you to plan?", "user", "Lena"),  # I asked: about the user
        ("Which plan did you write?", "assistant", "Assistant"),
        ("Where does the user live?", "user", "Lena"),  # names the role: the user's speaker, whatever its name
        ("Where does Lena live?", "user", "Lena"),  # an unknown name, no one else: the user's life is asked about
        ("When was the launch party?", "user", "Lena"),  # naming nobody: about the user's life
        ("What did the assistant suggest Lena do?", "assistant", "Assistant"),  # both named: the subject, first
        # pro-drop: the first person without a pronoun ("vivo", "tengo", "curro"), "you" in the verb alone
        ("¿dónde vivo ahora?", "user", "Lena"),
        ("¿qué bici tengo ahora?", "user", "Lena"),
        ("¿para qué empresa curro ahora?", "user", "Lena"),
        ("¿de dónde te dije que soy?", "user", "Lena"),  # "te dije": I told you
        ("¿qué me recomendaste?", "assistant", "Assistant"),
        ("¿cuántos gramos me dijiste que tomara?", "assistant", "Assistant"),
        ("¿qué me has recomendado para la rodilla?", "assistant", "Assistant"),
        ("Cosa mi hai consigliato?", "assistant", "Assistant"),
        ("che vino mi avevi detto di servire col bollito?", "assistant", "Assistant"),  # the pluperfect's "you"
        ("¿qué me habías dicho del alquiler?", "assistant", "Assistant"),
        ("o que me tinhas dito sobre a renda?", "assistant", "Assistant"),
        ("avevo già la macchina allora?", "user", "Lena"),  # "avevo": I had
        ("Dove abito adesso?", "user", "Lena"),
        ("Onde moro agora?", "user", "Lena"),
        ("¿Dónde vive ahora el usuario?", "user", "Lena"),
        ("¿Qué le recomendó el asistente al usuario?", "assistant", "Assistant"),
        ("Wo arbeite ich?", "user", "Lena"),
        ("Wo wohnt die Nutzerin?", "user", "Lena"),
        ("Was hat die Assistentin empfohlen?", "assistant", "Assistant"),
        # the assistant and the user named both, the assistant first: its advice is asked about
        ("Was hat der Assistent der Nutzerin zur Teilzeit geraten?", "assistant", "Assistant"),
        ("Wat heeft de assistent de gebruiker aangeraden?", "assistant", "Assistant"),
        ("Waar woont de gebruiker nu?", "user", "Lena"),
        ("waar werk ik nu?", "user", "Lena"),
        ("wat had jij me aangeraden voor de verbouwing?", "assistant", "Assistant"),
        ("onde eu trabalho agora?", "user", "Lena"),
        ("quanto tempo vc disse pra eu esperar?", "assistant", "Assistant"),
        ("wat zei je ook alweer over die test?", "assistant", "Assistant"),  # Dutch "je": you, not French "je"
        ("had ik toen al een auto?", "user", "Lena"),
        # a role's word after an elided article or preposition (Italian, French)
        ("Quale prodotto l'assistente ha raccomandato per la doccia?", "assistant", "Assistant"),
        ("Quale regola ha consigliato l'assistente all'utente?", "assistant", "Assistant"),
        ("Quel logiciel l'assistante a-t-elle conseillé à l'utilisatrice ?", "assistant", "Assistant"),
        ("Où habite l'utilisatrice maintenant ?", "user", "Lena"),
        ("Dov'è la bici dell'utente?", "user", "Lena"),
        # German declines the role words; European Portuguese's preterite "you" may end in "-este"
        ("Ab welcher Auslastung lohnt sich laut dem Assistenten eine zweite Maschine?", "assistant", "Assistant"),
        ("Wo arbeitet die Schwester des Nutzers?", "user", "Lena"),
        ("o que é que me disseste para dar de comer à Bolacha?", "assistant", "Assistant"),
        # the user named first, but the question cites the assistant's words ("laut", "according to", "volgens")
        ("Nach welchem Förderkredit sollte die Nutzerin laut Assistent fragen?", "assistant", "Assistant"),
        ("Welche Klausel sollte Lena laut dem Assistenten aufnehmen lassen?", "assistant", "Assistant"),
        ("How much should the user save each month, according to the assistant?", "assistant", "Assistant"),
        ("Hoe groot moest de buffer van de gebruiker volgens de assistent zijn?", "assistant", "Assistant"),
        ("Que doit vérifier l'utilisatrice selon l'assistante ?", "assistant", "Assistant"),
        ("Lena laut Assistent?", "assistant", "Assistant"),
        ("Was hat die Nutzerin dem Assistenten laut ihrer Mail erzählt?", "user", "Lena"),  # cites no one named
        ("qual é a casa deste bairro onde moro?", "user", "Lena"),  # "deste": of this, not "you gave"
    ],
)
def test_the_first_person_is_the_user_and_you_the_assistant(
    question: str, roles: str | None, named: str | None
) -> None:
    assert question_speaker(question, ROLES) == roles
    assert question_speaker(question, NAMED) == named


def test_two_people_talking_have_no_user_to_map_the_first_person_to() -> None:
    assert question_speaker("Where do I live?", FRIENDS) is None
    assert question_speaker("¿Dónde vivo ahora?", FRIENDS) is None
    assert question_speaker("Where does Caroline live?", FRIENDS) == "Caroline"
    assert question_speaker("When did Caroline meet Melanie?", FRIENDS) is None, "two people named: neither"
    assert user_speaker(FRIENDS) is None and user_speaker(ROLES) == "user" and user_speaker(NAMED) == "Lena"


def test_a_name_given_with_the_messages_is_the_user_by_its_full_or_first_name() -> None:
    speakers = {"Javier Ortega", "assistant"}  # role "user" sent with name "Javier Ortega"
    assert user_speaker(speakers) == "Javier Ortega"
    assert question_speaker("¿De dónde es Javier?", speakers) == "Javier Ortega"
    assert question_speaker("Where does Javier Ortega work?", speakers) == "Javier Ortega"
    assert question_speaker("¿Qué le recomendó el asistente a Javier?", speakers) == "assistant"
    assert question_speaker("¿Qué le pidió Javier al asistente?", speakers) == "Javier Ortega"
    assert question_speaker("Where does Ortega work?", speakers) == "Javier Ortega", "no other speaker: the user"
    assert question_speaker("Where does Javi work?", {"Javier Ortega", "Ana Ruiz"}) is None, "not a whole name"


def test_second_person_verbs_are_told_from_words_that_only_end_alike() -> None:
    assert addresses_assistant("¿Qué me sugeriste?") and addresses_assistant("¿Qué libro me diste?")
    for text in ("¿Estoy triste?", "¿Existe un plan B?", "¿Qué contraste tiene?", "What has the user done?"):
        assert not addresses_assistant(text), text


def test_person_words_are_read_as_words_not_inside_other_words() -> None:
    assert not first_person("Which mixer is the best for bread?")  # "mi", "i" inside words
    assert not addresses_assistant("Thank you: where is the youth hostel?")
    assert first_person("I'd like to know my schedule") and addresses_assistant("Did you say Tuesday?")


def test_a_name_the_user_gave_themselves_means_the_user() -> None:
    names = user_names(["user: Hi, my name is Hannah and I just moved.", "user: my name is not important"])
    assert names == {"Hannah"}, "a lower-case word after 'my name is' is no name"
    assert user_names(["user: Hola, me llamo Lucía.", "user: Ich heiße Lena."]) == {"Lucía", "Lena"}
    assert question_speaker("Where does Hannah work?", ROLES, names) == "user"
    assert alias_named("Where does Hannah work?", ROLES, names) == "Hannah"
    assert alias_named("Where does Hannah work?", {"Hannah", "assistant"}, names) is None, "a stored speaker"


def test_requests_are_told_from_statements() -> None:
    assert is_request("Can you plan me a dinner menu that fits my diet?")
    assert is_request("Plan me a dinner menu for Saturday.")
    assert not is_request("I'm pescatarian now, no more meat.")


# -- through the product ------------------------------------------------------------------------------------

SESSIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "2024-01-08T09:12:00",
        [
            ("user", "Hi! My name is Hannah. I work as a pharmacist in Leeds."),
            ("assistant", "Nice to meet you, Hannah. Pharmacist work in Leeds must keep you busy."),
        ],
    ),
    (
        "2024-03-02T19:40:00",
        [
            ("user", "Can you plan me a dinner menu that fits my diet?"),
            ("assistant", "Sure: which diet do you follow, so the dinner menu fits it?"),
        ],
    ),
    (
        "2024-04-14T10:18:00",
        [
            ("user", "I'm pescatarian now, so fish is fine but no meat in my diet."),
            ("assistant", "Got it: fish and vegetables from now on."),
        ],
    ),
    (
        "2024-05-20T08:00:00",
        [
            ("user", "Ich wohne jetzt in Hamburg, nahe der Alster."),
            ("assistant", "Hamburg an der Alster ist schön: wohnen dort viele Leute gern?"),
        ],
    ),
]


def long(reply: str) -> str:
    """An assistant's reply as long as real ones (about 800 characters: passages of its own, apart from the
    user's message), repeating the question's words as replies do."""
    return " ".join([reply] * (1 + 800 // len(reply)))


def messages(named: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n, (when, turns) in enumerate(SESSIONS, 1):
        for i, (role, said) in enumerate(turns, 1):
            text = long(said) if role == "assistant" else said
            message: dict[str, Any] = {"role": role, "content": text, "created_at": when, "session": str(n)}
            if named:  # the user's name given with the messages (OpenAI's ``name``)
                message["name"] = "Hannah" if role == "user" else "Assistant"
            out.append({**message, "id": f"D{n}:{i}"})
    return out


@pytest.fixture(params=[False, True], ids=["roles", "named"])
def chat(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Memory]:
    memory = Memory(settings, embedder=HashEmbedder(dim=1024))
    memory.add(messages(request.param), user_id="u")
    yield memory
    memory.close()


def own_words(result: SearchResult) -> dict[str, float]:
    """Per returned context (its first turn id), what the own-words stage gave it."""
    return {h.context.turn_ids[0]: dict(h.adjustments).get("own-words", 0.0) for h in result.contexts}


@pytest.mark.parametrize(
    "question", ["Where do I live now?", "Wo wohne ich jetzt?", "Where does Hannah live?", "¿Dónde vivo ahora?"]
)
def test_a_question_in_the_first_person_or_by_the_users_name_puts_the_users_words_first(
    chat: Memory, question: str
) -> None:
    result = chat.search(question, user_id="u", max_contexts=8)
    given = own_words(result)
    assistant = [tid for tid, value in given.items() if tid.endswith(":2")]
    user = [tid for tid, value in given.items() if tid.endswith(":1")]
    assert assistant and user
    assert all(given[t] < 0 for t in assistant), "the assistant's replies give way"
    assert all(given[t] == 0 for t in user), "the user's own words stay"
    assert result.contexts[0].context.turn_ids[0].endswith(":1")


def test_a_question_about_you_puts_the_assistants_words_first_and_whole(chat: Memory) -> None:
    result = chat.search("What dinner menu did you suggest?", user_id="u", max_contexts=8)
    given = own_words(result)
    assert any(v < 0 for t, v in given.items() if t.endswith(":1"))
    assert all(v == 0 for t, v in given.items() if t.endswith(":2"))
    block = result.prompt(max_chars=1_200)
    reply = "Sure: which diet do you follow"  # each of its passages says it seven times
    assert block.text.count(reply) == 14, "advice is shown whole: each of its passages"
    user = chat.search("What's my diet these days?", user_id="u", max_contexts=8).prompt(max_chars=1_200)
    assert 0 < user.text.count(reply) < 14, "a question about the user shows the reply by excerpts"


def test_the_users_request_gives_way_to_the_users_statement(chat: Memory) -> None:
    result = chat.search("What's my diet these days?", user_id="u", max_contexts=8)
    ranks = {h.context.turn_ids[0]: h for h in result.contexts}
    assert dict(ranks["D2:1"].adjustments).get("statements") == pytest.approx(-0.1), "the request gives way"
    assert "statements" not in dict(ranks["D3:1"].adjustments)
    assert ranks["D3:1"].rank < ranks["D2:1"].rank
    asked = chat.search("What did I ask you to plan for dinner?", user_id="u", max_contexts=8)
    assert all("statements" not in dict(h.adjustments) for h in asked.contexts), "a question about a request"


@pytest.mark.parametrize(
    "question",
    [
        "¿Qué menú me propusiste?",
        "What dinner menu did the assistant suggest Hannah?",
        "What dinner menu should Hannah cook, according to the assistant?",
    ],
)
def test_you_in_the_verb_or_the_assistant_named_first_or_cited_puts_the_assistants_words_first(
    chat: Memory, question: str
) -> None:
    given = own_words(chat.search(question, user_id="u", max_contexts=8))
    assert any(v < 0 for t, v in given.items() if t.endswith(":1")), "the user's messages give way"
    assert all(v == 0 for t, v in given.items() if t.endswith(":2"))


@pytest.mark.parametrize(
    ("question", "voiced"),
    [
        ("Where does the user live now?", "Where do I live now?"),
        ("What is the name of the user's dog?", "What is the name of my dog?"),
        ("Where does Hannah live now?", "Where do I live now?"),
        ("Where do I live now?", "Where do I live now?"),
    ],
)
def test_a_question_about_the_user_is_embedded_in_the_users_own_voice(chat: Memory, question: str, voiced: str) -> None:
    """The offline anchors are the user's own words ("user: I've signed for a flat in Utrecht"): the question is
    compared with them as the user would say it, not by the role's name every anchor starts with."""
    snap = chat.snapshot(make_scope("u", None, None))
    embedded: list[list[str]] = []

    def embed(texts: list[str]) -> Any:
        embedded.append(list(texts))
        return chat.embedder.embed(texts)

    query_vectors(embed, snap, question)
    unknown = "Hannah" in question and not snap.user_names  # the role/content chat never gives the user's name
    assert embedded[0][0] == (question if unknown else voiced)


def test_a_memory_of_llm_facts_is_asked_the_question_as_written() -> None:
    """An LLM's facts name their subject ("The user moved to Utrecht."): no verbatim anchors, so no voice; the
    same context with the offline extractor's anchor ("user: I moved to Utrecht.") is asked in the user's."""
    context = Context("c1", "1", 0, ("D1:1",), "8 May, 2024", 'DATE: 8 May, 2024\nuser said, "I moved to Utrecht."')
    vectors = np.ones((1, 4), np.float32)
    llm = ScopeSnapshot([context], [Fact("f1", "c1", "The user moved to Utrecht.", "llm")], vectors)
    offline = ScopeSnapshot([context], [Fact("f1", "c1", "user: I moved to Utrecht.", "offline")], vectors)
    assert voice_of(llm, "Where does the user live?") is None
    assert voice_of(offline, "Where does the user live?") == "user"
    assert voice_of(offline, "Where does Caroline live?") is None, "a name the memory does not know"
