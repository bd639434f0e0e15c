"""What every ``anchormem`` command shares: the store/model options, the scope options, the
settings they give, and the one way a command is run (``handler(args) -> result``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from anchormem.config import Settings
from anchormem.errors import ConfigError, NotFoundError
from anchormem.registries import EMBEDDERS as BACKENDS
from anchormem.search.recipes import RECIPES

if TYPE_CHECKING:
    from anchormem.memory import Memory

Handler = Callable[[argparse.Namespace], Any]
"""A command: parsed arguments in, a result out (printed as text, or as JSON with ``--json``;
``None`` prints nothing)."""


def positive_int(text: str) -> int:
    """An argparse ``type`` for counts: a whole number of 1 or more, else a one-line usage error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def store_options(p: argparse.ArgumentParser) -> None:
    """``--store``, ``--config``, the LLM and embedder, ``--json`` and ``--quiet``."""
    g = p.add_argument_group("store and models")
    g.add_argument("--store", help="store file (env ANCHORMEM_STORE; default ~/.anchormem/memory.db)")
    g.add_argument("--config", help="TOML config file (env ANCHORMEM_CONFIG)")
    g.add_argument(
        "--llm-url", help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (env ANCHORMEM_LLM_BASE_URL)"
    )
    g.add_argument("--llm-model", help="model name at that endpoint (env ANCHORMEM_LLM_MODEL)")
    g.add_argument("--llm-key", help="API key (env ANCHORMEM_LLM_API_KEY or OPENAI_API_KEY)")
    g.add_argument(
        "--embed-backend",
        choices=list(BACKENDS),
        help="embedding backend (default minilm: all-MiniLM-L6-v2, offline)",
    )
    flag(g, "--json", help="machine-readable JSON output")
    flag(g, "--quiet", "-q", help="no progress bars")


def flag(p: argparse._ActionsContainer, *names: str, help: str) -> None:
    """An on/off option (``store_true``): off unless given."""
    p.add_argument(*names, action="store_true", help=help)


def scope_options(p: argparse.ArgumentParser, required: bool = False) -> None:
    """``--user`` (whose memory), ``--agent`` and ``--run``: a user, an agent alone (its own memory), or both."""
    p.add_argument("--user", required=required, help="user id (whose memory; give --user, --agent or both)")
    p.add_argument("--agent", help="agent id (optional finer scope)")
    p.add_argument("--run", help="run id (optional finer scope)")


ENV_URL = "ANCHORMEM_URL"  # as anchormem.client.transport reads them (not imported here: it loads httpx)
ENV_KEY = "ANCHORMEM_API_KEY"


def remote_options(p: argparse.ArgumentParser) -> None:
    """``--url`` and ``--api-key``: every command on a memory takes them, and either runs through the server
    or refuses them in words (never runs on a local store while a server is named)."""
    g = p.add_argument_group("through a running server")
    g.add_argument(
        "--url",
        help=f"base URL of a running anchormem serve, e.g. http://127.0.0.1:8420 (env {ENV_URL}): the command "
        "runs on the server's memory, with its loaded model",
    )
    g.add_argument("--api-key", help=f"API key for --url (env {ENV_KEY})")


@contextmanager
def subcommand(
    sub: Any, name: str, help: str, handler: Handler, *, scoped: bool = True
) -> Iterator[argparse.ArgumentParser]:
    """Register the command ``name`` (run by ``handler``): ``--user/--agent/--run`` unless it is not
    ``scoped``, then the arguments the ``with`` block adds, then the store and model options and
    ``--url``/``--api-key``."""
    p = sub.add_parser(name, help=help)
    if scoped:
        scope_options(p)
    yield p
    store_options(p)
    remote_options(p)
    p.set_defaults(handler=handler)


def variant_option(p: argparse.ArgumentParser) -> None:
    """``--variant``: one of the retrieval recipes."""
    p.add_argument(
        "--variant",
        choices=list(RECIPES),
        metavar="VARIANT",
        help=f"retrieval recipe: {', '.join(RECIPES)} (default anchormem)",
    )


def settings_from(args: argparse.Namespace) -> Settings:
    """The settings the options give (over the environment and the config file), with the
    retrieval variant and embedding backend checked against their registries."""
    overrides: dict[str, Any] = {
        "store": args.store,
        "llm__base_url": args.llm_url,
        "llm__model": args.llm_model,
        "llm__api_key": args.llm_key,
        "embed__backend": args.embed_backend,
    }
    settings = Settings.load(config_file=args.config, **overrides)
    check_names(settings)
    return settings


def check_names(settings: Settings) -> None:
    """A :class:`ConfigError` for a retrieval variant or embedding backend no registry holds."""
    if settings.retrieval.variant not in RECIPES:
        raise ConfigError(
            f"unknown retrieval variant {settings.retrieval.variant!r}; choose one of {', '.join(RECIPES)}"
        )
    if settings.embed.backend not in BACKENDS:
        raise ConfigError(f"unknown embedding backend {settings.embed.backend!r}; choose one of {', '.join(BACKENDS)}")


def scope_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"user_id": args.user, "agent_id": args.agent, "run_id": args.run}


def open_memory(args: argparse.Namespace, *, create: bool = True) -> Memory:
    """The :class:`Memory` the options name (nothing is opened or loaded until first use). With ``create``
    False (a command that only reads), a SQLite store file that does not exist is a :class:`NotFoundError`:
    a read never creates a store (a mistyped ``--store`` must not leave an empty one behind)."""
    from anchormem.memory import Memory
    from anchormem.store.factory import sqlite_file

    settings = settings_from(args)
    path = sqlite_file(settings.store_location)
    if not create and path is not None and not path.exists():
        raise NotFoundError(
            f"no store at {path}: nothing is stored there yet (check --store or ANCHORMEM_STORE; "
            "a read never creates a store)"
        )
    return Memory(settings)


def with_memory(command: Callable[[Memory, argparse.Namespace], Any], *, create: bool = True) -> Handler:
    """A handler that runs ``command`` on the memory the options name, closed afterwards (``create`` as
    :func:`open_memory` takes it)."""

    def handler(args: argparse.Namespace) -> Any:
        with open_memory(args, create=create) as memory:
            return command(memory, args)

    handler.__name__ = handler.__qualname__ = command.__name__
    handler.__doc__ = command.__doc__
    return handler
