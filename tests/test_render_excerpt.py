"""A block that holds the answer: a long message is shown by the sentences that hold its anchors, so more
messages fit and a fact told in passing reaches the block (hand-made results, and a hand-made chat)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.model import Context, ContextHit, Fact, FactHit, SearchResult
from anchormem.render import prompt_block
from anchormem.render.excerpt import SHORT_CHARS, asks, excerpt, units
from anchormem.render.mentions import asks_when, says_date
from anchormem.render.prompt_block import OTHER_LANGUAGE_SHARE, WHOLE_SHARE, whole_share

FILLER = (
    "The weather has been grey all week and the trains were late again. "
    "I also tidied the garage and found a box of old letters. "
    "We watched a long documentary about whales on Sunday evening. "
    "The neighbours are building an extension and the noise starts at eight. "
)


def cut_lines(block: str) -> int:
    """Message lines of ``block`` shown by an excerpt: their quoted text starts or ends with the cut mark."""
    return sum(1 for line in block.splitlines() if re.match(r'^\[[^\]]+\] [^:"]+: "…', line) or line.endswith('…"'))


def test_units_are_sentences_and_lines() -> None:
    assert units("One two three. Four five six!\n- a list item here\nok.") == [
        "One two three.",
        "Four five six!",
        "- a list item here ok.",
    ]


def test_an_excerpt_keeps_the_anchors_sentence_and_marks_what_it_leaves_out() -> None:
    text = FILLER + "By the way, I started at Halden Mutual as a claims analyst in May. " + FILLER
    shown = excerpt(text, ["user: By the way, I started at Halden Mutual as a claims analyst in May."], "job?")
    assert shown is not None and "I started at Halden Mutual as a claims analyst in May." in shown
    assert shown.startswith("…") and shown.endswith("…") and len(shown) < len(text) / 3
    assert excerpt("Short and whole.", ["user: Short and whole."], "whole?") is None, "nothing to leave out"


def test_a_kept_question_keeps_its_answer_and_the_question_finds_a_sentence_no_anchor_holds() -> None:
    text = "Harriet: Which supplier is late? Sian: Brennan Castings, on Friday 12 September. " + FILLER
    shown = excerpt(text, ["user: Harriet: Which supplier is late?"], "Which supplier?")
    assert shown is not None and "Brennan Castings, on Friday 12 September." in shown
    commute = FILLER + "Now I take the train to Derby three days a week. " + FILLER
    shown = excerpt(
        commute, ["user: The weather has been grey all week and the trains were late again."], "How do I get to Derby?"
    )
    assert shown is not None and "train to Derby" in shown


def test_a_third_anchor_is_kept_while_the_excerpt_stays_short_and_never_a_question() -> None:
    hi, ill = "Hi, I'm Helen.", "She has early Alzheimer's."
    joan = "I need a medication chart for my mum, Joan, who is 84."
    text = f"{hi} {joan} {FILLER}{ill} {FILLER}"
    anchors = [f"user: {hi}", f"user: {ill}", f"user: {joan}"]
    shown = excerpt(text, anchors, "What is the name of my mother?") or ""
    assert hi in shown and ill in shown and joan in shown, "three short anchor sentences: the third is kept"
    long_ill = "She has early Alzheimer's, " + ", ".join(["and she keeps forgetting her tablets"] * 7) + "."
    assert len(hi) + len(long_ill) + len(joan) > SHORT_CHARS > len(hi) + len(ill) + len(joan)
    shown = (
        excerpt(f"{hi} {joan} {long_ill} {FILLER}", [f"user: {hi}", f"user: {long_ill}", f"user: {joan}"], "?") or ""
    )
    assert hi in shown and long_ill in shown and joan not in shown, "over SHORT_CHARS: two anchors, as before"
    asked = "Can you make the chart bigger?"
    shown = excerpt(f"{hi} {asked} {FILLER}{ill} {FILLER}", [f"user: {hi}", f"user: {ill}", f"user: {asked}"], "?")
    assert shown is not None and asked not in shown, "a question is never the third"


def test_an_anchor_that_only_asks_yields_to_one_that_states_something() -> None:
    asked = "How do I handle the old gift cards during the switch?"
    told = "Since New Year everything at the counter goes through Clover now."
    text = FILLER + "We sold about forty gift cards at the market last month. " + told + " " + asked
    anchors = ["user: We sold about forty gift cards at the market last month.", f"user: {asked}", f"user: {told}"]
    shown = excerpt(text, anchors, "Which till system does the shop use?")
    assert shown is not None and told in shown, "the statement, though its anchor ranked below the question"
    assert asked not in shown
    assert told in (excerpt(text, [f"user: {told}", f"user: {asked}"], "till?") or ""), "order kept among statements"
    both = "I want a quiet trainer for the flat. What do you recommend?"
    assert not asks(f"user: {both}") and asks(f"user: {asked}") and asks(f'Ana: "{asked}"')


def long_context(n: int, fact: str) -> ContextHit:
    text = FILLER + fact + " " + FILLER
    body = f'DATE: 8 May, 2024\nuser said, "{text}"'
    context = Context(f"c{n}", str(n), 0, (f"D{n}:1",), "8 May, 2024", body)
    anchor = FactHit(Fact(f"f{n}", f"c{n}", f"user: {fact}", "offline"), 0.9 - n / 100)
    return ContextHit(context, 0.9 - n / 100, anchors=(anchor,), rank=n)


FACTS = [f"By the way, my cousin number {n} moved to town {n} last spring." for n in range(1, 7)]


def test_the_budget_goes_to_more_messages_each_by_the_sentence_that_holds_its_anchor() -> None:
    hits = tuple(long_context(n, fact) for n, fact in enumerate(FACTS, 1))
    result = SearchResult("Where did my cousins move?", hits, (), reading_order=tuple(range(6)))
    whole = result.prompt()
    assert whole.text.count(FILLER.split(".")[0]) == 12, "no budget: every message whole"
    block = result.prompt(max_chars=2_400)
    assert len(block.text) <= 2_400
    assert block.turn_ids == tuple(f"D{n}:1" for n in range(1, 7)), "every message reaches the block"
    assert all(fact in block.text for fact in FACTS), "each by its anchor's sentence"
    assert cut_lines(block.text) >= 3 and f'[D1:1] User: "{FILLER.strip()[:20]}' in block.text, "the best whole"


def chat() -> list[dict[str, Any]]:
    reply = "Here is a plan for the week with meals, shopping and a budget. " * 12
    said = [
        ("user", "Can you help me plan meals for the week? " + FILLER),
        ("assistant", reply),
        ("user", FILLER + "Oh, and I work at Halden Mutual now, so lunches are at the office. " + FILLER),
        ("assistant", reply),
        ("user", "What should I cook on Sunday for six people? " + FILLER),
        ("assistant", reply),
    ]
    return [
        {"role": role, "content": text, "created_at": f"2024-05-0{i // 2 + 1}T10:00:00", "session": str(i // 2 + 1)}
        for i, (role, text) in enumerate(said)
    ]


def test_a_fact_told_in_passing_inside_a_long_message_reaches_a_small_block(settings: Settings) -> None:
    memory = Memory(settings, embedder=HashEmbedder(dim=1024))
    try:
        memory.add(chat(), user_id="u")
        result = memory.search("Where does the user work now? Halden Mutual office", user_id="u")
        block = result.prompt(max_chars=520)
        assert "I work at Halden Mutual now" in block.text
        assert len(block.text) <= 520
    finally:
        memory.close()


def test_an_llm_fact_is_shown_by_the_sentence_that_says_it_in_its_words() -> None:
    """An LLM's fact names its subject and keeps names, places and dates exactly, but it is not a sentence of the
    message: the excerpt shows the sentence that shares most of its words, as it shows a verbatim anchor's."""
    job = "On the brighter side, I've said yes to the manager post at Hollins Pharmacy, starting 1 July."
    text = f"Well, that's dead. {FILLER}{job} {FILLER}"
    fact = "The user accepted the manager post at Hollins Pharmacy, starting on 1 July 2025."
    shown = excerpt(text, [], "Where does the user work now?", [fact]) or ""
    assert job in shown and "Well, that's dead." not in shown
    assert job not in (excerpt(text, [], "Where does the user work now?") or ""), "without the fact: not found"
    unrelated = "The user likes cats."
    assert job not in (excerpt(text, [], "?", [unrelated]) or ""), "a fact that shares fewer words says nothing here"
    hits = tuple(long_context(n, f) for n, f in enumerate(FACTS, 1))
    llm = ContextHit(
        Context("c9", "9", 0, ("D9:1",), "8 May, 2024", f'DATE: 8 May, 2024\nuser said, "{text}"'),
        0.5,
        anchors=(FactHit(Fact("f9", "c9", fact, "llm"), 0.5),),
        rank=7,
    )
    block = SearchResult("Where does the user work now?", (*hits, llm), (), reading_order=tuple(range(7)))
    shown = block.prompt(max_chars=2_400).text
    assert job in shown and cut_lines(shown) > 0, "in the block too, by the LLM fact's source"


def test_a_kept_heading_keeps_the_list_under_it() -> None:
    reply = (
        "Here's a warm, practical draft for your brother and sister.\n\n"
        + FILLER
        + "\n\n**An idea for sharing the load**\n"
        "- We each take one fixed weekend a month to visit or stay over.\n"
        "- A shared Google Calendar for appointments, so nobody has to chase.\n"
        "- A quick family call on the first Sunday of each month.\n\n" + FILLER
    )
    shown = excerpt(reply, ["assistant: **An idea for sharing the load**"], "How do we share the load?") or ""
    assert "one fixed weekend a month" in shown and "shared Google Calendar" in shown
    assert "whales" not in shown, "the list is kept, not the message"


def test_a_lead_in_with_a_colon_keeps_the_line_it_announces() -> None:
    """A pasted letter's "offered a date for your operation as follows:" says nothing; the line after it does,
    list item or not. A heading that is no lead-in ("**Next steps**") keeps only list items, as before."""
    letter = (
        FILLER + "\nI am pleased to confirm that you have been offered a date for your operation as follows:\n"
        "Date of surgery: Wednesday 14 May 2025\n"
        "Please read the enclosed leaflet carefully before you come in.\n" + FILLER
    )
    anchor = "user: I am pleased to confirm that you have been offered a date for your operation as follows:"
    shown = excerpt(letter, [anchor], "When was the operation first booked?") or ""
    assert "Wednesday 14 May 2025" in shown and "enclosed leaflet" not in shown


def test_a_short_title_keeps_the_line_under_it() -> None:
    """A pasted offer's section title ("1. Start date and place of work") holds no fact; the line under it does.
    A sentence that ends with a full stop is no title, whatever its length."""
    offer = (
        FILLER + "\n1. Start date and place of work\nYour employment will commence on Monday 9 June 2025.\n"
        "Your normal place of work will be our Finnieston clinic.\n" + FILLER
    )
    shown = excerpt(offer, ["user: Start date and place of work"], "When did the new job start?") or ""
    assert "Monday 9 June 2025" in shown and "Finnieston" not in shown
    reply = FILLER + "\n**What to do next**\nBook the van for Saturday morning before they run out.\n" + FILLER
    assert "Book the van" in (excerpt(reply, ["assistant: **What to do next**"], "What should I do next?") or "")
    note = FILLER + "\nThe flat is fine.\nWe paid the deposit of 340 euros on Monday.\n" + FILLER
    shown = excerpt(note, ["user: The flat is fine."], "Is the flat fine?") or ""
    assert "340 euros" not in shown, "a short sentence is no title"


@pytest.mark.parametrize(
    ("question", "date"),
    [
        ("When was the user's first day as head chef at her new restaurant?", "I start Monday 6 October."),
        ("¿Cuándo empezó la usuaria en el restaurante nuevo?", "Empiezo el lunes 6 de octubre."),
        ("Wann hat die Ausbildung der Nutzerin begonnen?", "Los ging es am 01.08.2022 in Freiburg."),
        ("Quand l'orage a-t-il frappé les vignes ?", "C'était le 14 juin 2025, vers 18 h."),
    ],
)
def test_a_question_that_asks_when_keeps_the_sentence_that_says_a_date(question: str, date: str) -> None:
    offer = "Head chef, £44k, and a 45-hour cap written into the contract, which sounds like a spa break."
    text = FILLER + offer + " " + date + " " + FILLER
    shown = excerpt(text, [f"user: {offer}"], question)
    assert shown is not None and offer in shown and date in shown
    unasked = excerpt(text, [f"user: {offer}"], "What is the user's salary as head chef?")
    assert unasked is not None and date not in unasked, "a question that does not ask when leaves the date out"


def test_when_and_dates_are_read_in_the_languages_read_here() -> None:
    assert all(asks_when(q) for q in ("when did I move?", "¿cuándo me mudé?", "quando ho firmato?", "Seit wann?"))
    assert all(asks_when(q) for q in ("Quelle date ?", "Wanneer begon ze?", "em que dia foi?", "What date was it?"))
    assert not any(asks_when(q) for q in ("Where do I live?", "¿Dónde vivo?", "Quanto pago?", "Wo wohne ich?"))
    dated = ("on 14 June 2025", "el 14 de junio", "am 7. März", "le 26 juin", "il 9 aprile", "op 3 mei", "March 2025")
    assert all(says_date(s) for s in (*dated, "01.08.2022", "2025-06-14", "October 6th", "14/06/2025"))
    assert not any(says_date(s) for s in ("I may come", "two dogs", "la mar estaba", "version 2.5.1", "at 18:30"))


ITALIAN_FILLER = (
    "Il tempo è stato grigio tutta la settimana e i treni erano di nuovo in ritardo. "
    "Ho anche sistemato il garage e ho trovato una scatola di vecchie lettere. "
    "Domenica sera abbiamo visto un lungo documentario sulle balene con i bambini. "
    "I vicini stanno costruendo un ampliamento e il rumore comincia alle otto. "
)


def _italian_context(n: int) -> ContextHit:
    fact = f"Comunque mio cugino numero {n} si è trasferito a Torino la primavera scorsa."
    text = ITALIAN_FILLER + fact + " " + ITALIAN_FILLER
    context = Context(f"c{n}", str(n), 0, (f"D{n}:1",), "8 May, 2024", f'DATE: 8 May, 2024\nuser said, "{text}"')
    anchor = FactHit(Fact(f"f{n}", f"c{n}", f"user: {fact}", "offline"), 0.9 - n / 100)
    return ContextHit(context, 0.9 - n / 100, anchors=(anchor,), rank=n)


def test_contexts_in_another_language_are_shown_whole_over_more_of_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    english = tuple(long_context(n, fact) for n, fact in enumerate(FACTS, 1))
    italian = tuple(_italian_context(n) for n in range(1, 17))
    assert whole_share(english) == WHOLE_SHARE == 0.5
    assert whole_share(italian) == OTHER_LANGUAGE_SHARE == 0.75
    result = SearchResult("Dove si sono trasferiti i miei cugini?", italian, (), reading_order=tuple(range(16)))
    block = result.prompt(2_400)
    monkeypatch.setattr(prompt_block, "OTHER_LANGUAGE_SHARE", WHOLE_SHARE)
    as_english = result.prompt(2_400)
    assert len(block.text) <= 2_400 and len(as_english.text) <= 2_400
    assert cut_lines(block.text) < cut_lines(as_english.text), "more of them whole"
    assert len(block.turn_ids) < len(as_english.turn_ids), "fewer of them, the best ones"
    assert block.turn_ids == as_english.turn_ids[: len(block.turn_ids)]
