"""What crosses the boundary between the library and its shells (CLI, REST, MCP, the REST clients).

- :mod:`~anchormem.wire.validation`: what a value from outside may hold (texts, labels, ids, bounds);
- :mod:`~anchormem.wire.scopes`: a call's scope (user, agent, run) from its keyword arguments, checked;
- :mod:`~anchormem.wire.args`: the keyword arguments the facades share (``ScopeArgs``, ``SearchArgs``);
- :mod:`~anchormem.wire.serialize` / :mod:`~anchormem.wire.deserialize`: results as JSON and back;
- :mod:`~anchormem.wire.error_codes`: the exception tree as stable error codes and HTTP statuses.

Light on purpose (the model and the errors, no numpy, no store): the REST clients import it.
"""
