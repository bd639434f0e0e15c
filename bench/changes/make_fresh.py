"""Write a change-over-time chat written apart from every other chat in ``bench/data``.

    python bench/changes/make_fresh.py [--out bench/data/changes_fresh.json]

One user/assistant chat, seven sessions from February to December 2022: a cook in Amsterdam whose
home, work, partner, caffeine, diet, eyesight, driving, social media, animals and mornings change.
Ten ``update`` questions (present tense; evidence = the turn with the NEWEST statement, often said in
other words than the question's), two ``past`` questions and one ``static`` one (said once, mentioned
in passing later). Later sessions mention old states in passing and hold small talk sharing the
questions' words. Written before the recency rule it checks was changed, and meant to be run once, at
the end. LoCoMo layout, so ``changes_bench.py --data FILE`` and ``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

U, A = "user", "assistant"
Session = tuple[str, list[tuple[str, str]]]
Question = tuple[str, str, str, str]  # (question, answer, text that starts the evidence turn, kind)

SESSIONS: list[Session] = [
    (
        "10:15 am on 12 February, 2022",
        [
            (U, "Hoi! Writing from the houseboat, we're moored on the Amstel in Amsterdam and it's freezing."),
            (A, "A houseboat on the Amstel sounds romantic, if chilly in February."),
            (U, "I'm a sous-chef at a bistro in De Pijp, so I need a quick staff meal idea for twelve."),
            (A, "A big tray of roasted vegetable orzo is cheap, fast and feeds a crowd."),
            (U, "Perfect, nothing with meat though, I haven't touched it since I was sixteen."),
            (A, "Orzo with peppers, courgette and feta is fully vegetarian."),
            (U, "My girlfriend Priya says I should write these recipes down."),
            (A, "She's right, a notebook of staff meals could become a lovely collection."),
            (U, "I post my plating photos on Instagram every single night after service anyway."),
            (A, "Then you already have half a cookbook in pictures."),
            (U, "Shifts end around one in the morning so I never get up before eleven."),
            (A, "Late service makes for late mornings, that's the cook's rhythm."),
            (U, "And no caffeine for me, it gives me the jitters, I live on rooibos."),
            (A, "Rooibos is a good choice, naturally caffeine free."),
            (U, "What's a good way to keep a boat cabin warm without a huge bill?"),
            (A, "Insulate the windows with film, use a small diesel heater and thick rugs."),
        ],
    ),
    (
        "4:40 pm on 3 April, 2022",
        [
            (U, "Spring at last. Can you explain how sourdough starters work?"),
            (A, "Wild yeast and bacteria ferment the flour; you feed it flour and water daily."),
            (U, "I failed my driving test again this week, second time, the roundabouts got me."),
            (A, "Roundabouts trip up a lot of learners; a couple of extra lessons on them will help."),
            (U, "My brother Daan is a driving instructor, funnily enough, but he refuses to teach family."),
            (A, "Probably wise for both of you."),
            (U, "I'm also blind as a bat without my glasses, which doesn't help on the road."),
            (A, "Make sure your prescription is up to date before the next test."),
            (U, "Priya and I are planning a vegetarian dinner party for her birthday."),
            (A, "A mezze spread with hummus, falafel and roasted aubergine would be festive."),
            (U, "Still off caffeine, so I'll make a hibiscus iced tea for everyone."),
            (A, "Hibiscus iced tea is bright and looks great on a table."),
            (U, "What's the tallest building in the Netherlands?"),
            (A, "The Zalmhaven tower in Rotterdam, at about 215 metres."),
            (U, "Good to know for the pub quiz tonight."),
            (A, "Good luck at the quiz!"),
        ],
    ),
    (
        "8:05 pm on 21 May, 2022",
        [
            (U, "Rough month. Priya and I split up a few weeks ago, she took a job in Toronto."),
            (A, "I'm sorry, that's a hard thing to go through, especially with distance involved."),
            (U, "Thanks. I've also deleted Instagram and TikTok, I was doom-scrolling at 3am after service."),
            (A, "Stepping away from the feeds can really help with sleep and mood."),
            (U, "The bistro is brutal right now, double shifts every weekend."),
            (A, "Make sure you eat something proper before service, not just tastings."),
            (U, "What are good stretches for a sore lower back from standing all day?"),
            (A, "Cat-cow, child's pose and knee-to-chest stretches help; a cushioned mat at the pass too."),
            (U, "The boat's too small for any pets, which is a shame, I'd love a dog."),
            (A, "A boat is tricky for a dog; maybe one day with more space."),
            (U, "Do you know a good film for a lonely Sunday?"),
            (A, "Paddington 2 is warm and funny, hard to feel low watching it."),
            (U, "Ha, Priya loved that one. Maybe something else."),
            (A, "Then try Chef, a food film about starting over."),
        ],
    ),
    (
        "11:30 am on 9 July, 2022",
        [
            (U, "Big news: I passed my driving test on the third go, roundabouts and all!"),
            (A, "Congratulations! Third time lucky."),
            (U, "And we sold the boat, I picked up the keys to a one-bed flat in Utrecht last week."),
            (A, "A new city and a licence in one month, what a summer."),
            (U, "The commute to the bistro in Amsterdam is long though, forty minutes on the train."),
            (A, "You could use the train time to plan menus or read."),
            (U, "What's a good cheap first car for someone who just got their licence?"),
            (A, "A used Toyota Yaris or Kia Picanto: reliable, cheap to insure and easy to park."),
            (U, "My neighbour downstairs has a cat that keeps visiting my balcony."),
            (A, "Sounds like you've been adopted part time."),
            (U, "How do I hang shelves on a plaster wall?"),
            (A, "Use plasterboard fixings or find the studs, and check for pipes first."),
            (U, "Thanks, Daan is coming to help me unpack on Saturday."),
            (A, "Nice of him; pizza is the traditional payment for moving help."),
        ],
    ),
    (
        "7:20 pm on 27 August, 2022",
        [
            (
                U,
                "I handed in my notice at the bistro. "
                "From September I'll be teaching cookery at the ROC community college.",
            ),
            (A, "That's a big change, from the pass to the classroom."),
            (U, "Also, I've been seeing someone new. Tomás, he's a carpenter, we met at a market in Utrecht."),
            (A, "That's lovely news, I'm glad things are looking up."),
            (U, "He made me a chopping board as a second-date present."),
            (A, "A handmade chopping board is a thoughtful gift for a cook."),
            (U, "How do I plan a lesson for sixteen-year-olds who've never held a knife?"),
            (A, "Start with safety and the claw grip, then one simple dish they can finish in the hour."),
            (U, "My old head chef wants to take me out for a farewell dinner."),
            (A, "A good send-off is a nice way to leave on good terms."),
            (U, "What's the difference between a Santoku and a chef's knife?"),
            (A, "A Santoku is shorter with a flat edge for chopping; a chef's knife is curved for rocking."),
            (U, "I'll get the students a set of cheap Santokus then."),
            (A, "Good plan, they're easy for beginners to control."),
        ],
    ),
    (
        "9:00 am on 15 October, 2022",
        [
            (U, "Morning! Classes start at eight, so my alarm goes at half six now, every weekday."),
            (A, "Quite the change from late service hours."),
            (U, "Tomás bought me a moka pot and I'm hooked on espresso again, two a day before class."),
            (A, "A moka pot makes a strong cup; just go easy if the jitters come back."),
            (U, "I finally had my eyes lasered in September, no more specs, I can see the board from the back."),
            (A, "That must feel freeing, especially in a kitchen full of steam."),
            (U, "A student asked me what the best knife for a beginner is, I said a Santoku."),
            (A, "A sensible answer for small hands and careful cutting."),
            (U, "An old neighbour from the Amsterdam moorings came to visit Utrecht last weekend."),
            (A, "Nice to stay in touch with the boat community."),
            (U, "What's an easy autumn soup for a class of twenty?"),
            (A, "Pumpkin and ginger soup: cheap, quick and forgiving."),
            (U, "My sister-in-law swears by instant coffee, I told her that's a crime."),
            (A, "Coffee opinions run deep in every family."),
        ],
    ),
    (
        "6:45 pm on 3 December, 2022",
        [
            (U, "We adopted a retired racing greyhound from a rescue, Biscuit, he sleeps twenty hours a day."),
            (A, "Greyhounds are famously lazy at home, he sounds perfect."),
            (
                U,
                "Tomás's mum cooked her beef stew for us and honestly I'm eating meat again now, "
                "mostly chicken and the odd steak.",
            ),
            (A, "Tastes can change; eat what feels right to you."),
            (U, "Tomás needs reading glasses now, he's been squinting at his plans."),
            (A, "Happens to most of us after forty."),
            (U, "Daan wants to give Biscuit a Christmas jumper, is that silly?"),
            (A, "Greyhounds do feel the cold, so a jumper is practical as well as cute."),
            (U, "What's a good vegetarian main for Christmas for my old friends from the bistro?"),
            (A, "A mushroom and chestnut Wellington is festive and filling."),
            (U, "How long should I rest a roast chicken?"),
            (A, "About fifteen to twenty minutes under loose foil."),
            (U, "Thanks, merry early Christmas!"),
            (A, "Merry Christmas to you, Tomás and Biscuit!"),
        ],
    ),
]

QUESTIONS: list[Question] = [
    ("Where is the user living?", "A one-bed flat in Utrecht", "And we sold the boat", "update"),
    ("What does the user do for work?", "Teaches cookery at a community college", "I handed in my notice", "update"),
    ("Who is the user's partner?", "Tomás, a carpenter", "Also, I've been seeing someone new", "update"),
    ("Does the user drink coffee?", "Yes, espresso from a moka pot, two a day", "Tomás bought me a moka pot", "update"),
    ("Is the user vegetarian?", "No, eats meat again (chicken, the odd steak)", "Tomás's mum cooked", "update"),
    ("Does the user wear glasses?", "No, had laser eye surgery", "I finally had my eyes lasered", "update"),
    ("Can the user drive?", "Yes, passed the driving test on the third attempt", "Big news: I passed", "update"),
    ("Is the user on social media?", "No, deleted Instagram and TikTok", "Thanks. I've also deleted", "update"),
    ("Does the user have any animals at home?", "A rescue greyhound called Biscuit", "We adopted a retired", "update"),
    ("What time does the user get up?", "Half past six on weekdays", "Morning! Classes start at eight", "update"),
    ("What is the name of the user's brother?", "Daan", "My brother Daan", "static"),
    ("Where did the user live before Utrecht?", "A houseboat on the Amstel in Amsterdam", "Hoi! Writing from", "past"),
    ("What was the user's job before teaching?", "Sous-chef at a bistro in De Pijp", "I'm a sous-chef", "past"),
]


def build() -> list[dict[str, object]]:
    conversation: dict[str, object] = {"speaker_a": U, "speaker_b": A}
    turns: dict[str, str] = {}
    for number, (when, lines) in enumerate(SESSIONS, start=1):
        conversation[f"session_{number}_date_time"] = when
        rows = []
        for index, (speaker, text) in enumerate(lines, start=1):
            dia = f"D{number}:{index}"
            rows.append({"speaker": speaker, "dia_id": dia, "text": text})
            turns[dia] = text
        conversation[f"session_{number}"] = rows
    qa = []
    for question, answer, start, kind in QUESTIONS:
        ids = [dia for dia, text in turns.items() if text.startswith(start)]
        if len(ids) != 1:
            raise SystemExit(f"evidence for {question!r}: {ids}")
        qa.append({"question": question, "answer": answer, "evidence": ids, "category": 4, "kind": kind})
    return [{"sample_id": "changes-utrecht", "conversation": conversation, "qa": qa}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "data" / "changes_fresh.json"))
    args = parser.parse_args()
    Path(args.out).write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
