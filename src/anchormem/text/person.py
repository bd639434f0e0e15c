"""Who a question is about, as chatbot users ask it.

A user of an assistant asks in the first person: "Where do I live now?", "¿Dónde vivo ahora?" (mi, me,
yo), "Wo wohne ich jetzt?" (ich, mein, mir, mich). "I" is the speaker of the ``user`` role, and "you"
the assistant: "What did you suggest for my knee?" asks about the assistant's words. A question may
also name the user by a name the memory knows as the user's, though no message is stored under it:
role/content messages never carry the name, so "Where does Hannah work?" names no stored speaker
unless the user said "my name is Hannah" (:func:`user_names`); messages sent with a ``name`` store the
name as the speaker, and a question naming it (or its first word, "Javier" for "Javier Ortega":
:func:`anchormem.text.voice.named_speaker`) names that speaker directly. The roles' words name the roles'
speakers in the languages read here ("the user", "el usuario", "die Nutzerin"; "the assistant", "el
asistente").

:func:`question_speaker` answers with one of the memory's speakers, or None:

1. the one speaker the question names: by name, by one of the user's names, or by a role's word; of the
   user and the assistant both named, the one whose words it cites ("Was sollte die Nutzerin laut Assistent
   prüfen lassen?", "according to the assistant", "selon l'assistant", "volgens de assistent"), else the one
   named first, the question's subject ("What did the assistant suggest Maren do?", "¿Qué le pidió Javier al
   asistente?"); a question naming two people (LoCoMo's "When did Caroline meet Melanie?") names none of them;
2. else, when the question's auxiliary names who did it ("did you suggest…", "did I ask you…", "hast du
   mir…"), that one: "you" the assistant's speaker, "I" the user's;
3. else the assistant's speaker when it speaks to "you" (the phrases of a request, "can you tell me",
   "do you remember", do not count: they ask, they are not about the assistant); Spanish, Portuguese and
   Italian say "you" in the verb alone: the second person of the preterite ("¿qué me recomendaste?",
   "dijiste") and the auxiliary of the perfect ("¿qué me has dicho?", "cosa mi hai consigliato?") and of the
   pluperfect ("che vino mi avevi detto di servire?", "¿qué me habías dicho?", "o que me tinhas dito?"), and
   European Portuguese's "-este" preterites of saying and doing ("o que é que me disseste?");
4. else the user's speaker, when the memory has one and the question names nobody: in the first person
   ("Where do I live?") or in none (Spanish, Italian and Portuguese drop the subject pronoun: "¿dónde vivo
   ahora?", "¿qué bici tengo?"; "When was the launch?" asks about the user's life too). In a memory of a
   user and an assistant only the user has a life to ask about; what the assistant said is asked of "you".

The user's speaker is ``user`` where the memory has one; else, where the memory has an assistant
(``assistant``, ``AI``, ``bot``…) and exactly one other speaker, that one (the user's name given as the
speaker). Two people talking (LoCoMo's Caroline and Melanie) have no user and no assistant: a first-person
question there names nobody, and so does one naming neither of them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from anchormem.text.voice import mention_at, named_speaker

ASSISTANTS = frozenset({"assistant", "ai", "bot", "chatbot", "model", "gpt", "claude", "system", "developer", "tool"})
_FIRST = re.compile(
    r"(?<![\w'’])(?:i|i['’](?:m|ve|d|ll)|me|my|mine|myself"  # English
    r"|yo|mi|mis|mí|mío|mía|míos|mías|conmigo"  # Spanish
    r"|ich|mein|meine|meinen|meinem|meiner|meines|mir|mich"  # German
    r"|je|j['’]|moi|mon|m['’]"  # French
    r"|io|mio|miei|mie"  # Italian
    r"|eu|meu|meus|minha|minhas|comigo"  # Portuguese
    r"|ik|mijn|mij)(?![\w'’])",  # Dutch
    re.IGNORECASE,
)
_SECOND = re.compile(
    r"(?<![\w'’])(?:you|your|yours|yourself|tú|usted|você|du|dein|deine|deinen|deinem|deiner|dich|dir|vous|tu|toi"
    r"|ti|tuo|tua|tuoi|tue|vc|vocês|teu|teus|tuas|jij|jou|jouw)(?![\w'’])",
    re.IGNORECASE,
)
# "you" in the verb of a pro-drop language: the preterite's second person (Spanish and Portuguese "-aste",
# "-iste": recomendaste, dijiste; not "-este", the end of Spanish "este"), the perfect's auxiliary (Spanish
# "has" + participle, Italian "hai") and the pluperfect's (Italian "avevi", Spanish "habías", Portuguese
# "tinhas": "che vino mi avevi detto?"); words that only end alike (triste, existe, contraste) are left out, and of
# European Portuguese's "-este" forms only verbs of saying and doing ("disseste", "fizeste": "este", "deste" are words)
_SECOND_VERB = re.compile(
    r"(?<![\w'’])(?!(?:tr|ch|qu|alp|ex|res|ins|cons|pers|as|des|subs)iste(?![\w'’]))"
    r"(?!(?:contr|desg|eng|tr|b|g|h)aste(?![\w'’]))\w+(?:aste|iste)(?![\w'’])"
    r"|\bhas\s+\w+(?:ado|ido|cho|to)\b|\bhai\b|\bavevi\b|\bhab[ií]as\b|\btinhas\b"
    r"|\b(?:disseste|fizeste|escreveste|propuseste|puseste|trouxeste|quiseste)\b",
    re.IGNORECASE,
)
ROLE_WORDS = {  # the words that name a role in a question, in the languages read here
    "user": (
        "user",
        "usuario",
        "usuaria",
        "usuário",
        "usuária",
        "utilizador",
        "utilizadora",
        "utente",
        "nutzer",
        "nutzers",
        "nutzerin",
        "benutzer",
        "benutzers",
        "benutzerin",
        "utilisateur",
        "utilisatrice",
        "gebruiker",
        "gebruikster",
    ),
    # German declines "Assistent" ("laut dem Assistenten", "des Assistenten") and "Nutzer" ("des Nutzers")
    "assistant": ("assistant", "asistente", "assistente", "assistent", "assistenten", "assistentin", "assistante"),
}
# a role's word may follow an elided article or preposition ("l'assistente", "dell'utente", "l'utilisatrice")
_ROLE = {
    role: re.compile(r"(?<![\w'’])(?:\w{1,5}['’])?(?:" + "|".join(words) + r")(?:'s|’s)?(?![\w'’])", re.IGNORECASE)
    for role, words in ROLE_WORDS.items()
}
_ASKING = re.compile(  # "you" in the form of a request: not a question about the assistant
    r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|remind|recall|remember|check|say|let|help|look|find)\b"
    r"|\bdo\s+you\s+(?:remember|know|recall|have)\b|\bthank\s+you\b"
    r"|\b(?:kannst|könntest)\s+du\s+mir\b|\bweißt\s+du\b|\b(?:recuerdas|sabes)\b|\b(?:puedes|podrías)\s+decirme\b",
    re.IGNORECASE,
)
_SUBJECT = re.compile(  # who does it: the pronoun after the question's auxiliary ("did you…", "did I ask you…")
    r"\b(?:did|do|does|have|has|had|will|would|can|could|should|was|were|am|are"
    r"|hast|habe|hatte|hattest|bist|bin|warst|war|wirst|werde|kannst|kann|sollte|solltest"
    r"|heb|hebt|heeft|zei|zeg|zou|kun|kon|ben|wil|moest|raadde|adviseerde)\s+(?P<who>i|you|ich|du|ik|je|jij)\b",
    re.IGNORECASE,
)
_CITED = re.compile(  # the words that say whose words follow: "laut (dem) Assistenten", "according to the assistant"
    r"(?:\baccording\s+to|\blaut|\bgemäß|\bselon|\bd['’]après|\bsegún|\bsecondo|\bstando\s+a|\bvolgens|\bsegundo"
    r"|\bde\s+acordo\s+com|\bconforme)\s+(?:(?:the|dem|der|den|le|la|el|il|lo|o|a|de)\s+)?\Z",
    re.IGNORECASE,
)
_MY_NAME = re.compile(
    r"(?:\bmy\s+name\s+is|\bmy\s+name['’]s|\bcall\s+me|\bme\s+llamo|\bmi\s+nombre\s+es|\bich\s+heiße|\bich\s+heisse"
    r"|\bmein\s+name\s+ist|\bje\s+m['’]appelle|\bmi\s+chiamo)\s+(?-i:(?P<name>[A-ZÀ-ÖØ-Þ][\w'’-]{1,30}))",
    re.IGNORECASE,
)


def first_person(query: str) -> bool:
    """Whether ``query`` speaks in the first person (English, Spanish, German, French, Italian)."""
    return _FIRST.search(query) is not None


def addresses_assistant(query: str) -> bool:
    """Whether ``query`` is about "you" (the assistant), the phrases of a request left aside: by a pronoun,
    or by the verb alone in Spanish, Portuguese and Italian ("¿qué me recomendaste?")."""
    text = _ASKING.sub(" ", query)
    return _SECOND.search(text) is not None or _SECOND_VERB.search(text) is not None


def user_speaker(speakers: Collection[str]) -> str | None:
    """The speaker of the user role among ``speakers``: ``user``; else the one speaker beside an assistant."""
    for s in speakers:
        if s.strip().casefold() == "user":
            return s
    people = [s for s in speakers if s.strip().casefold() not in ASSISTANTS]
    return people[0] if len(people) == 1 and len(people) < len(speakers) else None


def assistant_speaker(speakers: Collection[str]) -> str | None:
    """The assistant among ``speakers`` (``assistant`` first), else None."""
    found = sorted(
        (s for s in speakers if s.strip().casefold() in ASSISTANTS), key=lambda s: s.casefold() != "assistant"
    )
    return found[0] if found else None


def user_names(statements: Iterable[str]) -> frozenset[str]:
    """The names the user gave themselves in ``statements`` (their own words): "my name is Hannah",
    "call me Hannah", "me llamo Lucía", "ich heiße Lena"."""
    return frozenset(found.group("name") for text in statements for found in _MY_NAME.finditer(text))


def named_speakers(query: str, speakers: Collection[str], names: Collection[str] = ()) -> dict[str, int]:
    """The speakers of ``speakers`` that ``query`` names, each with where it is first named: by their name as
    stored (or its first word), the user's by one of the user's ``names``, and the roles' by their words ("the
    user", "el asistente")."""
    found: dict[str, int] = {}

    def add(speaker: str, at: int) -> None:
        found[speaker] = min(at, found.get(speaker, at))

    for s in speakers:
        if (at := mention_at(query, s)) is not None:
            add(s, at)
    user, assistant = user_speaker(speakers), assistant_speaker(speakers)
    for speaker, forms in ((user, [*names]), (assistant, [])):
        if speaker is None:
            continue
        role = _ROLE["user" if speaker == user else "assistant"].search(query)
        places = [role.start()] if role else []
        places += [at for n in forms if (at := mention_at(query, n)) is not None]
        if places:
            add(speaker, min(places))
    return found


def question_speaker(query: str, speakers: Collection[str], names: Collection[str] = ()) -> str | None:
    """The one of ``speakers`` that ``query`` is about (module docstring), or None; ``names``: the
    user's names the memory knows (:func:`user_names`)."""
    named = named_speakers(query, speakers, names)
    user = user_speaker(speakers)
    if len(named) == 1:
        return next(iter(named))
    if named:  # the user and the assistant both: the one whose words it cites, else the one named first
        pair = {user, assistant_speaker(speakers)}
        if set(named) != pair:
            return None
        cited = [s for s in named if _CITED.search(query, 0, named[s])]
        return cited[0] if len(cited) == 1 else min(named, key=lambda s: named[s])
    subject = _SUBJECT.search(_ASKING.sub(" ", query))
    if subject is not None:
        return user if subject.group("who").casefold() in ("i", "ich", "ik") else assistant_speaker(speakers)
    if addresses_assistant(query):
        return assistant_speaker(speakers)
    return user


def alias_named(query: str, speakers: Collection[str], names: Collection[str]) -> str | None:
    """The user's name that ``query`` names when it is not itself a stored speaker, else None."""
    if named_speaker(query, speakers) is not None or user_speaker(speakers) is None:
        return None
    return named_speaker(query, [n for n in names if n not in speakers])
