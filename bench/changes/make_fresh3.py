"""Write a third change-over-time chat written apart from every other chat in ``bench/data``.

    python bench/changes/make_fresh3.py [--out bench/data/changes_fresh3.json]

One user/assistant chat, seven sessions from January to December 2021: a graphic designer in Dublin
whose city, work, partner, diet, drinking, pet, commute and sport change. Eight ``update`` questions
(present tense; evidence = the turn with the NEWEST statement, said in other words than the
question's: the move to Cork names neither "live" nor "city"), two ``past`` questions and one
``static`` one (said once, mentioned in passing later). Later sessions mention old states in passing
and hold small talk sharing the questions' words (a cousin's move, a friend's wine, a colleague's
job). Written before the recency rule it checks was changed, and meant to be run once, at the end.
LoCoMo layout (written by ``make_heldout_more.build``), so ``changes_bench.py --data FILE`` and
``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

from make_heldout_more import Question, Session, write_chat

U, A = "user", "assistant"

SESSIONS: list[Session] = [
    (
        "10:15 am on 9 January, 2021",
        [
            (U, "Hiya. I'm a graphic designer at a packaging agency, we do crisp bags and cereal boxes mostly."),
            (A, "Hello! Packaging design is everywhere once you start noticing it. What can I do for you?"),
            (U, "Our apartment in Dublin, up in Phibsborough, is freezing, how do I keep the heat in?"),
            (A, "Thick curtains, draught excluders under the doors and bleeding the radiators help a lot."),
            (U, "Siobhán, my girlfriend, says I should just wear two jumpers like a normal person."),
            (A, "She has a point, layers are the cheapest heating there is."),
            (U, "I haven't eaten meat or fish since I was nineteen, so soups are my winter staple."),
            (A, "A red lentil and carrot soup is warming and cheap."),
            (U, "Friday is always a couple of pints of stout with the design team at Doyle's."),
            (A, "A Friday pint with the team is a good way to end the week."),
            (U, "I take the Luas to the office every day, it's packed by eight."),
            (A, "Going a bit earlier or later usually gets you a seat."),
            (U, "My older brother Cathal lives in Boston, we video call on Sundays."),
            (A, "Sunday calls are a nice way to keep close across the Atlantic."),
        ],
    ),
    (
        "7:50 pm on 20 February, 2021",
        [
            (U, "I play five-a-side football every Tuesday night, my knees are starting to complain."),
            (A, "Warming up properly and a bit of strength work for the legs can spare the knees."),
            (U, "What's a good vegetarian shepherd's pie?"),
            (A, "Use green lentils and mushrooms in a rich gravy, topped with mash and cheddar."),
            (U, "Any ideas for a logo for a small bakery? A client wants something warm."),
            (A, "A hand-drawn wheat stalk or a rolling pin in a soft round badge often feels warm."),
            (U, "How many hours of sleep should an adult get?"),
            (A, "Seven to nine hours for most adults."),
            (U, "Siobhán and I are thinking of a weekend in Galway in spring."),
            (A, "Galway in spring is lovely, the Latin Quarter is full of music."),
        ],
    ),
    (
        "4:30 pm on 3 April, 2021",
        [
            (U, "Siobhán and I split up at Easter. Six years. She's staying in the apartment for now."),
            (A, "I'm so sorry. Six years is a long time, be gentle with yourself."),
            (U, "I'm sleeping on my mate Darragh's couch in Drumcondra until I sort myself out."),
            (A, "Good to have a friend who'll take you in."),
            (U, "Honestly the Friday pints have turned into most nights, which isn't great."),
            (A, "It's common after a break-up; keep an eye on it and talk to someone if it grows."),
            (U, "What's a film that will make me laugh?"),
            (A, "'Paddington 2' is hard to resist."),
            (U, "My cousin just moved to Limerick for a nursing post, everyone's on the move."),
            (A, "Spring seems to be the season for it."),
        ],
    ),
    (
        "11:00 am on 12 June, 2021",
        [
            (
                U,
                "Big news: the removal van dropped the last of my boxes at a little terraced "
                "cottage in Blackrock, Cork, on Thursday. Sea air and a back yard.",
            ),
            (A, "That's a big change! Blackrock by the river, it sounds peaceful."),
            (U, "Darragh cried when I gave him back his couch, I think he'll miss the company."),
            (A, "You'll have a spare room to offer him now."),
            (U, "And I've had nothing to drink for eight weeks now. No pints, no wine, nothing. Feeling great."),
            (A, "Eight weeks is a real achievement; how are you finding the evenings?"),
            (U, "Sparkling water with lime in a nice glass does the trick."),
            (A, "A good ritual without the alcohol."),
            (U, "How do I get rid of slugs in a small garden without poison?"),
            (A, "Beer traps, copper tape around pots and picking them off at dusk."),
            (U, "Ha, beer traps, the only beer in the house then."),
            (A, "The slugs will appreciate it more than you would."),
        ],
    ),
    (
        "6:20 pm on 28 August, 2021",
        [
            (
                U,
                "I handed in my notice at the agency. From September I'm teaching art at a "
                "secondary school in Douglas, they liked my portfolio and I did the teaching diploma at night.",
            ),
            (A, "Congratulations! Teaching art suits someone who designs for a living."),
            (U, "A colleague at the agency asked me how to write a CV for a design job, any tips?"),
            (A, "Lead with the portfolio link, keep it to one page, and show results, not just tools."),
            (U, "We got a cat from the shelter, a one-eyed tabby called Admiral."),
            (A, "Admiral is a brilliant name for a one-eyed cat."),
            (U, "I cycle along the old railway line into town now, twenty minutes flat."),
            (A, "The Passage West greenway is a lovely ride."),
            (U, "What do I put in a first-week lesson plan for teenagers?"),
            (A, "A quick drawing game to learn names, then a short project they can finish in a week."),
        ],
    ),
    (
        "8:10 pm on 16 October, 2021",
        [
            (
                U,
                "I met Ruairí at a pottery evening in September and, well, we're together now. "
                "He's a fisherman out of Crosshaven.",
            ),
            (A, "That's lovely news, and a very Cork way to meet."),
            (
                U,
                "He brought me fresh hake off the boat and I ate it. Then mackerel the next week. "
                "I'm a pescatarian now, I suppose.",
            ),
            (A, "Fresh fish straight off the boat is a good reason to change your mind."),
            (U, "I've stopped the five-a-side, these days it's sea swimming at Myrtleville every weekend."),
            (A, "Cold water swimming is bracing; go with others and know the tides."),
            (U, "My friend in Dublin is opening a wine bar, she wants me to do her logo."),
            (A, "A nice project, and a good excuse to visit."),
            (U, "What's a simple recipe for hake?"),
            (A, "Pan-fry it skin side down in butter, finish with lemon and parsley."),
        ],
    ),
    (
        "9:30 am on 11 December, 2021",
        [
            (U, "Christmas plans: Cathal is flying in from Boston and staying with us for a week."),
            (A, "That will be a lovely reunion after all the video calls."),
            (U, "Siobhán texted to say the Phibsborough landlord finally fixed the heating, typical."),
            (A, "Always the way, once you've left."),
            (U, "What's a good non-alcoholic drink for Christmas dinner?"),
            (A, "A spiced apple and ginger punch, or a good alcohol-free sparkling wine."),
            (U, "My students are doing a Christmas card design contest, what should the prize be?"),
            (A, "Printing the winning card for the whole school is a prize they'll remember."),
            (U, "Admiral knocked the tree over twice already."),
            (A, "Cats and Christmas trees are old enemies; weigh down the base."),
            (U, "Do you know if the train from Cork to Dublin runs on Stephen's Day?"),
            (A, "Usually there are no trains on St Stephen's Day in Ireland; check Irish Rail's holiday timetable."),
        ],
    ),
]

QUESTIONS: list[Question] = [
    ("Where does the user live?", "Blackrock, Cork (a terraced cottage)", "Big news: the removal van", "update"),
    ("What does the user do for a living?", "Teaches art at a secondary school", "I handed in my notice", "update"),
    ("Who is the user's partner?", "Ruairí, a fisherman", "I met Ruairí at a pottery evening", "update"),
    ("Is the user vegetarian?", "No, pescatarian now (eats fish)", "He brought me fresh hake", "update"),
    ("Does the user drink alcohol?", "No, has stopped drinking", "And I've had nothing to drink", "update"),
    (
        "Does the user have any pets?",
        "Yes, a one-eyed tabby cat called Admiral",
        "We got a cat from the shelter",
        "update",
    ),
    (
        "How does the user get to work?",
        "Cycles along the old railway line",
        "I cycle along the old railway line",
        "update",
    ),
    ("What sport does the user play?", "Sea swimming at Myrtleville", "I've stopped the five-a-side", "update"),
    ("Where does the user's brother live?", "Boston", "My older brother Cathal", "static"),
    ("Where did the user live before Cork?", "Dublin (Phibsborough)", "Our apartment in Dublin", "past"),
    (
        "What was the user's job before teaching?",
        "Graphic designer at a packaging agency",
        "Hiya. I'm a graphic",
        "past",
    ),
]


def main() -> None:
    write_chat(__doc__ or "", "changes_fresh3.json", "changes-cork", SESSIONS, QUESTIONS)


if __name__ == "__main__":
    main()
