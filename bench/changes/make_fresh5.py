"""Write a fifth change-over-time chat written apart from every other chat in ``bench/data``.

    python bench/changes/make_fresh5.py [--out bench/data/changes_fresh5.json]

One user/assistant chat, seven sessions from February to December 2023: a bank teller in Lagos, texting
in a casual lower-case voice, whose city, work, partner, coffee, diet, commute, hobby and phone change.
Eight ``update`` questions (present tense; evidence = the turn with the NEWEST statement of the fact),
four ``past`` questions about an earlier state and three ``static`` ones (said once). Later sessions
mention old states in passing and hold small talk sharing the questions' words (a manager's espressos, a
friend's move to Toronto, a cousin at the bank, an ex's engagement). Written without looking at how
search ranks, and meant to be run once, at the end. LoCoMo layout (written by
``make_heldout_more.build``), so ``changes_bench.py --data FILE`` and ``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

from make_heldout_more import Question, Session, write_chat

U, A = "user", "assistant"

SESSIONS: list[Session] = [
    (
        "8:40 pm on 12 February, 2023",
        [
            (U, "hey. need help planning valentines, my babe chioma is impossible to shop for"),
            (A, "Happy to help! What sort of things does she enjoy?"),
            (U, "she's a pharmacist, works crazy shifts. likes plants and afrobeats. almost 3 yrs together"),
            (A, "A nice potted plant plus tickets to a live show could be a sweet combo."),
            (U, "good idea. dinner too but im vegetarian so restaurants are a struggle lol. 3 years no meat"),
            (A, "An Indian or Lebanese place usually has plenty of vegetable dishes."),
            (U, "lebanese it is. theres one in VI but my place is in yaba and friday night traffic is war"),
            (A, "Lagos traffic on a Friday is legendary. Booking a ride early might help."),
            (U, "i know traffic well, i take the BRT from yaba to ikeja every morning for work"),
            (A, "That's a long ride every day. What do you do in Ikeja?"),
            (U, "cash teller at a bank, ikeja branch. counting other ppl's money all day"),
            (A, "That takes real focus. Do you enjoy it?"),
            (U, "its ok, pays the rent. btw doc told me to stop coffee cos of my ulcer so no coffee in bed idea"),
            (A, "Ouch. Breakfast in bed with fresh juice or a smoothie works just as well."),
        ],
    ),
    (
        "7:05 am on 28 March, 2023",
        [
            (U, "morning. how do i practice saxophone without my neighbours hating me"),
            (A, "A sax mute helps a lot, and practising at midday when people are out."),
            (U, "been doing lessons since january, saturdays at a music school in surulere. im still bad"),
            (A, "Two months in, everyone sounds rough. Keep at it!"),
            (U, "big news tho. the bank is transferring me to the abuja main branch from may"),
            (A, "That's a big change! How do you feel about it?"),
            (U, "excited and scared. chioma not happy, she cant leave her job at the hospital"),
            (A, "Long distance is hard, but many couples make it work with regular visits."),
            (U, "we'll see. my sister funmi says go, shes in med school in ibadan so never home anyway"),
            (A, "Sounds like Funmi is in your corner."),
            (U, "also cracked my phone screen again. tecno camon, third time since xmas"),
            (A, "A tempered glass protector and a sturdy case can save a lot of screens."),
            (U, "whats the capital of australia, argument at work"),
            (A, "Canberra, not Sydney. It's a very common mix-up."),
        ],
    ),
    (
        "9:30 pm on 6 May, 2023",
        [
            (U, "first week done at the new branch. roads here are so wide and empty, not used to it"),
            (A, "Congrats on getting through the first week! It must feel very different from Lagos."),
            (U, "rented a small flat in wuse 2, one bedroom. landlord is a retired colonel lol"),
            (A, "Hopefully a tidy one. Wuse 2 is a lively area."),
            (U, "its lonely tho. chioma ended it last sunday. said long distance was never gonna work for her"),
            (A, "I'm sorry, that's hard, especially right after a move. How are you holding up?"),
            (U, "im ok. eating a lot of jollof by myself"),
            (A, "Jollof therapy is valid. A meetup or a church group could be a way to meet people."),
            (U, "maybe. the sax is still in a box, no teacher here yet"),
            (A, "Some music schools in Abuja run adult classes, worth a look once you're settled."),
            (U, "how long do i boil beans till soft? no pressure cooker"),
            (A, "Soak them overnight, then simmer for about 1 to 1.5 hours until tender."),
        ],
    ),
    (
        "1:15 pm on 22 June, 2023",
        [
            (U, "guess whos a car owner now. 2011 corolla, tokunbo, silver 😎"),
            (A, "Congrats! A Corolla is a reliable choice. How's driving in Abuja?"),
            (U, "traffic lights actually work here. i drive to the branch in like 12 mins, no more bus"),
            (A, "What a change from the Lagos commute."),
            (U, "how often should i change the oil? my late dad was a mechanic, he'd laugh at me for asking"),
            (A, "Roughly every 5,000 km with conventional oil, but check the manual for your model."),
            (U, "my guy emeka just got his canada visa, moving to toronto in august. everyone is japa-ing"),
            (A, "Exciting for him, though it must be strange seeing friends leave."),
            (U, "yeah. im staying put tho, abuja is growing on me"),
            (A, "Glad it's starting to feel like home."),
            (U, "also sold the sax to a guy at church. was never gonna find time"),
            (A, "Fair enough, hobbies have their seasons. Anything you'd like to try instead?"),
            (U, "dunno. maybe something with my phone camera"),
            (A, "Phone photography is a great way to explore a new city."),
        ],
    ),
    (
        "11:50 pm on 9 August, 2023",
        [
            (U, "its my birthday today!! 29 🎉"),
            (A, "Happy birthday! How did you celebrate?"),
            (U, "so at my colleague's wedding saturday i met someone. halima. architect. we've been texting nonstop"),
            (A, "That sounds promising! What's she like?"),
            (U, "funny, very direct. took me out for my bday tonight and i had suya. first meat in 3 yrs"),
            (A, "Big night! How did it feel after three years?"),
            (U, "honestly amazing lol. think the vegetarian thing is over, i missed chicken too much"),
            (A, "Nothing wrong with changing your mind. Maybe ease back in so your stomach can adjust."),
            (U, "my mum will be so happy, she never understood it"),
            (A, "Ha, she'll probably have pepper soup waiting on your next visit."),
            (U, "also got myself a bday gift, a used iphone 12. bye bye tecno"),
            (A, "Nice upgrade! The iPhone 12 camera would suit that photography idea."),
        ],
    ),
    (
        "6:20 pm on 30 September, 2023",
        [
            (U, "update: i left the bank end of august. 2 weeks in at a solar company as an operations analyst"),
            (A, "Congratulations! What made you decide?"),
            (U, "6 yrs of counting cash is enough. they put solar on homes and small businesses, growing fast"),
            (A, "Solar is booming in Nigeria, sounds like a good move."),
            (U, "halima helped me prep for the interviews. shes the best"),
            (A, "She sounds like a great partner."),
            (U, "office is in jabi so the drive is longer now but the corolla is holding up"),
            (A, "Good to hear. A longer drive is a fair trade for a job you like."),
            (
                U,
                "theres a proper coffee machine in the office and ive had a cup every morning 🙈 "
                "ulcer's been fine for months",
            ),
            (A, "If your doctor's fine with it, a cup a day is usually ok. Maybe not on an empty stomach."),
            (U, "my manager drinks like 5 espressos a day, the man vibrates"),
            (A, "That's a lot! Around 400 mg of caffeine a day is the usual upper limit for adults."),
            (U, "simple chicken stir fry recipe? halima is coming over"),
            (
                A,
                "Sear thin chicken strips in hot oil, add peppers, onion, garlic, ginger, soy sauce "
                "and a little honey. Serve with rice.",
            ),
        ],
    ),
    (
        "8:10 am on 18 December, 2023",
        [
            (U, "morning! driving down to lagos for christmas, 10+ hours. tips for a long road trip?"),
            (A, "Leave early, stop every two hours, check tyres and oil, and carry water and snacks."),
            (U, "already have a flask of coffee ready lol"),
            (A, "Good plan, just keep water handy too."),
            (U, "halima is coming with me, shes meeting my family for the first time. nervous"),
            (A, "That's a big step! I'm sure they'll love her."),
            (U, "funmi is home too, she just finished exams. mum is planning a whole party"),
            (A, "Sounds like a lively Christmas."),
            (U, "funny thing, chioma got engaged, saw it on instagram. happy for her honestly"),
            (A, "That's a kind way to see it."),
            (
                U,
                "joined a photography club in october, we do photo walks every sunday. "
                "what should i shoot on the trip?",
            ),
            (A, "Roadside markets, food stalls and golden-hour landscapes along the way would make great shots."),
            (U, "my cousin tolu at the bank says tellers are being replaced by apps lol. glad i left"),
            (A, "Banking is changing fast. Sounds like your timing was good."),
        ],
    ),
]

QUESTIONS: list[Question] = [
    ("Where does the user live?", "Abuja (a one-bedroom flat in Wuse 2)", "yeah. im staying put tho", "update"),
    ("Does the user drink coffee?", "Yes, again (a cup every morning)", "already have a flask of coffee", "update"),
    ("Who is the user dating?", "Halima, an architect", "halima is coming with me", "update"),
    ("Is the user vegetarian?", "No, he eats meat again", "honestly amazing lol", "update"),
    ("What is the user's job?", "Operations analyst at a solar company", "update: i left the bank", "update"),
    ("How does the user get to work?", "Drives his own car (a 2011 Corolla) to Jabi", "office is in jabi", "update"),
    (
        "What hobby is the user into these days?",
        "Photography, with a club's Sunday photo walks",
        "joined a photography club",
        "update",
    ),
    ("What phone does the user have now?", "A used iPhone 12", "also got myself a bday gift", "update"),
    ("Where was the user living before Abuja?", "Lagos (Yaba)", "lebanese it is.", "past"),
    (
        "What did the user do for work before the solar company?",
        "Cash teller at a bank (Ikeja branch)",
        "cash teller at a bank",
        "past",
    ),
    (
        "Which instrument was the user learning before he sold it?",
        "The saxophone",
        "morning. how do i practice saxophone",
        "past",
    ),
    (
        "When did the user and Chioma break up?",
        "The Sunday before 6 May 2023 (30 April 2023)",
        "its lonely tho. chioma ended it",
        "past",
    ),
    (
        "What is the name of the user's sister?",
        "Funmi (a medical student in Ibadan)",
        "we'll see. my sister funmi",
        "static",
    ),
    ("When is the user's birthday?", "9 August", "its my birthday today", "static"),
    ("What did the user's father do for a living?", "He was a mechanic", "how often should i change the oil", "static"),
]


def main() -> None:
    write_chat(__doc__ or "", "changes_fresh5.json", "changes-fresh5-abuja", SESSIONS, QUESTIONS)


if __name__ == "__main__":
    main()
