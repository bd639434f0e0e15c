"""The SQL store, written once for SQLite and PostgreSQL (:mod:`anchormem.store.sqlite` and
:mod:`anchormem.store.postgres` beside this package supply what is each database's own).

- :mod:`~anchormem.store.sql.core`: :class:`~anchormem.store.sql.core.SQLStore`, every method of the
  :class:`~anchormem.store.protocol.Store` protocol over a scope's records;
- :mod:`~anchormem.store.sql.bookkeeping`: what it keeps beside them (meta, usage, history, idempotent
  requests, forgotten hashes);
- :mod:`~anchormem.store.sql.base`: the plumbing under it (lock, transactions, error translation,
  migrations on open, maintenance);
- :mod:`~anchormem.store.sql.dialect`: what differs between databases (tokens, vector codec, driver);
- :mod:`~anchormem.store.sql.keys`: how a scope is named in every table;
- :mod:`~anchormem.store.sql.codec`: how records are stored as rows (columns, encoders, decoders);
- :mod:`~anchormem.store.sql.reads`: reads narrowed by id, session or status, and counts by ``COUNT``;
- :mod:`~anchormem.store.sql.integrity`: what keeps forgetting true against concurrent writers;
- :mod:`~anchormem.store.sql.lifecycle`: deletion, linking state, the append-only history;
- :mod:`~anchormem.store.sql.requests`: idempotency records of write requests;
- :mod:`~anchormem.store.sql.migrations`: the named, append-only schema migrations of both databases.
"""
