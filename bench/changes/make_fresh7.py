"""Write a seventh change-over-time chat written apart from every other chat in ``bench/data``.

    python bench/changes/make_fresh7.py [--out bench/data/changes_fresh7.json]

One user/assistant chat, eight sessions from February to December 2025: a hospital pharmacist in
Adelaide who asks for help with meal plans, cover letters, heating, lectures and Christmas lunch, and
along the way moves to Hobart, changes job twice (locum shifts, then a university lecturer), breaks up
with her boyfriend and later meets someone new, goes back to coffee, eats meat again, stops driving to
work, swaps netball for trail running and adopts a dog. Eight ``update`` questions (present tense;
evidence = the turn with the NEWEST statement), four ``past`` questions (evidence = the earlier
statement) and three ``static`` ones (said once). Later sessions mention old states in passing and hold
small talk sharing the questions' words (an ex's move, a colleague's move, a friend's coffee cart, a
guest who is vegetarian). Written without looking at how search ranks, and meant to be run once, at
the end. LoCoMo layout (written by ``make_heldout_more.build``), so ``changes_bench.py --data FILE`` and
``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

from make_heldout_more import Question, Session, write_chat

U, A = "user", "assistant"

SESSIONS: list[Session] = [
    (
        "8:20 pm on 2 February, 2025",
        [
            (
                U,
                "Can you help me plan a week of dinners? I'm vegetarian, have been for about four years, and I "
                "finish late most nights so nothing that takes more than 30 minutes.",
            ),
            (
                A,
                "Sure! Monday: black bean tacos. Tuesday: halloumi and roast veg traybake. Wednesday: egg fried "
                "rice with greens. Thursday: vegetable korma with naan. Friday: mushroom and spinach pasta. "
                "Saturday: shakshuka. Sunday: lentil and sweet potato curry.",
            ),
            (U, "Swap the Thursday one, I'm allergic to cashews and every korma I've ever seen is full of them."),
            (
                A,
                "Good call. Try a chickpea and tomato curry with coconut milk instead, it's quick and has no nuts. "
                "Double-check any curry paste labels too.",
            ),
            (
                U,
                "Also I need a short bio for the hospital newsletter. I'm a pharmacist at the Royal Adelaide "
                "Hospital, mostly on the cardiology wards, six years there now. Can you make that sound less dull?",
            ),
            (
                A,
                "How about: 'For six years she has been the cardiology wards' medication detective, chasing down "
                "interactions before they cause trouble and making sure every patient goes home knowing what their "
                "tablets are for.'",
            ),
            (
                U,
                "Medication detective is a bit much but I'll take it. Different question: I gave up coffee at New "
                "Year because I kept getting palpitations on night shifts. What's a hot drink that isn't sad herbal "
                "tea?",
            ),
            (
                A,
                "Rooibos with milk and honey is rich and caffeine-free, a golden latte with turmeric and cinnamon is "
                "cosy, and roasted barley or chicory 'coffee' gets surprisingly close to the real thing.",
            ),
            (U, "Chai has caffeine though, right? I want to go fully without."),
            (
                A,
                "Yes, regular chai is black tea. You can buy rooibos chai blends with the same spices and no caffeine.",
            ),
            (U, "Perfect. Marcus, my boyfriend, is still on four long blacks a day and swears they do nothing to him."),
            (A, "Some people build up a big tolerance. Lucky him, as long as he's sleeping fine!"),
            (
                U,
                "Adelaide's meant to hit 41 tomorrow and our unit in Norwood faces west. Cheap ways to keep it cool "
                "without running the aircon all day?",
            ),
            (
                A,
                "Close blinds and curtains on the west side before noon, open everything up once it cools at night, "
                "run a fan over a tray of ice, and cook outside or not at all.",
            ),
            (
                U,
                "And I've got netball Wednesday at 8, hopefully it's cooled down by then. I'm goal defence for the "
                "hospital team, the Heartstoppers.",
            ),
            (
                A,
                "Great team name. Drink plenty during the day, and take electrolytes if it's still hot at game time.",
            ),
        ],
    ),
    (
        "6:45 pm on 16 March, 2025",
        [
            (
                U,
                "My car's making a grinding noise when I brake, it's a 2012 Corolla. Is that urgent? I drive it to "
                "work every day and the hospital parking already costs me a fortune.",
            ),
            (
                A,
                "Grinding usually means the brake pads are worn down to the metal. Get it looked at this week, "
                "before it damages the rotors and costs a lot more.",
            ),
            (U, "Booked in for Tuesday. I'll have to catch the bus that day, first time in years."),
            (A, "The Adelaide Metro app shows live times, which helps on the first go."),
            (
                U,
                "Other thing: my sister Anjali is a midwife up in Darwin and she turns 40 next month. Gift ideas "
                "I can post that won't melt up there?",
            ),
            (
                A,
                "A nice linen shirt, a good book and a bookmark, a voucher for a massage near her, or a framed photo "
                "of the two of you. Avoid chocolate and candles in that heat.",
            ),
            (
                U,
                "The massage voucher, she's on her feet all shift. She keeps sending me photos of her dogs and I'm "
                "so jealous, our lease says no pets at all.",
            ),
            (A, "That's hard when you love animals. Some landlords will agree to a pet if you ask nicely."),
            (
                U,
                "Marcus wants a dog too but he says we should wait till we buy. Which at Adelaide prices is never. "
                "Can you write a message to the landlord asking about a cat? Polite but not grovelling.",
            ),
            (
                A,
                "Hi Karen, we've been happy tenants for three years and were wondering if you'd consider a "
                "desexed, indoor cat. We'd be glad to add a pet clause and pay a pet bond. Thanks for thinking "
                "about it!",
            ),
            (
                U,
                "Sent. Also the Crows lost again on the weekend. I've supported them since I was five and they "
                "still find new ways to hurt me.",
            ),
            (A, "It's early in the season, there's time for them to turn it around!"),
        ],
    ),
    (
        "9:10 pm on 27 April, 2025",
        [
            (U, "I need help with a cover letter. It's for a pharmacist job in Hobart. Long story."),
            (A, "Happy to help. Tell me about the role, and the long story if you like."),
            (
                U,
                "Marcus and I broke up two weeks ago. Five years. I've wanted a change for ages and he never did, "
                "so I'm just going to do it on my own. I've always loved Tasmania.",
            ),
            (
                A,
                "I'm sorry, five years is a long time. It sounds like you've thought about what you want, though. "
                "What is the job?",
            ),
            (
                U,
                "A locum agency, short contracts in community pharmacies around Hobart. Less exciting than the wards "
                "but it gets me there. Experience: six years hospital, cardiology, the anticoagulation clinic.",
            ),
            (
                A,
                "Dear Hiring Manager, I am writing to apply for a locum pharmacist position. I bring six years of "
                "hospital experience in cardiology and anticoagulation, and I adapt quickly to new teams...",
            ),
            (U, "Can you make the opening less 'I am writing to apply'? Everyone writes that."),
            (
                A,
                "'After six years keeping cardiology patients' medicines safe at the Royal Adelaide, I'm ready to "
                "bring that care to community pharmacies across Hobart.'",
            ),
            (U, "Much better. Mum's devastated, she loved Marcus. She keeps asking if it's really over. It is."),
            (A, "That's hard on both of you. She'll come round once she sees you happy."),
            (U, "Funny timing, Bec from my ward is moving to Perth next month for her husband's job. Two farewells."),
            (A, "That's a lot of change on one ward. A joint farewell might be fun."),
            (U, "Dinner help: tin of chickpeas, spinach, half a pumpkin and some feta. Vegetarian, obviously. Go."),
            (
                A,
                "Roast the pumpkin in cubes with cumin, then toss with warm crispy chickpeas, wilted spinach and "
                "crumbled feta. A squeeze of lemon on top.",
            ),
        ],
    ),
    (
        "11:30 am on 21 June, 2025",
        [
            (
                U,
                "The removalists just left and I'm sitting on a box in my new living room in Bellerive, looking "
                "across the river at Hobart. I did it!",
            ),
            (A, "Congratulations! That's a huge step. How does it feel?"),
            (
                U,
                "Freezing. It was 4 degrees this morning. The house is twice the size of the Norwood unit for less "
                "rent, but it's weatherboard. How do I heat it without a scary power bill?",
            ),
            (
                A,
                "Heat the rooms you're in and close the doors, use heavy curtains and door snakes, seal gaps around "
                "windows, and if there's a heat pump, run it steadily at 19-20 degrees rather than blasting it.",
            ),
            (
                U,
                "Is it normal to feel slightly terrified driving the Corolla over the Tasman Bridge? I've got my "
                "first locum shift in Glenorchy on Monday.",
            ),
            (A, "Very normal, it's high and busy. Leave early on Monday so you're not rushed."),
            (U, "Can you write a short note for the neighbours' letterboxes? Friendly but not weird."),
            (
                A,
                "Hi! I've just moved into number 14. If my boxes or the removalist truck got in your way, sorry! "
                "Say hello any time. Cheers, your new neighbour.",
            ),
            (
                U,
                "Nice. And help me with a weekly budget, locum pay is decent but irregular. Some weeks I get four "
                "shifts, some weeks two.",
            ),
            (
                A,
                "Budget around a two-shift week for fixed costs, and send anything above that into a buffer account "
                "until it covers two months of expenses.",
            ),
            (
                U,
                "Also I found a netball comp but they play Sunday mornings and most teams are full. Might have to "
                "give it a rest for a while.",
            ),
            (A, "Ask the club to put you on a fill-in list, teams often need a spare in winter."),
        ],
    ),
    (
        "7:05 pm on 3 August, 2025",
        [
            (
                U,
                "I want to do a slow-cooked lamb shoulder for some friends on Saturday. I'm eating meat again by the "
                "way, my iron was low on three blood tests in a row and I felt better almost straight away. So "
                "don't hold back.",
            ),
            (
                A,
                "Rub the lamb with garlic, rosemary, salt and olive oil, sit it on onions with a cup of stock, cover "
                "and roast at 160°C for about five hours, then uncover to brown for the last 30 minutes.",
            ),
            (U, "Four of us, and one of them, Sam, is vegetarian, so I need a side that could be a main for him."),
            (
                A,
                "A big tray of roast cauliflower with tahini, pomegranate and herbs, or a cheesy potato and leek "
                "gratin, works as a main and goes well with lamb.",
            ),
            (
                U,
                "Random one: how do I descale an old espresso machine? The landlord left one here and I've caved, "
                "I'm having a flat white every morning again. Tassie winters, no regrets.",
            ),
            (
                A,
                "Run a descaler or a half-and-half mix of water and citric acid through it, then flush with two full "
                "tanks of clean water. How are the palpitations?",
            ),
            (U, "Fine so far. One cup, and never after lunch."),
            (A, "Sounds like a sensible rule."),
            (
                U,
                "I also joined a trail running group that goes up kunanyi on Saturday mornings and my calves are "
                "destroyed. Stretches?",
            ),
            (
                A,
                "Calf raises off a step, wall calf stretches with the knee straight and bent, and foam rolling. "
                "Build up your hill distance slowly.",
            ),
            (
                U,
                "The group is lovely. There's a guy called Dev who keeps waiting for me at the top, which is either "
                "kind or embarrassing.",
            ),
            (A, "Probably kind! Being waited for is a nice thing in a new city."),
        ],
    ),
    (
        "4:50 pm on 28 September, 2025",
        [
            (
                U,
                "I need to prepare a 50-minute lecture on anticoagulants for second-year pharmacy students. I "
                "started at the uni two weeks ago, I'm a lecturer in pharmacy practice at UTAS now, no more locum "
                "shifts!",
            ),
            (
                A,
                "Congratulations! A structure: 5 min on why clotting matters, 15 on warfarin, 15 on the DOACs, 10 "
                "on a case study, 5 for questions.",
            ),
            (U, "Good. Can you make the warfarin section interactive? They're a shy bunch."),
            (
                A,
                "Give them an INR chart and ask pairs to decide the next dose, or run a quick poll on which foods "
                "and drugs interact.",
            ),
            (
                U,
                "I sold the Corolla. The ferry from Bellerive to Brooke Street Pier takes fifteen minutes and then I "
                "walk up to the med science building. Best commute I've ever had.",
            ),
            (A, "That sounds lovely, and you get to see the river every morning."),
            (
                U,
                "Can you write a polite email to the locum agency saying I'm not taking shifts anymore but thanks "
                "for everything?",
            ),
            (
                A,
                "Hi Leanne, I've accepted a permanent role at the university, so I won't be taking more locum "
                "shifts. Thank you for helping me settle into Hobart. All the best.",
            ),
            (U, "Also, Dev and I are officially a thing! He asked me out properly after the run last Saturday."),
            (A, "That's great news! The man who waits at the top."),
            (
                U,
                "He's a park ranger, so he knows every track on the mountain. I want to cook for him next weekend. "
                "Something impressive but not fussy?",
            ),
            (
                A,
                "Pan-seared salmon with a lemon butter sauce, crushed potatoes and green beans. It looks great and "
                "takes 30 minutes.",
            ),
        ],
    ),
    (
        "8:15 pm on 9 November, 2025",
        [
            (
                U,
                "Big news: I adopted a retired greyhound! My landlord here said yes, which after Adelaide felt like "
                "a miracle. She's called Pickle, she's four and terrified of stairs. How do I help her?",
            ),
            (
                A,
                "Many ex-racing greyhounds have never seen stairs. Start with one step, use treats, keep a hand on "
                "her harness, and never force her. Short sessions each day.",
            ),
            (U, "What human foods are toxic to dogs? I want a list for the fridge."),
            (
                A,
                "Chocolate, grapes and raisins, onions and garlic, xylitol, macadamias, alcohol, caffeine and cooked "
                "bones.",
            ),
            (
                U,
                "I've also entered Point to Pinnacle next Sunday, 21 km and basically all uphill. What should my "
                "last week of training look like?",
            ),
            (
                A,
                "Taper: two easy 30-minute runs, one short run with a few hill strides, lots of sleep, and rest the "
                "two days before. Carb up the day before.",
            ),
            (
                U,
                "My friend Jess back in Adelaide just opened a coffee cart at the Parade markets. Help me write a "
                "comment on her launch post?",
            ),
            (
                A,
                "'So proud of you Jess! Best coffee in Norwood, and I'm not even biased. Wish I could grab one on a "
                "Saturday morning.'",
            ),
            (U, "Also Marcus texted out of nowhere to say he's moved to Melbourne for work. Should I reply?"),
            (A, "A short, friendly reply is fine if you want to. You don't owe more than that."),
            (U, "I'll just say congrats. Dev thinks Pickle likes him more than me, which is rude and probably true."),
            (A, "Greyhounds often pick a favourite lap. Give her time!"),
        ],
    ),
    (
        "10:00 am on 14 December, 2025",
        [
            (
                U,
                "Help me plan Christmas lunch, I'm hosting for the first time. Mum and Dad are flying down from "
                "Adelaide and my boyfriend Dev's parents are driving down from Launceston.",
            ),
            (A, "How exciting! How many people, and any dietary needs?"),
            (
                U,
                "Eight. Dad's been vegetarian since his heart scare, and Dev's mum doesn't believe a meal without "
                "meat counts.",
            ),
            (
                A,
                "A glazed ham for the meat lovers, a mushroom and chestnut wellington for your dad, then roast "
                "potatoes, a big summer salad and pavlova for everyone.",
            ),
            (U, "How do I time a ham and a wellington in one oven?"),
            (
                A,
                "Glaze the ham in the morning and let it rest under foil, then bake the wellington and potatoes "
                "together in the hour before lunch.",
            ),
            (U, "Anjali might come too if she can swap her shifts, so maybe nine."),
            (A, "Easy, the ham will stretch and you can make the salad bigger."),
            (U, "Last thing, Pickle will absolutely try to steal the ham. Ideas?"),
            (
                A,
                "Keep the kitchen gated, give her a long-lasting chew during lunch, and ask guests not to slip her "
                "scraps.",
            ),
            (
                U,
                "Oh and coffee for everyone after lunch, my little machine only does two cups at a time. Plunger "
                "for a crowd?",
            ),
            (A, "Two big plungers will do it. Use a coarse grind and four minutes of brewing."),
        ],
    ),
]

QUESTIONS: list[Question] = [
    ("Where does the user live?", "Bellerive, Hobart (Tasmania)", "The removalists just left", "update"),
    (
        "Where does the user work?",
        "At the University of Tasmania (UTAS), as a lecturer in pharmacy practice",
        "I need to prepare a 50-minute lecture",
        "update",
    ),
    (
        "Is the user in a relationship?",
        "Yes, with her boyfriend Dev, a park ranger",
        "Help me plan Christmas",
        "update",
    ),
    ("Does the user drink coffee?", "Yes, one flat white every morning", "Random one: how do I descale", "update"),
    ("Is the user vegetarian?", "No, she eats meat again (low iron)", "I want to do a slow-cooked lamb", "update"),
    (
        "How does the user get to work?",
        "By ferry from Bellerive to Brooke Street Pier, then on foot",
        "I sold the Corolla",
        "update",
    ),
    (
        "What sport does the user do these days?",
        "Trail running (running up kunanyi; entered Point to Pinnacle)",
        "I've also entered Point to Pinnacle",
        "update",
    ),
    ("Does the user have a pet?", "Yes, a retired greyhound called Pickle", "Big news: I adopted", "update"),
    ("Where did the user live before moving to Hobart?", "Norwood, Adelaide", "Adelaide's meant to hit 41", "past"),
    (
        "What was the user's job in Adelaide?",
        "Pharmacist at the Royal Adelaide Hospital (cardiology wards)",
        "Also I need a short bio",
        "past",
    ),
    (
        "When did the user and Marcus break up?",
        "Mid-April 2025, about two weeks before 27 April 2025",
        "Marcus and I broke up",
        "past",
    ),
    (
        "Why did the user give up coffee?",
        "Palpitations on night shifts (gave it up at New Year 2025)",
        "Medication detective is a bit much",
        "past",
    ),
    ("What is the user allergic to?", "Cashews", "Swap the Thursday one", "static"),
    ("What does the user's sister do?", "She is a midwife in Darwin", "Other thing: my sister Anjali", "static"),
    ("Which football team does the user support?", "The Adelaide Crows", "Sent. Also the Crows", "static"),
]


def main() -> None:
    write_chat(__doc__ or "", "changes_fresh7.json", "changes-fresh7-hobart", SESSIONS, QUESTIONS)


if __name__ == "__main__":
    main()
