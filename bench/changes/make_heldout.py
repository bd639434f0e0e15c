"""Write the held-out change-over-time chat: one user/assistant chat written apart from the suite.

    python bench/changes/make_heldout.py [--out bench/data/changes_heldout.json]

Seven sessions (February to December 2023), other topics and other phrasing than
``make_suite.py``: facts come inside longer messages, the new state is often said without the
question's words ("a flat white at the café on the corner" for coffee, "pedal in on the Brompton"
for commuting), and the small talk is different. Nine "update" questions ask about the present
(evidence: the turn with the NEWEST statement). This file is a check, not a tuning set: rules are
not tuned on it. LoCoMo layout, so ``changes_bench.py --data bench/data/changes_heldout.json`` and
``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from make_heldout_more import build as build_sample  # the LoCoMo layout, written once

U, A = "user", "assistant"

SESSIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "8:45 am on 6 February, 2023",
        [
            (
                U,
                "Morning! Stuck on the tube again, the Northern line is a mess. Can you tell me how sourdough "
                "starters work?",
            ),
            (
                A,
                "A starter is flour and water colonised by wild yeast and bacteria; you feed it daily and it leavens "
                "bread.",
            ),
            (
                U,
                "Nice. I'm strictly a tea person by the way, caffeine keeps me up all night, so something to go with "
                "a pot of Earl Grey.",
            ),
            (A, "A slice of sourdough toast with butter and marmalade goes well with Earl Grey."),
            (U, "Our flat in Glasgow has a tiny kitchen, so nothing that needs a big mixer."),
            (A, "Sourdough only needs a bowl and your hands, so a small Glasgow kitchen is fine."),
            (U, "What's the tallest mountain in Scotland?"),
            (A, "Ben Nevis, 1,345 metres."),
        ],
    ),
    (
        "7:20 pm on 19 March, 2023",
        [
            (U, "Long week of nights on the ward. Being a nurse on the night shift does strange things to your sleep."),
            (A, "Night shifts are hard on the body; blackout blinds and a fixed sleep window help."),
            (U, "Can you recommend a film for a lazy evening?"),
            (A, "'Paddington 2' never fails."),
            (U, "I've picked up the ukulele to unwind, only four chords so far."),
            (A, "Four chords cover hundreds of songs, you're off to a good start."),
            (U, "Also the landlord says no pets, which is a shame, I'd love a dog."),
            (A, "Maybe a future flat will allow one."),
        ],
    ),
    (
        "1:10 pm on 30 April, 2023",
        [
            (U, "How do I get a wine stain off a white shirt?"),
            (A, "Salt it, rinse from the back with cold water, then wash with a stain remover."),
            (U, "Tuesday five-a-side football is the highlight of my week, we won 6-2 last night."),
            (A, "6-2 is a proper win, well played."),
            (U, "Planning a barbecue, I basically eat meat with every meal, so burgers and ribs. Marinade ideas?"),
            (A, "Garlic, smoked paprika, brown sugar and cider vinegar make a good rib marinade."),
            (U, "Still single and honestly quite happy about it."),
            (A, "Good for you, enjoy the freedom."),
        ],
    ),
    (
        "6:30 pm on 12 June, 2023",
        [
            (U, "The tube was so hot today. Anyway, what's a good book for a train journey?"),
            (A, "'The Thursday Murder Club' is light and fun."),
            (U, "Ukulele update: I can play a wobbly 'Riptide' now."),
            (A, "Riptide is the classic ukulele song, great progress."),
            (U, "How long do you boil pasta for?"),
            (A, "Usually 9 to 11 minutes; check the packet and taste a minute early."),
            (U, "Another night shift run coming up at the hospital, tea and biscuits at 3 am as usual."),
            (A, "Pack some protein too, it keeps you steadier than biscuits."),
        ],
    ),
    (
        "10:05 am on 22 August, 2023",
        [
            (
                U,
                "Big change: we packed up the Glasgow flat and we've settled into a new place in Edinburgh, near "
                "Leith.",
            ),
            (A, "Leith is lovely, enjoy the shore walks."),
            (U, "What's the difference between a latte and a cappuccino?"),
            (A, "A cappuccino has more foam and less milk; a latte is milkier."),
            (U, "Also I met someone at a friend's wedding, Sam. We've been together two months now."),
            (A, "That's lovely news, I'm happy for you both."),
            (U, "Give me a packing list for a camping trip."),
            (A, "Tent, sleeping bag, mat, stove, head torch, water filter and layers."),
        ],
    ),
    (
        "4:40 pm on 3 October, 2023",
        [
            (
                U,
                "I tore a ligament in my knee, so no more football. I swim laps at the Commonwealth Pool three "
                "mornings a week instead.",
            ),
            (A, "Swimming is kind to knees, a good swap while you heal."),
            (U, "I retrained over the summer and now I'm a paramedic, first month on the ambulance done."),
            (A, "Congratulations, that's a big step from the ward."),
            (U, "What's a good houseplant for a dark corner?"),
            (A, "A snake plant or a ZZ plant copes with low light."),
            (U, "Oh and I gave the uke away, I've started cello lessons, my teacher is very patient."),
            (A, "The cello has a beautiful voice, enjoy the lessons."),
        ],
    ),
    (
        "9:15 am on 11 December, 2023",
        [
            (U, "These days I pedal in on my folding Brompton every morning, no more sweaty carriages."),
            (A, "A Brompton is perfect for city riding and folds under a desk."),
            (U, "We adopted a retired greyhound called Biscuit, the new landlord is fine with it."),
            (A, "Greyhounds make gentle pets, say hello to Biscuit."),
            (U, "Weirdly I now order a flat white at the café on the corner every morning, it's become a ritual."),
            (A, "A morning flat white is a nice ritual."),
            (U, "Since watching that documentary I've gone fully plant-based, lentils are my new best friend."),
            (A, "Lentils are a great base, try a red lentil dal."),
            (U, "What's a good gift for my niece who's turning ten?"),
            (A, "A science kit or a graphic novel."),
        ],
    ),
]

# (question, answer, text that starts the NEWEST statement's turn)
QUESTIONS: list[tuple[str, str, str]] = [
    ("How does the user commute these days?", "By folding Brompton bike", "These days I pedal in"),
    ("Is the user drinking coffee at the moment?", "Yes, a flat white every morning", "Weirdly I now order"),
    ("Which city is the user based in?", "Edinburgh (near Leith)", "Big change: we packed up"),
    ("What instrument does the user play now?", "The cello", "Oh and I gave the uke away"),
    ("What's the user's current occupation?", "Paramedic", "I retrained over the summer"),
    ("Does the user have a pet?", "Yes, a greyhound called Biscuit", "We adopted a retired greyhound"),
    ("What diet does the user follow?", "Plant-based", "Since watching that documentary"),
    ("Is the user in a relationship?", "Yes, with Sam", "Also I met someone"),
    ("What sport does the user do?", "Swimming laps", "I tore a ligament"),
]


def build() -> dict[str, object]:
    return build_sample("changes-heldout", SESSIONS, [(q, a, start, "update") for q, a, start in QUESTIONS])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "data" / "changes_heldout.json"))
    args = parser.parse_args()
    Path(args.out).write_text(json.dumps([build()], indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: 1 chat, {len(SESSIONS)} sessions, {len(QUESTIONS)} update questions")


if __name__ == "__main__":
    main()
