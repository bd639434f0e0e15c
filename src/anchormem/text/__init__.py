"""Text, times and dates that both pipelines read: message times and date spellings, tokens and BM25, a
speaker's voice. It imports nothing of ingest, index, search or answer."""
