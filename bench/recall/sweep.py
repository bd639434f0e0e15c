"""Ad-hoc ladder runs over recipe variations: python sweep.py pack|offline [name filter...]"""

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import recipes  # noqa: F401  (registers the experiment recipes)
from locomo_recall import build_offline, build_pack, evaluate, fmt, load_locomo

from anchormem.search.retrieve import Recipe

path = sys.argv[1]
samples = load_locomo()
convs = build_pack(samples) if path == "pack" else build_offline(samples)
base = Recipe()
ladder = {
    "rrf dense-facts + bm25-contexts": Recipe(mode="rrf"),
    "score fusion (normalised cos + bm25)": replace(base, mmr_lambda=1.0),
    "score fusion + expansion from 5 best facts": replace(base, mmr_lambda=1.0, expand_facts=5),
    "+ MMR 0.7 (default)": base,
    "default + expansion from 5 best facts": replace(base, expand_facts=5),
    "default + fact BM25 0.5": replace(base, w_fact_lexical=0.5),
    "default + events 0.3": replace(base, w_events=0.3),
    "default mmr 0.8": replace(base, mmr_lambda=0.8),
    "default mmr 0.6": replace(base, mmr_lambda=0.6),
    "default pool 20": replace(base, pool=20),
    "default + expansion from 10 best facts": replace(base, expand_facts=10),
}
only = sys.argv[2:]
for name, r in ladder.items():
    if only and not any(o in name for o in only):
        continue
    print(fmt(name, evaluate(convs, r)), flush=True)
