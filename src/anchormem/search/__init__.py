"""The search pipeline: recipes, scoring, fusion, selection, filters, the trace, and the rerank stages
(:mod:`anchormem.search.rerank`)."""
