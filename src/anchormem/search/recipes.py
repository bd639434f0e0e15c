"""The retrieval recipes by name (``RetrievalSettings.variant``): what each one scores and chooses is
described in :mod:`anchormem.search.retrieve`. Light on purpose (no numpy): the shells list the names."""

from __future__ import annotations

from dataclasses import dataclass

from anchormem.config import RetrievalSettings
from anchormem.errors import ConfigError


@dataclass(frozen=True)
class Recipe:
    """How one retrieval variant scores and chooses contexts."""

    mode: str = "hybrid"  # "hybrid" | "rrf" | "paper" | "facts" | "bm25"
    w_dense: float = 1.0  # cosine of a context's best facts (soft maximum, ``dense_temperature``)
    dense_temperature: float = 0.08  # 0: the best fact alone
    w_lexical: float = 1.0  # BM25 of the context text
    w_fact_lexical: float = 0.0  # BM25 of a context's best fact
    w_events: float = 0.0  # events voting for their source facts' contexts
    expand_facts: int = 0  # query expansion: words of this many best facts (0: off; no gain measured)
    expand_terms: int = 10
    expand_weight: float = 0.2
    shared_turns: bool = True  # each signal spread over the turns windows share (``shared_turn_mean``)
    mmr_lambda: float = 0.7  # 1.0: plain ranking
    pool: int = 40  # candidates considered by the selection (at least 4x the contexts asked for)
    depth: int = 100  # ranked candidates per signal (rank-based modes)
    return_events: bool = True
    rerank: bool = True  # run the stages named in ``RetrievalSettings.rerankers`` (hybrid mode)


RECIPES: dict[str, Recipe] = {
    "anchormem": Recipe(),
    "paper": Recipe(mode="paper"),
    "no-events": Recipe(return_events=False),
    "bm25": Recipe(mode="bm25", return_events=False),
    "chunks": Recipe(mode="chunks", return_events=False),
}
"""The recipes by name: the public ones above, plus any an experiment registered (:func:`register_recipe`)."""


def register_recipe(name: str, recipe: Recipe) -> Recipe:
    """Make ``recipe`` a retrieval variant named ``name`` (``[retrieval] variant``, ``search(variant=...)``)."""
    if name in RECIPES and RECIPES[name] != recipe:
        raise ConfigError(f"retrieval variant {name!r} is registered already")
    RECIPES[name] = recipe
    return recipe


def recipe_named(variant: str) -> Recipe:
    """The recipe of the retrieval variant ``variant``; a :class:`ConfigError` for an unknown name."""
    if variant not in RECIPES:
        raise ConfigError(f"unknown retrieval variant {variant!r}; known: {', '.join(sorted(RECIPES))}")
    return RECIPES[variant]


def candidate_count(settings: RetrievalSettings, recipe: Recipe) -> int:
    """Facts the index is asked for: enough for every consumer of the scores in one search."""
    return max(settings.ann_candidates, settings.k_facts, recipe.depth, recipe.pool, recipe.expand_facts, 1)
