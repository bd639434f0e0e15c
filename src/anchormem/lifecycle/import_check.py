"""Whether a validated export fits the store it is imported into: same embedder, same dimension.

Vectors of another embedder (or of another dimension under the same name) would import, then break
the next add and every search; they are refused before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable

from anchormem.embed.protocol import Embedder
from anchormem.errors import ConfigError, InputError
from anchormem.lifecycle.portable import ImportPlan


def check_fits(
    plan: ImportPlan, stored_name: str | None, stored_dim: int | None, embedder: Callable[[], Embedder]
) -> None:
    """Refuse ``plan`` unless its embedder and dimension are the store's (or, for a store without
    vectors yet, this memory's embedder's). ``embedder`` is called only when the store has none."""
    if plan.embedder is None:
        return  # parse_records allows a null embedder only for an export without vectors
    if stored_name is not None:
        name, dim = stored_name, stored_dim
        if plan.embedder != name:
            raise ConfigError(f"the export was embedded with {plan.embedder!r}, this store with {name!r}")
    else:
        ours = embedder()
        name, dim = ours.name, ours.dim
        if plan.embedder != name:
            raise ConfigError(
                f"the export was embedded with {plan.embedder!r}, this memory uses {name!r}; "
                "import with the same embedding backend"
            )
    if dim is not None and plan.dim != dim:
        raise InputError(
            f"record 1 (header): 'dim' is {plan.dim}, but embedder {name!r} of this store has {dim} dimensions"
        )
