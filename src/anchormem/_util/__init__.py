"""Internal helpers shared across the packages: ``with`` for resources (:mod:`.closeable`), optional
extras (:mod:`.extras`), the retrying HTTP client of the OpenAI-compatible backends (:mod:`.http`) and
methods declared once for several facades (:mod:`.bound`). Not public API."""
