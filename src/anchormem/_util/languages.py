"""Which language a text is in, and how its words become index terms there.

The lexical index (:mod:`anchormem.text.lexical`) stems words and drops function words; English rules on an
Italian sentence leave "bicicletta" and "bici", "consigliato" and "consiglio", "l'appartamento" and
"appartamento" as different terms, so a question in the chat's own words misses it. Each text is read in the
language its function words show (:func:`detect`): the share of its words that are function words of one
language, among English, Spanish, Portuguese, Italian, French, German and Dutch. A text too short to show one
stays English, the rules it always had. Snowball stems the words of each; French and Italian elisions
("l'utente", "dell'appartamento", "j'habite") are cut at the apostrophe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

import snowballstemmer

ENGLISH = "en"
_WORD = re.compile(r"[^\W\d_]+")

# function words: articles, prepositions, pronouns, auxiliaries and conjunctions; the marks a text's language
# is detected by, and the stop words of that language's index terms
_FUNCTION: dict[str, str] = {
    "es": """el la los las un una unos unas lo al del de que y o pero en con por para sin sobre entre hasta desde
        mi mis tu tus su sus nuestro nuestra me te se nos le les yo tú él ella ellos ellas usted ustedes es son
        era fue está están estoy estaba he has ha hemos han había muy más también ya como porque cuando donde
        qué cómo cuál cuándo dónde quién este esta estos estas ese esa eso esto aquí ahora pues si no ni hay""",
    "pt": """o a os as um uma uns umas ao aos à às do da dos das de que e ou mas em no na nos nas num numa com
        por pelo pela para sem sobre entre até desde meu minha meus minhas teu tua seu sua nosso nossa me te se
        lhe eu tu ele ela eles elas você vocês é são era foi está estão estou estava tenho tem temos tinha muito
        mais também já como porque quando onde qual quem este esta isto esse essa isso aqui agora não sim há""",
    "it": """il lo la i gli le un uno una del dello della dei degli delle al allo alla ai agli alle dal dalla nel
        nello nella nei negli nelle sul sullo sulla di a da in con su per tra fra che e o ma se non mi ti si ci
        vi lo io tu lui lei noi voi loro mio mia miei mie tuo tua suo sua nostro è sono era ero fu sta sto ho
        hai ha abbiamo hanno avevo aveva molto più anche già come perché quando dove cosa chi quale questo
        questa quello quella qui ora adesso""",
    "fr": """le la les un une des du de à au aux et ou mais dans en sur sous avec pour par sans chez entre que qui
        quoi dont où ne pas plus je tu il elle nous vous ils elles on me te se moi toi lui leur mon ma mes ton
        ta tes son sa ses notre nos votre vos est sont était suis es sommes êtes ai as avons avez ont avait
        très aussi déjà comme parce quand ce cet cette ces ça cela ici maintenant oui non""",
    "de": """der die das den dem des ein eine einen einem einer eines und oder aber in im an am auf aus bei mit
        nach von vom zu zum zur für über unter vor durch ohne um ich du er sie es wir ihr mich dich sich mir
        dir uns euch mein meine meinen meinem meiner dein deine sein seine ihre unser ist sind war waren bin
        bist habe hast hat haben hatte wird werden sehr auch schon noch wie weil wenn wo was wer welche dieser
        diese dieses jetzt hier nicht kein keine ja nein doch""",
    "nl": """de het een en of maar in op aan bij met van voor naar uit door over onder tot om te ik jij je hij
        zij ze wij we jullie mij mijn jouw zijn haar ons onze is was waren ben bent heb hebt heeft hebben had
        wordt worden heel ook al nog hoe omdat als waar wat wie welke deze dit die dat hier nu niet geen ja nee""",
}
_ENGLISH = """a an the and or but in on at to of for with from by about as into over under after before i me my
    mine you your he him his she her it its we us our they them their is are was were be been am have has had
    do does did will would can could should this that these those what which who when where why how not no
    yes very also just now here there"""
_SNOWBALL = {
    ENGLISH: "english",
    "es": "spanish",
    "pt": "portuguese",
    "it": "italian",
    "fr": "french",
    "de": "german",
    "nl": "dutch",
}
# the elided words a French or Italian word may begin with, cut at the apostrophe
_ELIDED = {
    "fr": frozenset(["l", "d", "j", "m", "t", "s", "n", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"]),
    "it": frozenset(
        [
            "l",
            "un",
            "d",
            "c",
            "s",
            "m",
            "t",
            "v",
            "n",
            "dell",
            "all",
            "dall",
            "nell",
            "sull",
            "coll",
            "quell",
            "quest",
            "bell",
            "sant",
            "po",
            "mezz",
            "tutt",
        ]
    ),
}
MIN_MARKS = 3
"""Function words a text must show before it is read in a language other than English."""


@dataclass(frozen=True)
class Language:
    code: str
    function_words: frozenset[str]
    elided: frozenset[str]

    def stem(self, word: str) -> str:
        return _stem(self.code, word)


@cache
def language(code: str) -> Language:
    """The rules of one language (``"en"``, ``"es"``, ``"pt"``, ``"it"``, ``"fr"``, ``"de"``, ``"nl"``)."""
    if code not in _SNOWBALL:
        raise ValueError(f"no rules for language {code!r}; known: {', '.join(sorted(_SNOWBALL))}")
    words = _ENGLISH if code == ENGLISH else _FUNCTION[code]
    return Language(code, frozenset(words.split()), _ELIDED.get(code, frozenset()))


@cache
def _stemmer(code: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(_SNOWBALL[code])


def _stem(code: str, word: str) -> str:
    # not cached here: its caller, the lexical index's term of a word (``text.lexical``), is cached already
    return str(_stemmer(code).stemWord(word))


@lru_cache(maxsize=1)
def _marks() -> dict[str, frozenset[str]]:
    return {code: language(code).function_words for code in _SNOWBALL}


def detect(text: str) -> str:
    """The language ``text`` is written in, by its function words: the language with the most of them among its
    words, when that is at least ``MIN_MARKS`` and more than English has; else English. Words two languages
    share ("de", "la", "que") count for both, so the words only one of them has decide."""
    words = _WORD.findall(text.lower().replace("\u2019", "'").replace("'", " "))
    if len(words) < MIN_MARKS:
        return ENGLISH
    counts = {code: sum(1 for w in words if w in marks) for code, marks in _marks().items()}
    best = max(sorted(counts), key=lambda code: (counts[code], code == ENGLISH))
    if best == ENGLISH or counts[best] < MIN_MARKS or counts[best] <= counts[ENGLISH]:
        return ENGLISH
    return best


def known() -> tuple[str, ...]:
    """The language codes read here, English first."""
    return (ENGLISH, *sorted(code for code in _SNOWBALL if code != ENGLISH))
