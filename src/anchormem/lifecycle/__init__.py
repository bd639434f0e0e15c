"""Memory that lives: deletion with cascade, the append-only history, export and import."""
