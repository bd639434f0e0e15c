"""LLM-free anchors: speaker-prefixed sentences and image captions of a context's turns."""

from __future__ import annotations

from anchormem.ingest.offline import extract_anchors, split_sentences
from anchormem.model import Context, Turn


def _turns() -> list[Turn]:
    return [
        Turn("D1:1", "1", 0, "Ana", "I adopted a dog. His name is Pico! Wow.", "8 May, 2023"),
        Turn(
            "D1:2",
            "1",
            1,
            "Ben",
            "Nice, show me.",
            "8 May, 2023",
            image_caption="a photo of a dog on a beach",
        ),
        Turn("D1:3", "1", 2, "Ana", "Here he is.", "8 May, 2023", image_caption="dog with a ball"),
    ]


def test_sentences_are_split_and_short_fragments_merged() -> None:
    assert split_sentences("I adopted a dog. His name is Pico! Wow.") == [
        "I adopted a dog.",
        "His name is Pico! Wow.",
    ]
    assert split_sentences("Hi! I finally went to the beach today.") == ["Hi! I finally went to the beach today."]
    assert split_sentences("   ") == []


def test_lowercase_texting_is_split_after_a_question_or_an_exclamation() -> None:
    text = "how often should i change the oil? my late dad was a mechanic, he'd laugh at me"
    assert split_sentences(text) == [
        "how often should i change the oil?",
        "my late dad was a mechanic, he'd laugh at me",
    ]
    assert split_sentences("ok so approx. two hours by bus. fine") == ["ok so approx. two hours by bus. fine"], (
        "a full stop before a lowercase word may be an abbreviation: no split"
    )


def test_anchors_name_the_speaker_and_describe_photos() -> None:
    ctx = Context("c1", "1", 0, ("D1:1", "D1:2", "D1:3"), "8 May, 2023", "DATE: 8 May, 2023\n...")
    anchors = extract_anchors(ctx, _turns())
    assert anchors == [
        "Ana: I adopted a dog.",
        "Ana: His name is Pico! Wow.",
        "Ben: Nice, show me.",
        "Ben shared a photo of a dog on a beach.",
        "Ana: Here he is.",
        "Ana shared a photo of dog with a ball.",
    ]


def test_only_the_context_turns_are_used_and_repeats_dropped() -> None:
    ctx = Context("c2", "1", 1, ("D1:3",), "8 May, 2023", "DATE: 8 May, 2023\n...")
    turns = [*_turns(), Turn("D1:3", "1", 2, "Ana", "Here he is.", None)]
    assert extract_anchors(ctx, turns) == ["Ana: Here he is.", "Ana shared a photo of dog with a ball."]
