"""Write the change-over-time suite: user/assistant chats whose facts change over months.

    python bench/changes/make_suite.py [--out bench/data/changes_over_time.json]

Four conversations of eight sessions each (January to November 2024). In each, eight things about
the user change (city, job, partner, diet, drinks, pets, hobbies, …): the old state is said early and
often, the new one later and once, in different words. Every "update" question asks about the present
and its evidence is the NEWEST statement's turn; "past" questions ask about an earlier state and their
evidence is the earlier statement(s). Small-talk exchanges (recipes, e-mails, trip planning) fill the
sessions. The text is written for this suite. The layout is LoCoMo's, so
``anchormem eval locomo --data bench/data/changes_over_time.json --no-answer`` runs on it; each
question also carries ``kind`` ("update" or "past"), category 4 for updates and 2 for past questions.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

DATES = [  # (session date, time of day) per session, shared by the four chats with an offset in days
    (8, "January", "9:12 am"),
    (2, "February", "7:40 pm"),
    (21, "March", "12:05 pm"),
    (30, "April", "8:30 pm"),
    (14, "June", "10:18 am"),
    (27, "July", "6:55 pm"),
    (15, "September", "11:20 am"),
    (9, "November", "8:02 pm"),
]


@dataclass
class Topic:
    """Statements about one thing, by session (1-based), and the questions asked about it."""

    said: list[tuple[int, str, str]]  # (session, user turn, assistant reply); the last one is the newest
    question: str
    answer: str
    past: tuple[str, str, list[int]] | None = None  # (question, answer, indexes into ``said`` = evidence)
    extra: list[str] = field(default_factory=list)  # more present-tense wordings of ``question``


CHATS: list[list[Topic]] = [
    [
        Topic(
            [
                (
                    1,
                    "I don't drink coffee at all, it makes me jittery. Green tea is my thing.",
                    "Green tea is a gentle choice, and you skip the coffee crash.",
                ),
                (
                    3,
                    "Can you suggest an afternoon snack? No coffee with it though, I never touch coffee.",
                    "Sure: apple slices with peanut butter and a cup of tea.",
                ),
                (
                    7,
                    "Funny thing, I've started on flat whites again. One every morning before work.",
                    "A morning flat white is a nice ritual. Watch the afternoon ones if sleep suffers.",
                ),
            ],
            "Does the user drink coffee?",
            "Yes, a flat white every morning",
            ("What did the user drink instead of coffee at the start of the year?", "green tea", [0]),
        ),
        Topic(
            [
                (1, "I live in Leeds, ten minutes from the university.", "Leeds has a great food market."),
                (2, "Any good running routes where I live in Leeds?", "Try the canal towpath or Roundhay Park."),
                (5, "We moved to Bristol last weekend! Boxes everywhere.", "Congratulations on the move to Bristol!"),
                (
                    8,
                    "Big news: we've relocated again, this time to Lisbon for my partner's new post.",
                    "Lisbon! Enjoy the trams and the pastries.",
                ),
            ],
            "Where does the user live now?",
            "Lisbon",
            ("Where did the user live before moving to Bristol?", "Leeds", [0, 1]),
        ),
        Topic(
            [
                (
                    1,
                    "I work as a nurse at St James's hospital, mostly on the cardiac ward.",
                    "Nursing on a cardiac ward is demanding work.",
                ),
                (
                    4,
                    "Night shifts at the hospital are wearing me down, three in a row this week.",
                    "Three nights in a row is hard; keep your sleep dark and cool.",
                ),
                (
                    6,
                    "I handed in my notice. From Monday I'm a clinical trainer at a medical college.",
                    "A clinical trainer! Your ward experience will help the students.",
                ),
            ],
            "What does the user do for work?",
            "Clinical trainer at a medical college",
            ("What was the user's job at the beginning of the year?", "Nurse on a cardiac ward", [0]),
        ),
        Topic(
            [
                (
                    2,
                    "My boyfriend Tom and I are going hiking in the Dales this weekend.",
                    "Have a lovely hike with Tom, pack layers.",
                ),
                (3, "Tom cooked me a risotto last night, he's getting really good.", "Lucky you, enjoy Tom's cooking!"),
                (
                    6,
                    "Tom and I broke up last month. It was mutual, but still sad.",
                    "I'm sorry about the break-up. Be kind to yourself.",
                ),
                (
                    8,
                    "I've been seeing someone new, Alex. We met at the climbing wall.",
                    "That's lovely, I hope things go well with Alex.",
                ),
            ],
            "Who is the user dating?",
            "Alex",
        ),
        Topic(
            [
                (
                    1,
                    "I'm vegetarian, six years now, so no meat in any recipe please.",
                    "Noted: vegetarian recipes only.",
                ),
                (2, "Could you plan a vegetarian meal plan for the week?", "Here's a week of vegetarian dinners."),
                (
                    7,
                    "I've started eating fish and chicken again, my doctor said I need more protein.",
                    "Fish and chicken are both great protein sources.",
                ),
            ],
            "Is the user vegetarian?",
            "No, eats fish and chicken again",
            ("For how long had the user been vegetarian in January?", "Six years", [0]),
        ),
        Topic(
            [
                (1, "I cycle to work every day, rain or shine.", "Cycling daily is great exercise."),
                (
                    5,
                    "Since the move I take the train to work; the ride would be forty minutes of hills.",
                    "The train sounds much more sensible.",
                ),
            ],
            "How does the user get to work?",
            "By train",
        ),
        Topic(
            [
                (2, "I'm learning the piano, grade two pieces at the moment.", "Grade two, nice progress."),
                (4, "Piano practice is going slowly, my left hand is lazy.", "Try hands-separate drills."),
                (
                    7,
                    "I gave up the piano and picked up the violin instead. Squeaky so far!",
                    "Everyone squeaks on the violin at first.",
                ),
            ],
            "Which instrument is the user learning?",
            "The violin",
        ),
        Topic(
            [
                (1, "We have a cat named Miso who sleeps on my keyboard.", "Miso sounds like a character."),
                (6, "Miso sadly passed away last week. She was sixteen.", "I'm so sorry about Miso."),
                (8, "We adopted a puppy, a beagle called Pepper. Chaos!", "Pepper! Puppies are a handful."),
            ],
            "What pet does the user have?",
            "A beagle puppy called Pepper",
            ("What was the name of the user's cat?", "Miso", [0]),
        ),
    ],
    [
        Topic(
            [
                (1, "I drive an old Ford Fiesta, it's fifteen years old.", "Fiestas last forever."),
                (3, "The Fiesta failed its MOT again, brakes this time.", "Brakes are worth fixing properly."),
                (6, "I sold the old car and bought an electric Kia Niro.", "An electric Niro, great choice."),
            ],
            "What car does the user drive?",
            "An electric Kia Niro",
        ),
        Topic(
            [
                (2, "I go to the PureGym near the station three times a week.", "Three times a week is solid."),
                (
                    5,
                    "I cancelled my gym membership and joined a bouldering place called The Arch.",
                    "Bouldering is a fun change.",
                ),
            ],
            "Which gym does the user go to?",
            "The Arch, a bouldering gym",
        ),
        Topic(
            [
                (1, "I'm learning Spanish on Duolingo, day 200 of my streak.", "200 days of Spanish, impressive."),
                (3, "Can you give me Spanish phrases for ordering food?", "Sure: 'Quisiera…', 'La cuenta, por favor'."),
                (
                    7,
                    "I switched to Japanese because we're going to Tokyo in the spring.",
                    "Japanese will make Tokyo even better.",
                ),
            ],
            "What language is the user studying?",
            "Japanese",
            ("Which language was the user learning on Duolingo in January?", "Spanish", [0]),
        ),
        Topic(
            [
                (1, "I'm a junior developer at a fintech startup called Ledgerly.", "Fintech is a busy field."),
                (4, "Ledgerly pushed a big release today and I was on call.", "Hope the on-call night was quiet."),
                (7, "Today was my first day at the BBC as a backend engineer!", "Congratulations on the BBC job!"),
            ],
            "Where does the user work?",
            "The BBC, as a backend engineer",
            ("Which startup did the user work at before joining the BBC?", "Ledgerly", [0, 1]),
        ),
        Topic(
            [
                (
                    2,
                    "I rent a flat with two flatmates, the kitchen is always a mess.",
                    "Shared kitchens, the eternal war.",
                ),
                (
                    6,
                    "I bought my first flat! Living on my own for the first time.",
                    "Congratulations on your own place!",
                ),
            ],
            "Does the user live with flatmates?",
            "No, lives alone in their own flat",
        ),
        Topic(
            [
                (1, "I'm training for a 10k in March.", "A 10k is a great goal."),
                (
                    4,
                    "I signed up for the Cardiff half marathon in October instead of another 10k.",
                    "The half is a big step up, build slowly.",
                ),
                (
                    8,
                    "Now it's the full Manchester marathon in April, training starts this week.",
                    "A full marathon! Plan your long runs.",
                ),
            ],
            "What race is the user currently training for?",
            "The Manchester marathon",
        ),
        Topic(
            [
                (1, "I like a glass of red wine with dinner most evenings.", "A Rioja goes well with stews."),
                (3, "Which wine goes with lamb?", "A Malbec or a Syrah."),
                (
                    6,
                    "I've stopped drinking alcohol completely, three months without it now.",
                    "Three months alcohol-free, well done.",
                ),
            ],
            "Does the user drink alcohol?",
            "No, stopped completely",
        ),
        Topic(
            [
                (2, "I'm watching The Bear, it's stressful but brilliant.", "The Bear is intense."),
                (5, "Rewatching The Bear from the start with my sister.", "Rewatches catch so much."),
                (8, "I've moved on to Shogun, I can't stop watching it.", "Shogun is gorgeous."),
            ],
            "What show is the user watching?",
            "Shogun",
        ),
    ],
    [
        Topic(
            [
                (1, "I live in Toronto, the winters here are brutal.", "Toronto winters are no joke."),
                (2, "Toronto had another snowstorm, my street is buried.", "Stay warm!"),
                (7, "We moved out west to Vancouver last month, so much rain.", "Vancouver rain is famous."),
            ],
            "Which city does the user live in?",
            "Vancouver",
            ("Which city did the user live in during the winter?", "Toronto", [0, 1]),
        ),
        Topic(
            [
                (1, "I teach maths at a high school, year nine mostly.", "Year nine maths is a challenge."),
                (3, "Marking maths tests all weekend, again.", "Marking weekends are tiring."),
                (5, "I left teaching; I'm now a UX designer at a design agency.", "A big switch to UX design!"),
            ],
            "What is the user's job?",
            "UX designer at a design agency",
            ("What subject did the user teach?", "Maths", [0]),
        ),
        Topic(
            [
                (
                    1,
                    "I smoke about ten cigarettes a day, I know, I know.",
                    "Cutting down helps, whenever you're ready.",
                ),
                (3, "Had a cigarette break and thought about your tips.", "Every small step counts."),
                (6, "I quit smoking! Eight weeks without a single one.", "Eight weeks smoke-free, fantastic."),
            ],
            "Does the user smoke?",
            "No, quit",
        ),
        Topic(
            [
                (2, "My girlfriend Priya loves board games.", "Priya might like Wingspan."),
                (6, "Priya and I got engaged on the beach!", "Congratulations on the engagement!"),
                (8, "We got married in Goa last month, Priya is my wife now.", "Congratulations on the wedding!"),
            ],
            "What is the user's relationship status?",
            "Married to Priya",
        ),
        Topic(
            [
                (1, "I eat everything, I'm a big meat eater, steak is my favourite.", "A good steak is hard to beat."),
                (2, "Best way to grill a steak?", "Hot grill, rest it after."),
                (
                    5,
                    "I went vegan after watching a documentary about farming.",
                    "Vegan is a big change, plan your B12.",
                ),
            ],
            "Does the user eat meat?",
            "No, vegan now",
            ("What was the user's favourite food at the start of the year?", "Steak", [0]),
        ),
        Topic(
            [
                (1, "Photography is my hobby, I shoot with a Canon DSLR.", "Canon DSLRs are solid."),
                (
                    6,
                    "I sold the camera; pottery is my thing now, I'm at the wheel every Saturday.",
                    "Pottery is very calming.",
                ),
            ],
            "What hobby is the user into these days?",
            "Pottery",
        ),
        Topic(
            [
                (2, "I drink three espressos a day, strong ones.", "That's a lot of caffeine."),
                (7, "I switched to decaf because the caffeine was making me anxious.", "Decaf is a kind choice."),
            ],
            "What kind of coffee does the user drink?",
            "Decaf",
        ),
        Topic(
            [
                (1, "I drive to work, it's only fifteen minutes.", "Short drive, nice."),
                (4, "The car broke down so I take the bus to work now.", "Buses give you reading time."),
                (8, "I bought an e-bike and ride it to the studio every day.", "E-bikes make commuting fun."),
            ],
            "How does the user commute?",
            "By e-bike",
        ),
    ],
    [
        Topic(
            [
                (1, "I'm reading Dune, the desert politics are wild.", "Dune is a classic."),
                (4, "Finished Dune, now reading Circe.", "Circe is beautiful."),
                (8, "Started Project Hail Mary last night, couldn't put it down.", "Rocky is the best."),
            ],
            "What book is the user reading?",
            "Project Hail Mary",
        ),
        Topic(
            [
                (1, "My phone is an iPhone 12 with a cracked screen.", "A screen protector might help."),
                (6, "Switched to a Pixel 8, the camera is amazing.", "The Pixel camera is great."),
            ],
            "What phone does the user use?",
            "A Pixel 8",
        ),
        Topic(
            [
                (2, "I hurt my knee and can't run at all for now.", "Rest and see a physio."),
                (3, "Still no running, my knee swells after walks.", "Ice and elevation help."),
                (7, "My knee has healed, I ran 5k this morning without pain.", "Great to hear you're running again!"),
            ],
            "Can the user run?",
            "Yes, the knee healed",
        ),
        Topic(
            [
                (1, "We live with my parents while we save for a deposit.", "Saving with family makes sense."),
                (3, "Living at my parents' place is cosy but crowded.", "Hang in there."),
                (6, "We got our own place at last, a little terraced house.", "Congratulations on the house!"),
            ],
            "Does the user live with their parents?",
            "No, they have their own house",
            ("Who did the user live with while saving for a deposit?", "Their parents", [0, 1]),
        ),
        Topic(
            [
                (1, "I'm a barista at a café on Mill Road.", "Barista life, early starts."),
                (3, "Café shifts start at six, I'm exhausted.", "Early shifts are tough."),
                (6, "I got promoted to manager of the café!", "Congratulations on the promotion!"),
            ],
            "What is the user's role at the café?",
            "Manager",
        ),
        Topic(
            [
                (1, "I put oat milk in everything.", "Oat milk froths well."),
                (5, "I switched to regular cow's milk, oat milk upset my stomach.", "Listen to your stomach."),
            ],
            "What milk does the user use?",
            "Cow's milk",
        ),
        Topic(
            [
                (1, "Yoga twice a week keeps my back happy.", "Yoga is great for backs."),
                (2, "Any yoga poses for a stiff neck?", "Try thread-the-needle."),
                (5, "I quit yoga and do pilates instead now.", "Pilates is great for the core."),
            ],
            "Does the user do yoga?",
            "No, pilates instead",
        ),
        Topic(
            [
                (2, "I'm writing a fantasy novel, chapter three so far.", "Fantasy novels need a map!"),
                (
                    7,
                    "I shelved the novel and started a podcast about local history.",
                    "A local history podcast sounds fascinating.",
                ),
            ],
            "What creative project is the user working on?",
            "A local history podcast",
        ),
    ],
]

FILLER = [  # small talk that carries no fact about the user
    (
        "Can you help me write an email asking for a day off?",
        "Of course: keep it short, give the date and offer cover.",
    ),
    ("What's a quick dinner with eggs?", "A frittata: whisk eggs, add leftovers, bake ten minutes."),
    ("How do I get red wine out of a carpet?", "Blot, then dab with cold water and a little washing-up liquid."),
    ("Give me three ideas for a rainy Sunday.", "A museum, a baking project, or a long film marathon."),
    ("How long should I boil an egg for a runny yolk?", "About six minutes from boiling water."),
    ("What's the capital of Australia?", "Canberra."),
    ("Can you summarise what a Roth IRA is?", "A US retirement account funded with taxed money; growth is tax-free."),
    ("Suggest a name for a book club.", "How about 'Between the Lines'?"),
    ("How do I stop my basil plant wilting?", "Water at the base, give it sun, pinch the flower buds."),
    (
        "What should I pack for a weekend city break?",
        "Comfortable shoes, a light jacket, a charger and a small umbrella.",
    ),
    ("Is it normal for a laptop fan to be loud?", "Under load yes; clean the vents if it is loud when idle."),
    ("Recommend a podcast about science.", "Try 'Radiolab' or 'The Infinite Monkey Cage'."),
    (
        "How do I write a thank-you note to a colleague?",
        "Name what they did, say how it helped, keep it warm and short.",
    ),
    ("What's a good stretch after sitting all day?", "A hip-flexor lunge stretch, thirty seconds each side."),
    ("Can you convert 180 C to Fahrenheit?", "356 F."),
    ("Any tips for a job interview on video?", "Test your camera, look at the lens, keep notes off-screen."),
    ("How do I clean a cast-iron pan?", "Hot water and a brush, dry on the hob, a thin coat of oil."),
    ("Explain compound interest simply.", "You earn interest on your interest, so savings grow faster over time."),
    ("What's a nice gift for a five-year-old?", "A big box of building blocks or a picture book."),
    ("How often should I water a cactus?", "Every two to three weeks, less in winter."),
]


def session_date(session: int, offset_days: int) -> str:
    day, month, clock = DATES[session - 1]
    day = min(28, day + offset_days)
    return f"{clock} on {day} {month}, 2024"


def build_chat(index: int, topics: list[Topic], rng: random.Random) -> dict[str, object]:
    sessions: dict[int, list[tuple[str, str, tuple[int, int] | None]]] = {s: [] for s in range(1, 9)}
    for t, topic in enumerate(topics):
        for j, (session, user, assistant) in enumerate(topic.said):
            sessions[session].append((user, assistant, (t, j)))
    conversation: dict[str, object] = {"speaker_a": "user", "speaker_b": "assistant"}
    where: dict[tuple[int, int], str] = {}
    for session, exchanges in sessions.items():
        fillers = rng.sample(FILLER, 3 + rng.randrange(3))
        items = [*exchanges, *((u, a, None) for u, a in fillers)]
        rng.shuffle(items)
        turns = []
        for user, assistant, key in items:
            dia = f"D{session}:{len(turns) + 1}"
            if key is not None:
                where[key] = dia
            turns.append({"speaker": "user", "dia_id": dia, "text": user})
            turns.append({"speaker": "assistant", "dia_id": f"D{session}:{len(turns) + 1}", "text": assistant})
        conversation[f"session_{session}_date_time"] = session_date(session, index * 3)
        conversation[f"session_{session}"] = turns
    qa: list[dict[str, object]] = []
    for t, topic in enumerate(topics):
        newest = where[(t, len(topic.said) - 1)]
        for question in [topic.question, *topic.extra]:
            qa.append(
                {"question": question, "answer": topic.answer, "evidence": [newest], "category": 4, "kind": "update"}
            )
        if topic.past:
            question, answer, said = topic.past
            qa.append(
                {
                    "question": question,
                    "answer": answer,
                    "evidence": [where[(t, j)] for j in said],
                    "category": 2,
                    "kind": "past",
                }
            )
    return {"sample_id": f"changes-{index + 1}", "conversation": conversation, "qa": qa}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "data" / "changes_over_time.json"))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    samples = [build_chat(i, topics, rng) for i, topics in enumerate(CHATS)]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    updates = sum(1 for s in samples for q in s["qa"] if q["kind"] == "update")  # type: ignore[index]
    past = sum(1 for s in samples for q in s["qa"] if q["kind"] == "past")  # type: ignore[index]
    print(f"wrote {args.out}: {len(samples)} chats, {updates} update questions, {past} past questions")


if __name__ == "__main__":
    main()
