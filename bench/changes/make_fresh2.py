"""Write a second change-over-time chat written apart from every other chat in ``bench/data``.

    python bench/changes/make_fresh2.py [--out bench/data/changes_fresh2.json]

One user/assistant chat, seven sessions from March 2023 to January 2024: a pharmacist in Hamburg
whose city, work, partner, coffee, diet, beard, hair, games and Saturdays change. Nine ``update``
questions (present tense; evidence = the turn with the NEWEST statement, said in other words than
the question's), two ``past`` questions and one ``static`` one (said once, mentioned in passing
later). Later sessions mention old states in passing and hold small talk sharing the questions'
words (a friend's coffee order, a vegetarian guest, a colleague's move). Written before the recency
rule it checks was changed, and meant to be run once, at the end. LoCoMo layout (written by
``make_heldout_more.build``), so ``changes_bench.py --data FILE`` and ``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

from make_heldout_more import Question, Session, write_chat

U, A = "user", "assistant"

SESSIONS: list[Session] = [
    (
        "9:10 am on 4 March, 2023",
        [
            (
                U,
                "Moin! Quick one before my shift: the pharmacy in Eimsbüttel opens at "
                "eight and I'm the one with the keys.",
            ),
            (A, "Good morning! Sounds like an early start, what can I help with?"),
            (U, "My flat here in Hamburg has a damp corner in the bathroom, how do I stop the mould?"),
            (A, "Air the room after showers, wipe the wall with diluted vinegar and keep the door open."),
            (U, "I've been meat-free for eleven years, lentils are basically my personality."),
            (A, "Eleven years is a long run; lentils are a great base for a lot of dishes."),
            (U, "Jonas and I have been together four years, he wants to get a dog but our lease says no."),
            (A, "Some landlords allow a small dog if you ask in writing; worth a try."),
            (U, "Coffee makes my heart race, so it's chamomile and peppermint for me all day."),
            (A, "Herbal tea is kind to the stomach and the sleep."),
            (U, "On Saturdays I dig through the flea market at the Flohschanze looking for old cameras."),
            (A, "The Flohschanze is a classic, lots of film cameras turn up there."),
            (U, "My beard is finally long enough to braid, Jonas hates it."),
            (A, "A braided beard is a commitment, he may come around."),
            (U, "My best friend Ole says I look like a Viking."),
            (A, "There are worse comparisons."),
        ],
    ),
    (
        "6:30 pm on 22 April, 2023",
        [
            (U, "Evenings are all Stardew Valley at the moment, I've got a whole cauliflower farm going."),
            (A, "Stardew is very soothing after a long day at work."),
            (U, "A customer asked me today whether ibuprofen and espresso are a bad mix."),
            (A, "In normal amounts they are fine together; caffeine can upset a sensitive stomach though."),
            (U, "What's a good lentil dal that isn't bland?"),
            (A, "Temper cumin, mustard seeds and garlic in ghee or oil and stir it in at the end."),
            (U, "Jonas's parents are visiting, they only eat meat, any idea for a dinner that works for everyone?"),
            (A, "A build-your-own taco night: beans for you, pulled pork for them."),
            (U, "My hair is going grey at the sides at thirty-four, is that normal?"),
            (A, "Very common; genes decide most of it."),
            (U, "What's the weather usually like in Hamburg in May?"),
            (A, "Mild and changeable, around fifteen to eighteen degrees with showers."),
        ],
    ),
    (
        "8:45 pm on 10 June, 2023",
        [
            (U, "Jonas moved out two weeks ago. Four years, and it ended over a dog and a lease, basically."),
            (A, "I'm sorry. Ending something that long hurts, whatever the reason."),
            (U, "I shaved the beard off the same night, felt like I needed a new face."),
            (A, "A fresh start in the mirror can help, it's a common thing to do."),
            (U, "Ole dragged me to a bike repair evening at a community workshop, I fixed three wheels."),
            (A, "Fixing something with your hands is a good distraction."),
            (U, "What are good books for getting over a breakup?"),
            (A, "Maybe 'Tiny Beautiful Things' by Cheryl Strayed, warm and honest."),
            (U, "The pharmacy wants me to do more weekends now, which I hate."),
            (A, "Perhaps ask for a fixed rota so you can plan around it."),
            (U, "Do you know if pharmacists in Germany can give flu jabs?"),
            (A, "Yes, since 2022 pharmacies can offer flu vaccinations after training."),
        ],
    ),
    (
        "11:20 am on 29 July, 2023",
        [
            (U, "Signed the lease on a two-room place in Leipzig-Plagwitz, the van comes on Friday."),
            (A, "A big step! Plagwitz has a lot of canals and old factories turned into studios."),
            (U, "Rent is half what I paid in Hamburg, and Ole has a sofa bed ready if the van is late."),
            (A, "That's a relief, cheaper rent gives you room to breathe."),
            (U, "Any tips for packing a kitchen so nothing breaks?"),
            (A, "Wrap glasses in socks and towels, and pack plates on their edge, not flat."),
            (U, "I've dyed my hair forest green for the move, the grey is gone."),
            (A, "Forest green is bold, a new city and a new look."),
            (U, "My colleague Fatma is moving to Munich next month too, everyone's leaving."),
            (A, "Summer is the season for moves, it seems."),
            (U, "How do I register my address in Germany after moving?"),
            (A, "Book an appointment at the Bürgeramt within two weeks and bring your landlord's confirmation."),
        ],
    ),
    (
        "5:15 pm on 16 September, 2023",
        [
            (
                U,
                "I gave notice at the chain. On the first I open my own bike repair "
                "workshop in a garage off Karl-Heine-Straße.",
            ),
            (A, "Your own workshop, that's brave and exciting."),
            (U, "The community workshop evenings in Hamburg turned out to be the start of it all."),
            (A, "Funny how a distraction turned into a trade."),
            (U, "Should I register the workshop as a sole trader or a GmbH?"),
            (A, "Most start as Einzelunternehmen; a GmbH needs 25,000 euros of capital."),
            (U, "I met someone at the Saturday climbing gym, her name is Mei, she restores old radios."),
            (A, "Someone who fixes things too, you'll have a lot to talk about."),
            (U, "I've put Stardew down for good, Baldur's Gate 3 has eaten every evening this month."),
            (A, "It's a huge game, easy to lose a month in."),
            (U, "What's a good price for a basic wheel truing job?"),
            (A, "Around fifteen to twenty-five euros in most German cities."),
        ],
    ),
    (
        "8:00 am on 4 November, 2023",
        [
            (U, "Mei and I are officially a thing now, she's moving her radios into my spare room, ha."),
            (A, "That's lovely, congratulations to you both."),
            (
                U,
                "Weekends look different: every Saturday morning I'm at the Leipziger "
                "Tafel sorting crates of vegetables.",
            ),
            (A, "Food bank volunteering is valuable work, they always need hands."),
            (
                U,
                "Mei grinds beans every morning and I finally gave in, now I can't start "
                "the day without a big mug of filter.",
            ),
            (A, "Filter coffee is gentle compared to espresso; go easy on the afternoon cups."),
            (U, "A customer at the workshop asked me where to buy a good coffee grinder for her office."),
            (A, "A burr grinder is worth it, blade grinders give uneven grounds."),
            (U, "What do I feed a guest who is vegetarian and allergic to nuts?"),
            (A, "A mushroom risotto or a chickpea curry without cashews works well."),
            (U, "It's so cold in the workshop already, any cheap way to heat a garage?"),
            (A, "An oil radiator and a rug, and draught-proofing the door helps most."),
        ],
    ),
    (
        "7:40 pm on 13 January, 2024",
        [
            (
                U,
                "Happy new year! Mei's grandmother made us her braised pork belly over the "
                "holidays and that was it, I eat meat again now.",
            ),
            (A, "Happy new year! Tastes shift, and family cooking is hard to say no to."),
            (U, "Ole came down from Hamburg for New Year's Eve, we watched the fireworks over the Karl-Heine canal."),
            (A, "Good to see old friends in the new place."),
            (U, "My old chain pharmacy in Hamburg just closed the Eimsbüttel branch, glad I left."),
            (A, "Good timing on your part."),
            (U, "What's a good thing to cook for a winter dinner party for six?"),
            (A, "A big pot of goulash with bread dumplings feeds six and can be made ahead."),
            (U, "Mei wants a vegetarian option for her sister, what goes with dumplings?"),
            (A, "A mushroom goulash with paprika works with the same dumplings."),
            (U, "Also, should I get winter tyres for my cargo bike?"),
            (A, "Studded tyres help on ice; in Leipzig's mild winters good grippy tyres are usually enough."),
        ],
    ),
]

QUESTIONS: list[Question] = [
    ("Which city is the user in?", "Leipzig (Plagwitz)", "Signed the lease on a two-room place", "update"),
    ("What is the user's job?", "Runs his own bike repair workshop in Leipzig", "I gave notice at the chain", "update"),
    ("Is the user seeing anyone?", "Yes, Mei, who restores old radios", "Mei and I are officially", "update"),
    (
        "Does the user drink coffee?",
        "Yes, a big mug of filter every morning",
        "Mei grinds beans every morning",
        "update",
    ),
    ("Is the user still vegetarian?", "No, eats meat again", "Happy new year! Mei's grandmother", "update"),
    ("Does the user have a beard?", "No, shaved it off", "I shaved the beard off", "update"),
    ("What colour is the user's hair?", "Forest green (dyed)", "I've dyed my hair forest green", "update"),
    ("What game is the user playing?", "Baldur's Gate 3", "I've put Stardew down for good", "update"),
    (
        "What does the user do on Saturday mornings?",
        "Volunteers at the Leipziger Tafel food bank",
        "Weekends look different",
        "update",
    ),
    ("What is the name of the user's best friend?", "Ole", "My best friend Ole", "static"),
    ("Where did the user live before Leipzig?", "Hamburg", "My flat here in Hamburg", "past"),
    (
        "What did the user do before the bike workshop?",
        "Pharmacist at a chain pharmacy in Eimsbüttel",
        "Moin! Quick one",
        "past",
    ),
]


def main() -> None:
    write_chat(__doc__ or "", "changes_fresh2.json", "changes-leipzig", SESSIONS, QUESTIONS)


if __name__ == "__main__":
    main()
