"""Answering from a search result: the reader step, citations, the prompt block and rendering."""
