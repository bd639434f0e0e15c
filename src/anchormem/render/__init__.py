"""Text forms of results: a search result as one prompt-ready block (:mod:`.prompt_block`, what
:meth:`SearchResult.as_prompt <anchormem.model.SearchResult.as_prompt>` returns).

It imports the model only for type checkers, so the model can render itself through it without an
import cycle."""
