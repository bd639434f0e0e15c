"""Write a fourth change-over-time chat written apart from every other chat in ``bench/data``.

    python bench/changes/make_fresh4.py [--out bench/data/changes_fresh4.json]

One user/assistant chat, seven sessions from February to December 2019: a payroll officer in Adelaide
whose city, work, partner, coffee, diet, commute, sport and pet change (a break-up in May, a move to
Brisbane for a hospital data job in August, someone new in October). Eight ``update`` questions
(present tense; evidence = the turn with the NEWEST statement of the fact), four ``past`` questions
about the earlier state and three ``static`` ones (said once). Later sessions mention old states in
passing and hold small talk sharing the questions' words (a manager's long blacks, a friend's winery
job, a cousin's move, a partner's matcha). Written without looking at how search ranks, and meant to
be run once, at the end. LoCoMo layout (written by ``make_heldout_more.build``), so
``changes_bench.py --data FILE`` and ``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

from make_heldout_more import Question, Session, write_chat

U, A = "user", "assistant"

SESSIONS: list[Session] = [
    (
        "8:20 pm on 12 February, 2019",
        [
            (
                U,
                "Ugh, 43 degrees in Adelaide again. Our cottage in Norwood has no proper air con, how do I keep it "
                "from turning into an oven?",
            ),
            (
                A,
                "Close the blinds and windows early in the morning, then open everything up once it cools down at "
                "night. A damp sheet in front of a fan helps too.",
            ),
            (U, "Tom, my boyfriend, keeps throwing the windows open at 3pm and letting all the hot air in."),
            (
                A,
                "Afternoon air is the hottest of the day, so he's working against you there. Wait for the cool "
                "change or the evening.",
            ),
            (
                U,
                "Fine, I'll show him this. Can you suggest a dinner that needs no oven? I've been vegetarian since "
                "second year of uni, so no meat.",
            ),
            (
                A,
                "A cold soba noodle salad with edamame, cucumber, sesame and a soy-lime dressing is quick and filling.",
            ),
            (
                U,
                "Perfect. I'm wiped out anyway, February is payroll hell at the wine company I work for, all the "
                "vintage casuals start at once.",
            ),
            (A, "Harvest season must mean a lot of new starters and timesheets. Hang in there."),
            (U, "At least the Corolla's air con works. Honestly the drive to work is the coolest part of my day."),
            (A, "A cool car on a 43-degree day is a small luxury. Keep a bottle of water in there too."),
            (U, "Biscuit, our cat, has been lying flat on the bathroom tiles since lunch."),
            (A, "Cats are good at finding the coolest spot. Keep her water bowl full, maybe with an ice cube or two."),
            (
                U,
                "I'd kill for an iced latte right now but I gave up coffee in November after the heart palpitations. "
                "Iced rooibos it is.",
            ),
            (A, "Iced rooibos is a nice swap, and it has no caffeine at all."),
        ],
    ),
    (
        "10:05 am on 30 March, 2019",
        [
            (U, "Morning! Thursday netball was brutal, I play goal defence and got elbowed in the ribs twice."),
            (A, "Ouch. Rest and ice, and if it still hurts to breathe deeply in a few days, get it checked."),
            (
                U,
                "It's fine, just bruised. Question: can you make pesto without pine nuts? They're $50 a kilo at the "
                "moment.",
            ),
            (A, "Yes, walnuts or sunflower seeds work well, and cashews make it very creamy."),
            (U, "Not cashews, I'm allergic to them. Found out the hard way at a work lunch when I was twenty."),
            (A, "Good to know, I'll leave cashews out. Sunflower seeds and a bit of extra parmesan will do the job."),
            (U, "My manager drinks about five long blacks before lunch. Is that actually dangerous?"),
            (
                A,
                "Around 400 mg of caffeine a day is the usual limit for most adults, and five long blacks can be "
                "over that.",
            ),
            (
                U,
                "I'll tell him, he won't listen. Tom's already planning a party for my thirtieth and it's not until "
                "August.",
            ),
            (A, "That's keen of him! Thirty deserves a proper celebration."),
            (U, "I'm getting bored of payroll to be honest. I've been doing an online SQL course at night."),
            (A, "SQL is a great skill to have, it opens up a lot of data and reporting roles."),
            (U, "My sister Hannah is a midwife in Darwin and she reckons I should just go for something new."),
            (A, "Sounds like good advice from Hannah. What kind of work are you drawn to?"),
        ],
    ),
    (
        "6:45 pm on 19 May, 2019",
        [
            (
                U,
                "Tom and I broke up last weekend. Seven years. He's keeping the Norwood place and I'm back in my old "
                "bedroom at Mum and Dad's in Glenelg.",
            ),
            (A, "I'm really sorry. Seven years is a long time, be gentle with yourself."),
            (U, "Biscuit came with me, thankfully. Dad pretends not to like her but I caught him feeding her ham."),
            (A, "Sounds like Biscuit has already won him over."),
            (U, "How do people actually get over a long relationship? I keep reaching for my phone to text him."),
            (
                A,
                "Give it time, keep busy, lean on friends, and maybe mute his messages for a while so it's not a "
                "constant pull.",
            ),
            (U, "My friend Jess just landed a job as a cellar hand at a winery in McLaren Vale, she's thrilled."),
            (A, "That's lovely for her, McLaren Vale is beautiful country."),
            (
                U,
                "Meanwhile I've applied for a data analyst job at a hospital in Brisbane. Might be time for a fresh "
                "start.",
            ),
            (A, "That's a big step. Your SQL course should make your application stronger."),
            (U, "Random one: why is Adelaide called the city of churches?"),
            (A, "Partly for its many churches, and partly because it was founded with religious freedom in mind."),
            (U, "Netball's keeping me sane, at least. Our team is actually top of the ladder."),
            (A, "A good team and regular games help a lot at times like this. Congrats on top spot."),
        ],
    ),
    (
        "1:10 pm on 7 July, 2019",
        [
            (U, "I got it! The hospital in Brisbane offered me the data analyst job. I start on the 5th of August."),
            (A, "Congratulations! That's huge news. How are you feeling?"),
            (
                U,
                "Terrified and excited. I handed my notice in at the wine company this morning, my manager nearly "
                "spilled his long black.",
            ),
            (A, "Ha, I bet. Leaving on good terms will help with references."),
            (U, "How far is it from Adelaide to Brisbane by road anyway?"),
            (A, "Roughly 2,000 km, so about 21 to 24 hours of driving depending on the route."),
            (U, "Yeah, not doing that. I'm selling the Corolla and flying up, the removalists can take the boxes."),
            (A, "Sensible. Get a roadworthy done early, it can speed up the sale."),
            (U, "The worst part: the flat I've found doesn't allow pets, so Biscuit is staying with Mum and Dad."),
            (A, "That's hard, but she'll be well loved there and you can visit."),
            (U, "My cousin Raj moved to Perth last year and says the first month in a new city is the loneliest."),
            (A, "He's probably right. Joining a club or class early helps you meet people."),
            (U, "Played my last netball game on Thursday. The girls gave me a signed ball, I cried in the car park."),
            (A, "What a lovely send-off. Sounds like a team worth missing."),
        ],
    ),
    (
        "9:30 am on 25 August, 2019",
        [
            (U, "Three weeks in Brisbane! The flat in West End is tiny but I can see the river from the balcony."),
            (A, "Welcome to Brisbane! A river view makes a small flat feel a lot bigger."),
            (
                U,
                "Work is good so far. I'm building dashboards for emergency department wait times, the team is lovely.",
            ),
            (A, "That sounds like meaningful work. Dashboards people actually use are satisfying to build."),
            (U, "And I don't miss the car at all. I catch the CityCat every morning and walk the last ten minutes."),
            (A, "The CityCat is a lovely way to commute, especially on a sunny morning."),
            (
                U,
                "Confession: the café downstairs at work does a flat white so good that I caved. Back on coffee "
                "after nine months.",
            ),
            (A, "Fair enough! Maybe keep an eye on how you feel, given the palpitations before."),
            (U, "Only one a day, promise. Any ideas for cheap furniture? I'm sitting on a camping chair."),
            (
                A,
                "Facebook Marketplace, Gumtree and op shops are great, and people give things away near the end of "
                "the month.",
            ),
            (U, "I've started bouldering at a gym in Newstead, twice a week. My forearms are on fire."),
            (A, "Bouldering is a great way to get strong and meet people. The forearm pump gets better with time."),
            (U, "Hannah says Darwin's hotter, but the humidity here is something else."),
            (A, "Brisbane humidity takes some getting used to, especially after Adelaide's dry heat."),
        ],
    ),
    (
        "7:15 pm on 13 October, 2019",
        [
            (
                U,
                "So... I've been seeing someone. Her name's Mei, we met at the bouldering gym when she told me to "
                "stop climbing with just my arms.",
            ),
            (A, "That's lovely news! Sounds like a good way to meet."),
            (U, "She took me to her family's for Sunday lunch and her mum made beef rendang. I ate two plates."),
            (A, "How was it, after so long without meat?"),
            (U, "Honestly amazing. I had a burger on Thursday too. I think my vegetarian days are over."),
            (A, "Plenty of people change their diet over time. Ease in, your stomach may need a little adjusting."),
            (U, "Can you give me an easy chicken recipe? I've genuinely never cooked meat."),
            (
                A,
                "Try chicken thighs with garlic, soy and honey, baked at 200°C for about 25 minutes. Thighs are "
                "forgiving.",
            ),
            (U, "Mei doesn't touch coffee, she's a matcha person. She thinks my flat white habit is funny."),
            (A, "Matcha still has some caffeine, so you two aren't so different."),
            (U, "What's the actual difference between a flat white and a latte?"),
            (
                A,
                "A flat white has less milk and a thin layer of microfoam; a latte is bigger and milkier with more "
                "foam.",
            ),
            (
                U,
                "Tom messaged me out of nowhere last week asking how Brisbane is treating me. I left it on read. Is "
                "that mean?",
            ),
            (A, "Not mean. You don't owe him a reply, especially if it stirs things up."),
        ],
    ),
    (
        "11:00 am on 8 December, 2019",
        [
            (
                U,
                "Meet Pickle! Mei and I adopted a retired racing greyhound. The landlord finally said yes to a dog, "
                "so she lives with me.",
            ),
            (A, "Congratulations on Pickle! Greyhounds are famously gentle couch potatoes."),
            (U, "She sleeps about twenty hours a day. Is that normal?"),
            (A, "Yes, retired greyhounds are sprinters, not marathoners. Lots of sleep is very normal."),
            (U, "Biscuit has fully moved in with Mum and Dad, Dad now calls her his cat."),
            (A, "Sounds like Biscuit has found her forever home."),
            (U, "I'm flying back to Adelaide for Christmas, first time since the move. Mei's coming to meet everyone."),
            (A, "Big trip! Introducing her to the family at Christmas is a lovely milestone."),
            (U, "Also, I'm on two flat whites a day now. Is coffee before a session at the gym a bad idea?"),
            (A, "A coffee about an hour before can actually help, just don't overdo it if it makes you jittery."),
            (U, "My old netball team posted their Christmas party photos and I got a bit homesick."),
            (A, "That's natural. It's nice that they still matter to you."),
            (U, "Can greyhounds handle a Brisbane summer? Pickle pants after a short walk."),
            (A, "Walk her early or late, keep water around and avoid hot pavement; greyhounds overheat easily."),
        ],
    ),
]

QUESTIONS: list[Question] = [
    ("Where does the user live?", "Brisbane (a small flat in West End)", "Three weeks in Brisbane!", "update"),
    ("Does the user drink coffee?", "Yes, about two flat whites a day", "Also, I'm on two flat whites", "update"),
    (
        "Who is the user seeing at the moment?",
        "Mei, whom she met at the bouldering gym",
        "So... I've been seeing someone",
        "update",
    ),
    ("Is the user vegetarian?", "No, she eats meat again (beef rendang, burgers)", "Honestly amazing.", "update"),
    (
        "What does the user do for work?",
        "Data analyst at a Brisbane hospital, building emergency department dashboards",
        "Work is good so far.",
        "update",
    ),
    (
        "How does the user get to work these days?",
        "The CityCat ferry, then a ten-minute walk",
        "And I don't miss the car",
        "update",
    ),
    (
        "What sport does the user do now?",
        "Bouldering, twice a week at a gym in Newstead",
        "I've started bouldering",
        "update",
    ),
    ("Does the user have a pet?", "Yes, Pickle, a retired racing greyhound", "Meet Pickle!", "update"),
    ("Which city did the user live in before moving to Brisbane?", "Adelaide", "Ugh, 43 degrees in Adelaide", "past"),
    (
        "What was the user's job before the hospital?",
        "Payroll at a wine company",
        "Perfect. I'm wiped out anyway",
        "past",
    ),
    (
        "How did the user get to work when living in Adelaide?",
        "Drove her Corolla",
        "At least the Corolla's air con",
        "past",
    ),
    (
        "When did the user and Tom break up?",
        "In mid-May 2019 (the weekend before 19 May), after seven years",
        "Tom and I broke up last weekend",
        "past",
    ),
    (
        "What is the name of the user's sister?",
        "Hannah (a midwife in Darwin)",
        "My sister Hannah is a midwife",
        "static",
    ),
    ("In which month is the user's birthday?", "August", "I'll tell him, he won't listen.", "static"),
    ("What is the user allergic to?", "Cashews", "Not cashews, I'm allergic", "static"),
]


def main() -> None:
    write_chat(__doc__ or "", "changes_fresh4.json", "changes-fresh4-adelaide", SESSIONS, QUESTIONS)


if __name__ == "__main__":
    main()
