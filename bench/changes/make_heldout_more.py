"""Write more change-over-time chats, written apart from the suite and from ``make_heldout.py``.

    python bench/changes/make_heldout_more.py [--out-dir bench/data]

Three user/assistant chats of seven or eight sessions over months, each with eight things about the
user that change and questions of three kinds (``kind``):

- ``update``: asks about the present; evidence is the turn with the NEWEST statement;
- ``past``: asks about an earlier state; evidence is the earlier statement;
- ``static``: asks about something said once that never changes (a sister's name, a dog's name),
  in the present tense, while a later session mentions the same thing in passing (small talk).

Later sessions also mention an old state in passing ("my friend from Manchester is visiting") and
hold small talk that shares the question's words ("tips for a job interview for my brother"). One
chat gives its session times in ISO form. Two chats go to ``changes_heldout_more.json`` (a check
while working on the recency rule); the third goes to ``changes_unseen.json`` and is meant to be run
only once a rule is settled. LoCoMo layout, so ``changes_bench.py --data FILE`` and
``anchormem eval locomo`` run on them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

U, A = "user", "assistant"
Session = tuple[str, list[tuple[str, str]]]
Question = tuple[str, str, str, str]  # (question, answer, text that starts the evidence turn, kind)

BRISTOL: list[Session] = [
    (
        "9:05 am on 14 March, 2022",
        [
            (U, "Morning. I live in Manchester, in a terraced house in Chorlton, and the rain here never stops."),
            (A, "Chorlton is a lovely part of Manchester, even in the rain."),
            (U, "Quick one: I'm an accountant at a big firm and need a polite way to decline a meeting."),
            (A, "Thank them, say you have a clash, and offer two other times."),
            (U, "I've given up coffee completely, herbal tea only now. Any good blends?"),
            (A, "Try rooibos with vanilla, or a peppermint and liquorice blend."),
            (U, "And I run 5k every morning before work, along the Mersey."),
            (A, "A morning 5k is a great habit."),
        ],
    ),
    (
        "7:30 pm on 2 May, 2022",
        [
            (U, "What's a good board game for four people?"),
            (A, "Ticket to Ride is easy to learn and fun with four."),
            (U, "My boyfriend Tom loves strategy games, he'd want something harder."),
            (A, "Then try Terraforming Mars or Brass: Birmingham."),
            (U, "I've been vegetarian for ten years, what should I cook for game night?"),
            (A, "A big chilli with beans and sweet potato feeds four easily."),
            (U, "My sister Hannah is coming too, she's bringing dessert."),
            (A, "Sounds like a lovely evening."),
            (U, "I drive a little red Fiat 500, can four people fit in it for a day trip?"),
            (A, "Four will fit, but the boot is tiny, so pack light."),
        ],
    ),
    (
        "12:40 pm on 19 June, 2022",
        [
            (U, "Tax season at the firm is finally over, I can breathe."),
            (A, "Well done surviving it."),
            (U, "I'm training for a half marathon in October, how long should my long runs be?"),
            (A, "Build up to 16-18 km by September, adding about 10% a week."),
            (U, "How do I keep basil alive on a windowsill?"),
            (A, "Water when the top of the soil is dry and pinch out the flowers."),
            (U, "No coffee for me at the café today, just a mint tea as always."),
            (A, "Mint tea on a summer day sounds good."),
            (U, "Our cat Pickles knocked the basil over anyway."),
            (A, "Cats and windowsill herbs rarely get along."),
        ],
    ),
    (
        "6:15 pm on 28 August, 2022",
        [
            (U, "Tom and I broke up last week. It was mutual but I'm sad."),
            (A, "I'm sorry. Give yourself time, and lean on friends."),
            (U, "Can you give me a recipe for veggie lasagne? Comfort food needed."),
            (A, "Layer roasted courgette, spinach and ricotta with tomato sauce and pasta sheets, bake 40 minutes."),
            (U, "What's the capital of Canada?"),
            (A, "Ottawa."),
        ],
    ),
    (
        "10:20 am on 9 October, 2022",
        [
            (U, "Big news: we finally made the move down south, I'm in a flat in Bristol near the harbour now."),
            (A, "Bristol's harbourside is beautiful, congratulations on the move."),
            (U, "I sold the Fiat before moving, I take the bus everywhere these days."),
            (A, "Bristol's buses go most places, and no parking worries."),
            (U, "I've also been seeing someone new, Ravi, he's a chef."),
            (A, "How lovely, a chef is a good person to date."),
            (U, "How do I remove limescale from a kettle?"),
            (A, "Boil half water, half vinegar, leave it an hour, rinse well."),
        ],
    ),
    (
        "5:50 pm on 20 November, 2022",
        [
            (U, "I handed in my notice at the firm and started as a primary school teacher, year three class."),
            (A, "What a change, the children are lucky to have you."),
            (U, "Also I started eating fish again, my doctor said I need more iron and omega-3."),
            (A, "Oily fish like salmon and sardines are good for both."),
            (U, "Sad news, Pickles passed away, she was seventeen."),
            (A, "I'm so sorry, seventeen is a long and loved life."),
            (U, "Suggest a film for a rainy Sunday?"),
            (A, "'The Grand Budapest Hotel'."),
        ],
    ),
    (
        "8:10 am on 15 January, 2023",
        [
            (U, "I'm back on espresso, two a day, the school staffroom machine converted me."),
            (A, "A staffroom espresso machine is dangerous."),
            (U, "Since the knee surgery I've swapped running for pilates twice a week."),
            (A, "Pilates is kind to knees and builds core strength."),
            (U, "We adopted a puppy named Juno, a cocker spaniel, she chews everything."),
            (A, "Puppies chew, give her plenty of toys."),
            (U, "My friend from Manchester is visiting this weekend, where should we eat?"),
            (A, "Try the street food at Cargo or a harbourside restaurant."),
            (U, "And my brother has a job interview on Monday, any tips I can pass on?"),
            (A, "Research the company, prepare three examples, and ask them a question at the end."),
            (U, "My sister is fine by the way, she says hi."),
            (A, "Say hi back."),
        ],
    ),
]

BRISTOL_QUESTIONS: list[Question] = [
    ("Where does the user live?", "Bristol, near the harbour", "Big news: we finally made", "update"),
    ("What is the user's job?", "Primary school teacher", "I handed in my notice", "update"),
    ("Who is the user dating?", "Ravi, a chef", "I've also been seeing someone new", "update"),
    ("Does the user drink coffee now?", "Yes, espresso twice a day", "I'm back on espresso", "update"),
    ("Is the user vegetarian?", "No, eats fish again", "Also I started eating fish", "update"),
    ("What exercise does the user do?", "Pilates twice a week", "Since the knee surgery", "update"),
    ("How does the user get around?", "By bus", "I sold the Fiat", "update"),
    ("What pet does the user have?", "A cocker spaniel puppy called Juno", "We adopted a puppy", "update"),
    ("What is the name of the user's sister?", "Hannah", "My sister Hannah is coming", "static"),
    ("Where did the user live before Bristol?", "Manchester (Chorlton)", "Morning. I live in Manchester", "past"),
    ("What was the user's job before teaching?", "Accountant", "Quick one: I'm an accountant", "past"),
]

LONDON: list[Session] = [
    (
        "2024-01-06T18:20:00Z",
        [
            (U, "Hi! I work in the IT department at Lloyds, the bank, and I need a template for a status report."),
            (A, "Sections: summary, done this week, next week, risks, and asks."),
            (U, "I'm renting a room in a shared house in Hackney, five of us and one bathroom."),
            (A, "A rota for the bathroom might save some arguments."),
            (U, "I'm trying to cut down, still about ten cigarettes a day."),
            (A, "Cutting down is a start; nicotine patches can help with the rest."),
            (U, "I cycle to work along the canal, it takes half an hour."),
            (A, "A canal route keeps you off the busy roads."),
            (U, "Also learning Spanish on Duolingo, 40-day streak!"),
            (A, "¡Muy bien! Keep the streak going."),
        ],
    ),
    (
        "2024-02-17T11:05:00Z",
        [
            (U, "My girlfriend Aisha wants to go to Lisbon for her birthday, what should we see?"),
            (A, "Alfama, the Belém tower, tram 28 and a day trip to Sintra."),
            (U, "My brother Danny says Porto is better, he went last year."),
            (A, "Both are great; Porto is smaller and cheaper."),
            (U, "My ancient iPhone 8 takes terrible photos, is it worth upgrading before the trip?"),
            (A, "An upgrade would make a big difference to low-light photos."),
            (U, "Had a smoke break in the rain today, not my finest moment."),
            (A, "Rainy smoke breaks are a good reason to quit."),
        ],
    ),
    (
        "2024-04-02T20:45:00Z",
        [
            (U, "Our dog Pepper, a scruffy terrier, stole a whole baguette off the table."),
            (A, "Terriers are opportunists, keep bread out of reach."),
            (U, "The bank's new payment system goes live next week and my team is on call."),
            (A, "Good luck with the launch; make sure there's a rollback plan."),
            (U, "How long should I boil an egg for a runny yolk?"),
            (A, "Six minutes from boiling water."),
            (U, "Every Friday it's a pint or three at the pub with the team."),
            (A, "Friday pints are a tradition for a reason."),
        ],
    ),
    (
        "2024-05-25T09:30:00Z",
        [
            (U, "I dropped the Spanish, we booked Japan for the autumn so I've started Japanese evening classes."),
            (A, "Japanese is a big challenge, start with hiragana."),
            (U, "Which houseplants are safe for dogs?"),
            (A, "Spider plants, calatheas and Boston ferns are safe."),
            (U, "What's a good podcast for a long walk?"),
            (A, "'Desert Island Discs' has decades of episodes."),
        ],
    ),
    (
        "2024-07-13T16:00:00Z",
        [
            (U, "Three months without a single cigarette! The patches worked."),
            (A, "Three months smoke-free is a big achievement, well done."),
            (U, "And we got the keys to our own flat in Walthamstow, no more shared bathroom!"),
            (A, "Your own place, congratulations, enjoy Walthamstow's market."),
            (U, "What colour should I paint a small north-facing room?"),
            (A, "Warm whites or soft yellows make a north-facing room feel brighter."),
        ],
    ),
    (
        "2024-09-21T12:15:00Z",
        [
            (U, "First week at Monzo done, it's so much more relaxed than the bank."),
            (A, "Congratulations on the new job, glad it feels relaxed."),
            (U, "The Overground gets me in in twenty minutes now, no more cycling in the rain."),
            (A, "Twenty minutes on the Overground is a good commute."),
            (U, "Aisha and I got engaged at the weekend!"),
            (A, "Congratulations to you both, that's wonderful news!"),
            (U, "Got a Pixel 8 too, finally switched to Android."),
            (A, "The Pixel camera is excellent, enjoy it."),
        ],
    ),
    (
        "2024-11-30T19:40:00Z",
        [
            (U, "I've been completely sober since September, I feel so much better in the mornings."),
            (A, "That's a real change, well done."),
            (U, "Know any dog-friendly pubs in east London? Alcohol-free beer is fine by me."),
            (A, "Many pubs in Walthamstow Village welcome dogs; ask about their alcohol-free options."),
            (U, "Japan was amazing, by the way. How do I make proper ramen broth?"),
            (A, "Simmer pork bones for 10-12 hours, skimming often, then season with tare."),
            (U, "My old manager at the bank emailed to ask how I'm doing."),
            (A, "Nice of them to keep in touch."),
        ],
    ),
]

LONDON_QUESTIONS: list[Question] = [
    ("Where does the user work now?", "Monzo", "First week at Monzo", "update"),
    ("Where does the user live these days?", "Own flat in Walthamstow", "And we got the keys", "update"),
    ("Does the user smoke?", "No, quit (three months without a cigarette)", "Three months without", "update"),
    ("What is the user's relationship status?", "Engaged to Aisha", "Aisha and I got engaged", "update"),
    ("Which language is the user learning?", "Japanese", "I dropped the Spanish", "update"),
    ("What phone does the user have?", "A Pixel 8", "Got a Pixel 8", "update"),
    ("Does the user drink alcohol?", "No, sober since September", "I've been completely sober", "update"),
    ("How does the user get to work?", "By Overground", "The Overground gets me in", "update"),
    ("What is the name of the user's dog?", "Pepper", "Our dog Pepper", "static"),
    ("What is the user's brother called?", "Danny", "My brother Danny says", "static"),
    ("Where did the user work before Monzo?", "Lloyds bank, IT department", "Hi! I work in the IT", "past"),
]

MONTREAL: list[Session] = [
    (
        "11:30 am on 4 April, 2021",
        [
            (U, "Bonjour! I'm in Lyon, I work as a barista in a little café by the Saône."),
            (A, "Lyon by the Saône sounds idyllic."),
            (U, "I basically live on coffee, four or five cups a day, I love the stuff."),
            (A, "That's a lot of coffee, but a barista has an excuse."),
            (U, "I've been vegan for two years, any ideas for a quick lunch?"),
            (A, "A chickpea and avocado wrap with lemon and herbs."),
            (U, "My mum Claudine calls every Sunday to check I'm eating properly."),
            (A, "Sunday calls with your mum are a lovely habit."),
        ],
    ),
    (
        "3:10 pm on 22 May, 2021",
        [
            (U, "Went bouldering after my shift again, climbing is my favourite thing."),
            (A, "Bouldering is a great full-body workout."),
            (U, "What's a good stretch for tight forearms?"),
            (A, "Wrist flexor stretch: arm straight, palm up, pull the fingers gently back."),
            (U, "I drive my old Peugeot to the climbing gym, parking is a nightmare."),
            (A, "Maybe the gym has a deal with a nearby car park."),
            (U, "How do you say 'I'm running late' in German?"),
            (A, "'Ich bin spät dran.'"),
        ],
    ),
    (
        "8:00 pm on 3 July, 2021",
        [
            (U, "I'm single and not looking, work and climbing keep me busy."),
            (A, "That's a fine place to be."),
            (U, "Studying for a master's in design part time, the thesis is due next spring."),
            (A, "Part-time study alongside work is demanding, pace yourself."),
            (U, "Another triple espresso to get through the reading, coffee is life."),
            (A, "Maybe keep the last one before 3 pm so you can sleep."),
            (U, "Recommend a podcast about typography?"),
            (A, "'99% Invisible' covers design and type often."),
        ],
    ),
    (
        "10:45 am on 18 September, 2021",
        [
            (U, "What's the best way to fold a fitted sheet?"),
            (A, "Tuck the corners into each other, lay it flat, and fold into a rectangle."),
            (U, "Still climbing three times a week, I finally sent a V5."),
            (A, "A V5 is a real milestone."),
            (U, "Which is older, Rome or Athens?"),
            (A, "Athens, by several centuries."),
        ],
    ),
    (
        "1:20 pm on 6 December, 2021",
        [
            (U, "Huge news, I accepted an offer and I'm moving to Montreal in January!"),
            (A, "Montreal! Pack for the cold."),
            (U, "I met a wonderful guy at a friend's party, Mathieu, we've had three dates."),
            (A, "Three dates and counting, how exciting."),
            (U, "How do people survive minus twenty?"),
            (A, "Layers, a good parka, and a warm hat and mittens."),
        ],
    ),
    (
        "9:40 am on 12 February, 2022",
        [
            (U, "Settled in the Plateau now, and I've just started as a junior UX designer at a games studio."),
            (A, "The Plateau is lovely and a games studio sounds fun, congratulations."),
            (U, "I sold the Peugeot before leaving France, I ride an e-bike here, even in the snow."),
            (A, "Studded tyres will help on the ice."),
            (U, "Where can I buy good bagels?"),
            (A, "St-Viateur and Fairmount are the classic Montreal bagel shops."),
        ],
    ),
    (
        "7:25 pm on 30 April, 2022",
        [
            (U, "I handed in my thesis and graduated last week, I'm officially done with my master's."),
            (A, "Congratulations on finishing your master's."),
            (U, "My shoulder injury ended the climbing, so I've taken up pottery on Thursday nights instead."),
            (A, "Pottery is calming, enjoy the wheel."),
            (U, "I quit caffeine, the anxiety was too much, just decaf and water now."),
            (A, "Cutting caffeine often helps with anxiety."),
            (U, "What should I bring to a dinner party?"),
            (A, "A bottle of wine or a dessert is always welcome."),
        ],
    ),
    (
        "6:05 pm on 18 August, 2022",
        [
            (U, "Mathieu and I got married at the city hall last Saturday, tiny and perfect."),
            (A, "Congratulations to you both!"),
            (U, "I eat eggs and cheese again now, fully vegan was too hard with our cooking, I'm vegetarian."),
            (A, "Vegetarian with eggs and cheese makes shared cooking easier."),
            (U, "My mum is coming over from Lyon for a visit next month, what should we show her?"),
            (A, "Old Montreal, the Jean-Talon market and a walk up Mount Royal."),
            (U, "Any tips for a friend who wants to start climbing?"),
            (A, "Start with bouldering, learn to fall safely, and rest between sessions."),
        ],
    ),
]

MONTREAL_QUESTIONS: list[Question] = [
    ("Where does the user live?", "Montreal (the Plateau)", "Settled in the Plateau", "update"),
    ("What does the user do for a living?", "Junior UX designer at a games studio", "Settled in the Plateau", "update"),
    ("Does the user drink coffee?", "No, quit caffeine; decaf and water", "I quit caffeine", "update"),
    ("Is the user married?", "Yes, to Mathieu", "Mathieu and I got married", "update"),
    (
        "What diet does the user follow now?",
        "Vegetarian (eggs and cheese again)",
        "I eat eggs and cheese again",
        "update",
    ),
    ("What is the user's hobby?", "Pottery", "My shoulder injury ended", "update"),
    ("How does the user get around?", "By e-bike", "I sold the Peugeot", "update"),
    ("Is the user still studying?", "No, graduated with a master's", "I handed in my thesis", "update"),
    ("What is the name of the user's mother?", "Claudine", "My mum Claudine", "static"),
    ("What did the user do for work in Lyon?", "Barista", "Bonjour! I'm in Lyon", "past"),
    ("Which sport did the user do before the shoulder injury?", "Climbing (bouldering)", "Went bouldering", "past"),
]

CHATS: dict[str, list[tuple[str, list[Session], list[Question]]]] = {
    "changes_heldout_more.json": [
        ("changes-bristol", BRISTOL, BRISTOL_QUESTIONS),
        ("changes-london", LONDON, LONDON_QUESTIONS),
    ],
    "changes_unseen.json": [("changes-montreal", MONTREAL, MONTREAL_QUESTIONS)],
}


def build(sample_id: str, sessions: list[Session], questions: list[Question]) -> dict[str, object]:
    conversation: dict[str, object] = {"speaker_a": U, "speaker_b": A}
    ids: dict[str, str] = {}
    for n, (date, turns) in enumerate(sessions, 1):
        conversation[f"session_{n}_date_time"] = date
        rows = []
        for i, (speaker, text) in enumerate(turns, 1):
            rows.append({"speaker": speaker, "dia_id": f"D{n}:{i}", "text": text})
            ids[text] = f"D{n}:{i}"
        conversation[f"session_{n}"] = rows
    qa = []
    for question, answer, start, kind in questions:
        (evidence,) = [dia for text, dia in ids.items() if text.startswith(start)]
        category = {"update": 4, "past": 2, "static": 1}[kind]
        qa.append({"question": question, "answer": answer, "evidence": [evidence], "category": category, "kind": kind})
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def write_chat(doc: str, file_name: str, sample_id: str, sessions: list[Session], questions: list[Question]) -> None:
    """The command line of a one-chat generator: write ``bench/data/<file_name>`` (or ``--out``) and say what
    it holds."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "data" / file_name))
    args = parser.parse_args()
    sample = build(sample_id, sessions, questions)
    Path(args.out).write_text(json.dumps([sample], indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    kinds = [q[3] for q in questions]
    counts = ", ".join(f"{k} {kinds.count(k)}" for k in sorted(set(kinds)))
    print(f"wrote {args.out}: 1 chat, {len(sessions)} sessions, {counts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=str(Path(__file__).parents[1] / "data"))
    args = parser.parse_args()
    for name, chats in CHATS.items():
        path = Path(args.out_dir) / name
        samples = [build(*chat) for chat in chats]
        path.write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        kinds = [q["kind"] for s in samples for q in s["qa"]]  # type: ignore[attr-defined]
        print(f"wrote {path}: {len(samples)} chats, " + ", ".join(f"{k} {kinds.count(k)}" for k in sorted(set(kinds))))


if __name__ == "__main__":
    main()
