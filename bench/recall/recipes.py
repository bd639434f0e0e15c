"""Experiment recipes: the variants kept for the measured ladder (``BENCHMARKS.md``), registered into the
library's recipe registry by importing this module (``import recipes`` from a script in ``bench/recall``, or
``anchormem.search.retrieve.register_recipe`` for your own). None of them is a public variant.

- ``anchormem-v2``: ``anchormem`` with the plain best fact as the dense signal (before the soft maximum);
- ``anchormem-v1``: ``anchormem-v2`` without turn spreading and without the rerank stages (the first default);
- ``anchormem-events``: ``anchormem`` where events also vote for their source facts' contexts;
- ``rrf``: reciprocal rank fusion of the facts' cosine ranking and the contexts' BM25 ranking;
- ``facts``: facts by cosine mapped to contexts until ``max_contexts`` distinct contexts.
"""

from __future__ import annotations

from anchormem.search.retrieve import Recipe, register_recipe

EXPERIMENTS = {
    "anchormem-v1": Recipe(shared_turns=False, rerank=False, dense_temperature=0.0),
    "anchormem-v2": Recipe(dense_temperature=0.0),
    "anchormem-events": Recipe(w_events=1.0),
    "rrf": Recipe(mode="rrf", return_events=False),
    "facts": Recipe(mode="facts", return_events=False),
}
for _name, _recipe in EXPERIMENTS.items():
    register_recipe(_name, _recipe)
