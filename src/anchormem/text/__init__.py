"""Text, times and dates that both pipelines read: message times and date spellings, tokens, BM25 (also over word
pieces), a speaker's voice. It imports nothing of ingest, index, search or answer."""
