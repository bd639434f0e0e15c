"""Rerank stages: the stage contract (:mod:`.stage`) and the built-in stages."""
