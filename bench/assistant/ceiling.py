"""How far the offline signals can reach: is the answer in the first three under any one of them?

    PYTHONPATH=src python bench/assistant/ceiling.py bench/data/assistant/<chat>.json ... [--kind current]

The default recipe fuses signals and reranks within a bound (docs/search.md); it cannot put a context first
that none of its signals ranks high. For each question of one kind (``current``: the evidence is the newest
statement; ``stable``; …) this counts whether an evidence-holding context (or message) is among the first three
under each signal alone, and under *any* of them (an oracle that picks the best signal per question, which no
ranking can beat without a new signal):

- ``anchormem``: the default search;
- ``anchors``: the anchors' cosine alone (the default recipe without BM25, stages or diversity);
- ``lexical``: BM25 of the contexts alone, through the same recipe (``bm25``: the plain BM25 recipe);
- ``message-dense`` / ``message-rrf``: each message its own document, MiniLM alone / fused with BM25 (the
  message-level baseline of ``assistant_bench.py``).

Messages are sent as ``role``/``content`` (``--speakers named``: the user's name), as in ``assistant_bench.py``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from assistant_bench import kind_of, loaded

from anchormem.search.recipes import Recipe, register_recipe

SIGNALS = ("anchormem", "anchors", "lexical", "bm25", "message-dense", "message-rrf")


def first_three(paths: list[str], kind: str, speakers: str) -> tuple[int, dict[str, int]]:
    plain = Recipe(rerank=False, mmr_lambda=1.0, return_events=False)  # one signal, ranked as it is
    register_recipe("ceiling-anchors", replace(plain, w_lexical=0.0))
    register_recipe("ceiling-lexical", replace(plain, w_dense=0.0))
    recipes = {"anchormem": "anchormem", "anchors": "ceiling-anchors", "lexical": "ceiling-lexical", "bm25": "bm25"}
    tally = dict.fromkeys((*SIGNALS, "any"), 0)
    asked = 0
    for memory, user, sample, base in loaded(paths, speakers):
        for qa in sample["qa"]:
            if kind_of(qa) != kind:
                continue
            asked += 1
            question = qa.get("question_named", qa["question"]) if speakers == "named" else qa["question"]
            gold = set(qa["evidence"])
            found: dict[str, bool] = {}
            for name, recipe in recipes.items():
                hits = memory.search(question, user_id=user, variant=recipe).contexts[:3]
                found[name] = any(gold & set(h.context.turn_ids) for h in hits)
            dense, _, fused = base.rankings(question)
            found["message-dense"] = any(base.ids[i] in gold for i in dense[:3])
            found["message-rrf"] = any(base.ids[i] in gold for i in fused[:3])
            found["any"] = any(found.values())
            for name, hit in found.items():
                tally[name] += hit
    return asked, tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--kind", default="current", help="question kind (stable, current, earlier, date, multi)")
    parser.add_argument("--speakers", choices=("roles", "named"), default="roles")
    args = parser.parse_args()
    asked, tally = first_three(args.data, args.kind, args.speakers)
    print(f"{asked} {args.kind} questions; an evidence-holding context (or message) in the first three:")
    for name, count in tally.items():
        print(f"  {name:14s} {count:4d} / {asked}  ({count / max(asked, 1):.0%})")


if __name__ == "__main__":
    main()
