"""``--url`` / ``--api-key``: one command line whether the memory is local or behind a running ``anchormem
serve``. Every command on a memory takes them (``ANCHORMEM_URL`` and ``ANCHORMEM_API_KEY`` set them too):
it runs through the server (the server's store and loaded model; a cold CLI search spends about a second
loading the model), or, when the REST API cannot do what it asks (``import``, ``maintenance``, ``add
--facts``), refuses in words. It never writes to a local store while a server is named."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from anchormem.cli.common import ENV_URL, Handler, remote_options, subcommand, with_memory
from anchormem.errors import InputError

__all__ = [
    "ENV_URL",
    "MemoryCommand",
    "argument",
    "local_only",
    "memory_command",
    "memory_commands",
    "remote_options",
    "server_url",
    "via_server_or_local",
]

LOCAL_ONLY = ("store", "config", "llm_url", "llm_model", "llm_key", "embed_backend")


def server_url(args: argparse.Namespace) -> str | None:
    """The server the command goes to: ``--url``, else ``$ANCHORMEM_URL``; None to run locally."""
    return getattr(args, "url", None) or os.environ.get(ENV_URL) or None


def via_server_or_local(command: Callable[[Any, argparse.Namespace], Any], *, reads: bool = False) -> Handler:
    """A handler that runs ``command`` on a :class:`~anchormem.client.Client` when a server URL is given
    (``--url`` or ``$ANCHORMEM_URL``), else on the local memory the store options name. A command that only
    ``reads`` never creates a local store (a missing one is a :class:`~anchormem.errors.NotFoundError`)."""
    local = with_memory(command, create=not reads)

    def handler(args: argparse.Namespace) -> Any:
        url = server_url(args)
        if not url:
            _no_key_without_server(args)
            return local(args)
        given = [f"--{name.replace('_', '-')}" for name in LOCAL_ONLY if getattr(args, name, None)]
        if given:
            raise InputError(
                f"{', '.join(given)} name a local store or model; with --url (or {ENV_URL}) the server's are used "
                f"(unset {ENV_URL} to use a local store)"
            )
        from anchormem.client import Client

        with Client(url, api_key=args.api_key) as client:
            return command(client, args)

    handler.__name__ = handler.__qualname__ = command.__name__
    handler.__doc__ = command.__doc__
    return handler


@contextmanager
def memory_command(
    sub: Any,
    name: str,
    help: str,
    command: Callable[[Any, argparse.Namespace], Any],
    *,
    reads: bool = False,
    scoped: bool = True,
) -> Iterator[argparse.ArgumentParser]:
    """Register the command ``name`` on a memory, run through the server when one is named, else on the local
    memory (:func:`via_server_or_local`); the ``with`` block adds its arguments (see ``subcommand``)."""
    with subcommand(sub, name, help, via_server_or_local(command, reads=reads), scoped=scoped) as p:
        yield p


def argument(name: str, **options: Any) -> tuple[str, dict[str, Any]]:
    """One ``add_argument(name, **options)`` call as data, for a :class:`MemoryCommand`'s ``arguments``."""
    return name, options


@dataclass(frozen=True)
class MemoryCommand:
    """A command on a memory as a row of data: what :func:`memory_command` takes, and its arguments when each
    is one plain ``add_argument`` call (a command that needs an argument group or a shared set of options
    registers through :func:`memory_command` itself)."""

    name: str
    help: str
    command: Callable[[Any, argparse.Namespace], Any]
    arguments: tuple[tuple[str, dict[str, Any]], ...] = ()
    reads: bool = False
    scoped: bool = True


def memory_commands(sub: Any, table: Iterable[MemoryCommand]) -> None:
    """Register every row of ``table``, in its order."""
    for row in table:
        with memory_command(sub, row.name, row.help, row.command, reads=row.reads, scoped=row.scoped) as p:
            for name, options in row.arguments:
                p.add_argument(name, **options)


def _no_key_without_server(args: argparse.Namespace) -> None:
    if getattr(args, "api_key", None):
        raise InputError(f"--api-key goes with --url (or {ENV_URL}): a local store takes no key")


def local_only(handler: Handler, what: str) -> Handler:
    """``handler`` for a command the REST API cannot run (``what`` says why): refused in words when a server is
    named (``--url`` or ``$ANCHORMEM_URL``), never run on a local store instead."""

    def checked(args: argparse.Namespace) -> Any:
        if server_url(args):
            raise InputError(
                f"{what}, so it cannot run through --url (or {ENV_URL}): run it where the store is, with "
                f"--store (unset {ENV_URL} first)"
            )
        _no_key_without_server(args)
        return handler(args)

    checked.__name__ = checked.__qualname__ = handler.__name__
    checked.__doc__ = handler.__doc__
    return checked
