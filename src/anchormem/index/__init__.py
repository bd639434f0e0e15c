"""The in-memory copy of a scope that search reads: the snapshot, its per-process cache and how adds and
other processes' changes evolve it, its packed arrays and snapshot files, and the ANN view of a store that
keeps one."""
