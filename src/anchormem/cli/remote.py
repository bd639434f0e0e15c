"""``--url`` / ``--api-key``: run a command through a running ``anchormem serve`` instead of opening the
store and loading the embedding model in this process (a cold CLI search spends about a second loading
the model; the server has it loaded). ``ANCHORMEM_URL`` and ``ANCHORMEM_API_KEY`` set them too."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from anchormem.cli.common import Handler, with_memory
from anchormem.errors import InputError

ENV_URL = "ANCHORMEM_URL"  # as anchormem.client.transport reads it (not imported here: it loads httpx)

LOCAL_ONLY = ("store", "config", "llm_url", "llm_model", "llm_key", "embed_backend")


def remote_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("through a running server")
    g.add_argument(
        "--url",
        help=f"base URL of a running anchormem serve, e.g. http://127.0.0.1:8420 (env {ENV_URL}): the server "
        "searches its store with its loaded model, so the command starts fast",
    )
    g.add_argument("--api-key", help="API key for --url (env ANCHORMEM_API_KEY)")


def via_server_or_local(command: Callable[[Any, argparse.Namespace], Any]) -> Handler:
    """A handler that runs ``command`` on a :class:`~anchormem.client.Client` when a server URL is given
    (``--url`` or ``$ANCHORMEM_URL``), else on the local memory the store options name."""
    local = with_memory(command)

    def handler(args: argparse.Namespace) -> Any:
        url = args.url or os.environ.get(ENV_URL)
        if not url:
            return local(args)
        given = [f"--{name.replace('_', '-')}" for name in LOCAL_ONLY if getattr(args, name, None)]
        if given:
            raise InputError(
                f"{', '.join(given)} name a local store or model; with --url (or {ENV_URL}) the server's are used "
                f"(unset {ENV_URL} to search locally)"
            )
        from anchormem.client import Client

        with Client(url, api_key=args.api_key) as client:
            return command(client, args)

    handler.__name__ = handler.__qualname__ = command.__name__
    handler.__doc__ = command.__doc__
    return handler
