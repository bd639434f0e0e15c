"""The variants ``anchormem eval`` accepts: every retrieval recipe, then the evaluation's own (light: the
CLI lists them without loading the evaluation)."""

from __future__ import annotations

from anchormem.search.recipes import RECIPES

# Variants only the evaluation has, each with the retrieval recipe it runs: ``no-context`` retrieves like
# ``anchormem`` but shows the reader the anchor facts instead of the contexts.
EVAL_ONLY_VARIANTS: dict[str, str] = {"no-context": "anchormem"}


def eval_variants() -> tuple[str, ...]:
    """Every variant the evaluation accepts: each retrieval recipe, then the evaluation's own."""
    return (*RECIPES, *EVAL_ONLY_VARIANTS)
