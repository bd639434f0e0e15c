"""A full stop ends a sentence except where it leaves it open: a day's ordinal before a month ("am 29. Juni"), a
title before a name ("Dr. Weber"). Offline anchors and excerpts cut alike, so a date is never cut in two."""

from __future__ import annotations

import pytest

from anchormem.ingest.offline import split_sentences
from anchormem.render.excerpt import excerpt, units

TEXT = (
    "Ich hab mich angemeldet: Halbmarathon Hamburg am 29. Juni, meine Freundin Sanne läuft mit. "
    "Dr. Weber meint, ca. 30 Minuten Dehnen reichen. Mein Sohn ist jetzt 12. Er spielt Fußball."
)


@pytest.mark.parametrize("cut", [split_sentences, units])
def test_a_date_or_a_title_does_not_end_a_sentence(cut: object) -> None:
    sentences = cut(TEXT)  # type: ignore[operator]
    assert any("am 29. Juni, meine Freundin" in s for s in sentences)
    assert any(s.startswith("Dr. Weber meint, ca. 30 Minuten") for s in sentences)
    assert not any(s.endswith(("29.", "Dr.", "ca.")) for s in sentences)


def test_a_number_before_any_other_word_still_ends_a_sentence() -> None:
    assert "Mein Sohn ist jetzt 12." in units(TEXT)
    assert units("Wir sind am 3.\nJuni kommt später.") == ["Wir sind am 3.", "Juni kommt später."], "a line break cuts"


def test_an_excerpt_shows_the_date_whole() -> None:
    long = TEXT + " " + " ".join(f"Noch ein langer Satz über das Training Nummer {i} ohne Datum." for i in range(12))
    shown = excerpt(long, ["user: Halbmarathon Hamburg am 29. Juni, meine Freundin Sanne läuft mit."], "Wann lief sie?")
    assert shown is not None and "am 29. Juni" in shown
