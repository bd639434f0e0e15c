"""Versioned prompt templates, each with the parser (schema) of its expected answer."""
