"""Write a sixth change-over-time chat written apart from every other chat in ``bench/data``.

    python bench/changes/make_fresh6.py [--out bench/data/changes_fresh6.json]

One user/assistant chat, eight sessions from January to December 2022: Jean, a 65-year-old part-time
dental receptionist in Harrogate, who retires, loses her gentleman friend to Spain, downsizes to a
bungalow on Whitby's West Cliff, sells her car, eats fish and then meat again after thirty-one
vegetarian years, goes back to coffee, swaps her church choir for a ukulele group, loses her old cat and
adopts a greyhound, meets a retired trawlerman and starts an Open University degree. Eight ``update``
questions (present tense; evidence = the turn with the NEWEST statement, in her own words: the move names
the West Cliff and the Abbey, not the town), four ``past`` questions and three ``static`` ones. Later
sessions mention old states in passing and hold small talk sharing the questions' words (a daughter's
coffee machine, a friend's new job and move, a granddaughter turning vegetarian, an old partner's dog).
Written apart from the search code, to be run once, at the end. LoCoMo layout (written by
``make_heldout_more.build``), so ``changes_bench.py --data FILE`` and ``anchormem eval locomo`` run on it.
"""

from __future__ import annotations

from make_heldout_more import Question, Session, write_chat

U, A = "user", "assistant"

SESSIONS: list[Session] = [
    (
        "10:20 am on 14 January, 2022",
        [
            (
                U,
                "Good morning. My granddaughter Poppy set this up on my tablet for me at Christmas so I thought "
                "I'd give it a go. I'm Jean, I'm 65 and I live in Harrogate, have done for nearly forty years now.",
            ),
            (A, "Good morning, Jean! Lovely to meet you. What can I help you with today?"),
            (
                U,
                "Well first of all the heating. We've a draughty old three bed semi off Skipton Road and the back "
                "bedroom is like an ice box. Is it worth getting those thermal curtain linings or is that a con?",
            ),
            (
                A,
                "Thermal linings do help, especially on draughty windows. Pair them with a draught excluder "
                "and keep that door shut.",
            ),
            (
                U,
                "Right, I'll have a look in Dunelm at the weekend. I only work Monday, Tuesday and Wednesday now, "
                "on reception at a dental practice on Cold Bath Road, so Thursdays are my pottering days.",
            ),
            (A, "Three days sounds like a nice balance. Reception at a dentist's must mean a lot of nervous patients!"),
            (
                U,
                "Oh you wouldn't believe it, grown men shaking in the waiting room. I give them a wine gum and "
                "tell them Mr Patel has the gentlest hands in Yorkshire.",
            ),
            (A, "That's a kind touch, a friendly face at the desk makes a real difference."),
            (
                U,
                "Can you give me a good vegetarian recipe for a cold night? I've not eaten meat since 1991, I gave "
                "it up after reading a leaflet at the library and never looked back, but I'm running out of ideas.",
            ),
            (
                A,
                "A butter bean and leek stew with mustard and cheese dumplings is warming and cheap. Or a "
                "mushroom and chestnut cottage pie.",
            ),
            (
                U,
                "Ooh dumplings. Dennis will like that, he's my gentleman friend, we've been courting four years "
                "now though we keep our own houses. He's a carnivore but he never complains at my table.",
            ),
            (A, "That sounds like a happy arrangement. Dumplings win over most people, meat-eaters included."),
            (
                U,
                "And what can I drink of an evening that isn't tea? I had to give up coffee in the autumn, my "
                "heart was doing funny fluttery things and the doctor said cut the caffeine. I miss my morning "
                "cup terribly.",
            ),
            (
                A,
                "Rooibos is caffeine free and has a rich taste; chicory 'coffee' or a good decaf are "
                "also worth trying.",
            ),
        ],
    ),
    (
        "3:05 pm on 26 February, 2022",
        [
            (
                U,
                "Hello again. It's blowing a gale here and Biscuit won't go out, she sits by the back door "
                "glaring at me as if I'd arranged the weather. She's seventeen now, my old ginger cat, so I "
                "don't blame her.",
            ),
            (A, "Seventeen is a grand age for a cat! She's earned the right to stay by the radiator."),
            (
                U,
                "Choir practice tonight at St Wilfrid's, we're doing Stainer's Crucifixion for Easter. I've sung "
                "alto with them for twelve years. Any tips for a croaky throat?",
            ),
            (A, "Warm water with honey and lemon, a bit of steam, and some gentle humming to warm up before you sing."),
            (
                U,
                "My birthday's in July, the 14th, and Karen wants to take me to Betty's for afternoon tea. She's "
                "my daughter, she's a ward sister at Leeds General. Is it silly to book that far ahead?",
            ),
            (A, "Not silly at all, Betty's gets very busy in summer. Booking early is sensible."),
            (
                U,
                "I drove over to Ripon yesterday in the Micra to see my friend Sheila. The little car's fourteen "
                "years old and still starts first time every morning, touch wood.",
            ),
            (A, "Good old Micra, they're known for being reliable. Regular servicing keeps them going."),
            (
                U,
                "Sheila's just started a job at the Co-op at 67! She says she was bored to tears after she "
                "retired from the building society. I said rather her than me.",
            ),
            (A, "Good for Sheila. Plenty of people enjoy a part-time job for the company as much as the money."),
            (
                U,
                "What was the name of that actress in Brief Encounter? The lady. It's been driving me mad all morning.",
            ),
            (A, "Celia Johnson, with Trevor Howard as the doctor."),
            (U, "Celia Johnson! Thank you. Dennis and I watched it last night, he dozed off before the end as usual."),
            (A, "A classic, though perhaps not the best film for staying awake after a big dinner."),
        ],
    ),
    (
        "9:40 am on 8 April, 2022",
        [
            (
                U,
                "Well that's me done. Thursday the 31st of March was my last day at the practice, they gave me a "
                "lovely send off with a cake shaped like a tooth. Retired! I keep waking at seven and thinking I "
                "need to get the bus.",
            ),
            (
                A,
                "Congratulations on your retirement, Jean! A tooth-shaped cake is a wonderful send-off. The body "
                "clock takes a few weeks to catch up.",
            ),
            (
                U,
                "I've had some sad news too. Biscuit died on Tuesday. The vet said her kidneys had given up and "
                "it was kindest to let her go. The house is so quiet without her.",
            ),
            (
                A,
                "I'm so sorry about Biscuit. Seventeen years is a long time to share a home; of course the quiet "
                "feels strange.",
            ),
            (U, "Karen says I should get another cat but I don't think I could, not yet."),
            (A, "There's no rush. Whether and when to have another pet is entirely up to you."),
            (U, "How do I make hot cross buns? The choir are doing a bake sale after the Good Friday service."),
            (
                A,
                "An enriched dough with mixed spice, currants and peel, a flour-paste cross piped on top, and a "
                "sticky apricot glaze straight after baking.",
            ),
            (
                U,
                "Dennis has been a bit quiet lately. His daughter lives out in Spain, near Alicante, and she's "
                "been on at him to go out there.",
            ),
            (A, "That must be unsettling. Have you been able to talk to him about what he's thinking?"),
            (U, "Not properly. Men of his generation don't talk, they mend things in the shed."),
            (
                A,
                "A calm moment, maybe on a walk, can make it feel less like a big sit-down talk.",
            ),
        ],
    ),
    (
        "7:15 pm on 22 May, 2022",
        [
            (
                U,
                "Dennis is going to Spain. For good. He's selling his bungalow to live near his daughter, and he "
                "says it isn't fair to ask me to wait for him, so that's us finished after four years. We had a "
                "cry in the garden centre café, the two of us, like a pair of daft teenagers.",
            ),
            (
                A,
                "Oh Jean, I'm so sorry. It sounds like you cared for each other a great deal, which makes it all "
                "the harder.",
            ),
            (
                U,
                "It's got me thinking though. This house is far too big for me on my own, and the garden is too "
                "much for my knees. I've always dreamt of living by the sea.",
            ),
            (A, "It's a big decision, but downsizing can make life easier. Where by the sea were you thinking?"),
            (U, "Whitby. We went every summer when Karen was small. Sheila thinks I've lost my marbles."),
            (
                A,
                "Whitby is lovely, and you know it already, which helps. It might be worth staying a week "
                "off-season to see how it feels in the quiet months.",
            ),
            (
                U,
                "What's the stamp duty on a bungalow costing about 220 thousand if I'm selling my own house?",
            ),
            (
                A,
                "As a home mover in England you'd pay nothing on the first £125,000 and 2% on the part up to "
                "£250,000, so roughly £1,900. Do check the current rates with your solicitor.",
            ),
            (
                U,
                "That's not as bad as I feared. I rang the estate agent this afternoon, they're coming Tuesday "
                "to value the house.",
            ),
            (
                A,
                "That's a good first step. Have a tidy round and make a list of any work you've had done, like "
                "a new boiler.",
            ),
            (
                U,
                "And a silly question. Can parrots really live to eighty? Karen's neighbour has an African grey "
                "that's older than she is.",
            ),
            (A, "Not silly! African greys often live 40 to 60 years in captivity, and a few have passed 70."),
        ],
    ),
    (
        "11:30 am on 19 July, 2022",
        [
            (
                U,
                "Hello love, sorry I've been quiet. Completion was on the 1st and the removal men got everything "
                "into the little bungalow up on the West Cliff in one day. Well, nearly everything, the wardrobe "
                "wouldn't go round the corner. I'm typing this with the Abbey looking at me across the harbour "
                "from my kitchen window!",
            ),
            (
                A,
                "Jean, that's wonderful news! The Abbey from your kitchen window, what a way to start each day. "
                "Sorry about the wardrobe.",
            ),
            (
                U,
                "Karen and Poppy took me to Betty's last Thursday for my birthday after all, they drove all the "
                "way up to fetch me. 66! Poppy's eight now and she had a Fat Rascal and nothing else.",
            ),
            (A, "Happy belated birthday! A Fat Rascal at Betty's is a fine choice at any age."),
            (
                U,
                "I've sold the Micra as well. There's nowhere to park up here, the streets are so steep and "
                "narrow, and with my bus pass I can get to Scarborough or out to Robin Hood's Bay for nothing. "
                "A young lad from Sleights bought it for his first car.",
            ),
            (
                A,
                "That sounds sensible, and the coast buses are scenic. Nice to think of the Micra starting first "
                "time for someone new.",
            ),
            (
                U,
                "Now don't tell anyone. Thirty-one years without meat or fish and I had haddock and chips on the "
                "harbour wall on Saturday. It smelt so good I couldn't resist, and I've had fish twice since. I "
                "feel like I've committed a crime.",
            ),
            (A, "No crime at all! Fresh Whitby haddock is hard to resist. Eat whatever makes you happy."),
            (
                U,
                "How do I get the smell of the previous owners' dog out of the carpets? They were nice people "
                "but my word.",
            ),
            (
                A,
                "Sprinkle bicarbonate of soda, leave it overnight and hoover. For deep smells, hire a carpet "
                "cleaner and use an enzyme pet-odour solution.",
            ),
            (
                U,
                "I still miss Dennis some evenings. He sent a photo from Spain of him in shorts, brown as a "
                "conker, by a swimming pool. He looks happy, and I'm glad for him, really I am.",
            ),
            (
                A,
                "It's natural to miss him and be glad for him at the same time. It sounds like you parted with "
                "a lot of kindness.",
            ),
        ],
    ),
    (
        "2:45 pm on 3 September, 2022",
        [
            (
                U,
                "I have a new lodger! Her name is Nell, she's a retired racing greyhound, five years old, from "
                "the rescue kennels near Pickering. She sleeps nineteen hours a day on the settee and is "
                "frightened of the hoover. Karen says I said I'd never have another pet, and she's right, but I "
                "took one look at her.",
            ),
            (
                A,
                "Oh, congratulations on Nell! Greyhounds make wonderful, gentle companions, and they're champion "
                "sleepers.",
            ),
            (U, "What should I feed her? The kennels gave me a bag of something but she turns her nose up."),
            (
                A,
                "Many greyhounds do well on a good complete kibble mixed with a little wet food or cooked "
                "chicken. Change foods gradually over a week.",
            ),
            (
                U,
                "I've joined a ukulele group! The Whitby Strummers, they meet Wednesday afternoons in the "
                "community centre. I've no idea what I'm doing but at least it's not Stainer's Crucifixion. I've "
                "not been near a choir since I left Harrogate.",
            ),
            (
                A,
                "How fun! Start with C, A minor, F and G7 and you'll be able to play hundreds of songs.",
            ),
            (
                U,
                "There's a widower there called Frank, a retired trawlerman with hands like shovels, and he "
                "plays beautifully. He walked Nell and me home on Wednesday and carried my ukulele case.",
            ),
            (A, "He sounds like a gentleman. A walk home after music is a nice way to get to know someone."),
            (
                U,
                "Now I've another confession. I'm back on the coffee. Frank took me to a little café on Church "
                "Street and I thought one won't hurt, and now I have a cafetière every morning. No flutters so "
                "far. Dr Ahmed said at my check-up one or two a day is fine as long as I keep an eye on it.",
            ),
            (
                A,
                "Good that you checked with your doctor. Enjoy your morning cup, and just notice how you feel.",
            ),
            (
                U,
                "Sheila rang, she's moving to be nearer her son in Northallerton. Everybody's moving! She says "
                "she'll come and visit once she's settled.",
            ),
            (A, "It sounds like a season of changes for all of you. It'll be lovely to have her visit."),
            (U, "What year was Dracula written? Poppy asked and I didn't know, and living here I should."),
            (
                A,
                "Bram Stoker's Dracula was published in 1897; he got some of the idea while staying in Whitby in 1890.",
            ),
        ],
    ),
    (
        "10:00 am on 29 October, 2022",
        [
            (
                U,
                "I've gone and done something daft at my age. I've enrolled with the Open University, a degree "
                "in history, starting this month. My first assignment is on the Whitby whaling trade and I'm in "
                "the library every morning. Never went to university when I was young, girls from our street "
                "didn't.",
            ),
            (
                A,
                "That's not daft at all, it's wonderful! The Open University has plenty of students in their "
                "sixties and beyond. What a great first topic.",
            ),
            (
                U,
                "How do I do footnotes in Word on the tablet? My tutor wants Harvard referencing, whatever that is.",
            ),
            (
                A,
                "Harvard style puts the author and year in brackets in the text, like (Smith, 2010), with a full "
                "reference list at the end, so you don't need footnotes at all.",
            ),
            (
                U,
                "Frank's been helping me with the whaling, his grandfather went out on the boats. We've been "
                "seeing a lot of each other, and Karen asked me straight out on the phone if he's my boyfriend. I "
                "said at sixty-six you don't have boyfriends, but yes, I suppose he is. He's ever so good to me.",
            ),
            (A, "That's lovely news, Jean. Whatever you call it, it sounds like you make each other happy."),
            (
                U,
                "He made a beef stew on Sunday and I ate every bit of it, and a second helping. So that's my "
                "vegetarian days well and truly over, fish, meat, the lot. Karen laughed her head off.",
            ),
            (A, "It sounds like a delicious stew! Lots of people's eating habits change with a new chapter."),
            (
                U,
                "Poppy has decided she's vegetarian now, at eight, after a school trip to a farm. Karen's tearing "
                "her hair out. What can I make her when they visit?",
            ),
            (A, "Vegetable lasagne, cheese and onion pie or bean burgers usually go down well with children."),
            (U, "Nell has learnt to do a zoomie round the garden and then she's exhausted for the rest of the day."),
            (A, "That's classic greyhound behaviour, one short sprint and then a very long nap!"),
        ],
    ),
    (
        "4:20 pm on 9 December, 2022",
        [
            (
                U,
                "The Strummers are playing carols at the Christmas market on the Saturday and I'm terrified. "
                "Frank says just smile and strum and nobody will notice.",
            ),
            (A, "That's good advice! With carols everyone will be singing along anyway."),
            (U, "Can you give me a recipe for mulled wine for a crowd? About twenty people."),
            (
                A,
                "For twenty: four bottles of red, two oranges studded with cloves, four cinnamon sticks, a few "
                "star anise, 200g sugar and a splash of brandy. Warm it gently and never let it boil.",
            ),
            (
                U,
                "Karen's bought one of those fancy bean to cup coffee machines for her kitchen, it cost more "
                "than my first car. She drinks it black and strong like engine oil.",
            ),
            (A, "Bean-to-cup machines are a lovely treat for coffee lovers, though they are an investment!"),
            (
                U,
                "Dennis sent a Christmas card from Spain with a photo of his new dog. He's taken up golf and "
                "says it's seventy degrees there.",
            ),
            (A, "It's kind that you've stayed in touch. It sounds like he's settled in well."),
            (
                U,
                "I passed my first OU assignment, 72! My tutor said my section on the whaling ships was "
                "excellent. I read the email at the bus stop and cried.",
            ),
            (A, "Congratulations, Jean! 72 is a very good mark, especially for a first assignment."),
            (U, "Is it safe for Nell to have a bit of turkey on Christmas Day?"),
            (
                A,
                "Plain cooked turkey with no skin, bones or gravy is fine in small amounts. Keep her away from "
                "onions, stuffing and Christmas pudding.",
            ),
            (
                U,
                "Do you remember when I was in that great big cold house in Harrogate asking about curtains? "
                "This bungalow's so snug I've hardly had the heating on.",
            ),
            (A, "What a difference! It sounds like the move has suited you in more ways than one."),
        ],
    ),
]

QUESTIONS: list[Question] = [
    (
        "Where does the user live?",
        "Whitby, in a bungalow on the West Cliff",
        "Hello love, sorry I've been quiet.",
        "update",
    ),
    (
        "What does the user do now?",
        "She is retired and studying for a history degree with the Open University",
        "I've gone and done something daft",
        "update",
    ),
    (
        "Who is the user's partner?",
        "Frank, a retired trawlerman and widower from her ukulele group",
        "Frank's been helping me with the whaling",
        "update",
    ),
    (
        "Does the user drink coffee?",
        "Yes, she is back on it: a cafetière every morning",
        "Now I've another confession. I'm back on the coffee.",
        "update",
    ),
    ("Is the user vegetarian?", "No, she eats fish and meat now", "He made a beef stew on Sunday", "update"),
    ("Does the user have a pet?", "Yes, Nell, a retired racing greyhound", "I have a new lodger!", "update"),
    (
        "Does the user drive?",
        "No, she sold her Micra and uses her bus pass",
        "I've sold the Micra as well.",
        "update",
    ),
    (
        "What music group is the user in?",
        "The Whitby Strummers, a ukulele group",
        "I've joined a ukulele group!",
        "update",
    ),
    (
        "Where did the user live before Whitby?",
        "Harrogate (a three bed semi off Skipton Road)",
        "Good morning. My granddaughter Poppy",
        "past",
    ),
    (
        "What was the user's job before she retired?",
        "Part-time receptionist at a dental practice on Cold Bath Road",
        "Right, I'll have a look in Dunelm",
        "past",
    ),
    ("Who was the user's partner before Frank?", "Dennis, her gentleman friend", "Ooh dumplings.", "past"),
    ("When did the user retire?", "On 31 March 2022", "Well that's me done.", "past"),
    ("When is the user's birthday?", "14 July", "My birthday's in July", "static"),
    (
        "Where did the user go on holiday when her daughter was small?",
        "Whitby, every summer",
        "Whitby. We went every summer",
        "static",
    ),
    ("What mark did the user get for her first OU assignment?", "72", "I passed my first OU assignment", "static"),
]


def main() -> None:
    write_chat(__doc__ or "", "changes_fresh6.json", "changes-fresh6-whitby", SESSIONS, QUESTIONS)


if __name__ == "__main__":
    main()
