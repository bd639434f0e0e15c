"""Old names of the search and answer modules, which moved when the rooms were renamed: the in-memory copy of a scope to
:mod:`anchormem.index`, the search pipeline to :mod:`anchormem.search` (its rerank stages to
:mod:`anchormem.search.rerank`), answering to :mod:`anchormem.answer`, text, times and dates to
:mod:`anchormem.text`, the record reader to :mod:`anchormem.records`. ``anchormem.query.<name>`` still
imports the moved module itself (with a ``DeprecationWarning``); new code uses the new names."""

from anchormem._util.moved import keep_old_names

_MOVED = {
    **{m: f"anchormem.text.{m}" for m in ("dates", "times", "lexical", "voice")},
    **{
        m: f"anchormem.index.{m}"
        for m in (
            "snapshot",
            "cache",
            "evolve",
            "snapshot_file",
            "snapshot_files",
            "packed",
            "ann",
            "rowindex",
            "rows",
            "store_rows",
            "shared_list",
            "neighbours",
            "merge",
        )
    },
    **{
        m: f"anchormem.search.{m}"
        for m in ("retrieve", "recipes", "scoring", "fuse", "select", "filters", "trace", "events", "explain")
    },
    "rerank": "anchormem.search.rerank.stage",
    **{m: f"anchormem.search.rerank.{m}" for m in ("earlier", "recency", "own_words", "subject", "tense")},
    **{m: f"anchormem.answer.{m}" for m in ("answer", "citations", "render", "highlight")},
    "records": "anchormem.records",
}

keep_old_names(__name__, _MOVED)
