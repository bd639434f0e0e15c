"""``anchormem serve`` (REST API), ``anchormem serve-key`` (API keys) and ``anchormem mcp`` (MCP server)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from anchormem._util.extras import requires_extra
from anchormem.cli.common import flag, open_memory, positive_int, remote_options, store_options
from anchormem.cli.remote import local_only
from anchormem.errors import ConfigError

DEFAULT_PORT = 8420
DEFAULT_MCP_PORT = 8421


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the REST API (FastAPI + uvicorn)")
    # not required by argparse: a core install is told first that the server extra is missing
    p.add_argument("--keys", help="API keys file, required (create keys with: anchormem serve-key add)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--max-body", type=positive_int, default=8 * 1024 * 1024, help="largest request body in bytes (8 MiB)"
    )
    p.add_argument(
        "--background-turns",
        type=int,
        default=200,
        help="adds with more turns run as background jobs unless the request says otherwise (200)",
    )
    p.add_argument("--jobs", type=positive_int, default=2, help="background ingest jobs run at once (2)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    store_options(p)
    remote_options(p)
    p.set_defaults(handler=local_only(cmd_serve, "anchormem serve serves a store of this machine"))

    p = sub.add_parser("serve-key", help="create, list or revoke API keys of the REST API")
    inner = p.add_subparsers(dest="key_command", required=True, metavar="KEY_COMMAND")
    k = inner.add_parser("add", help="create a key (printed once; only its sha256 is stored)")
    k.add_argument("--keys", required=True, help="API keys file (created if missing)")
    k.add_argument("--user", action="append", default=[], help="a user this key may access (repeatable)")
    flag(k, "--admin", help="the key may access every user")
    k.add_argument("--note", default="", help="what the key is for")
    store_options(k)
    k.set_defaults(handler=cmd_key_add)
    k = inner.add_parser("list", help="list keys (ids, users; never the keys)")
    k.add_argument("--keys", required=True, help="API keys file")
    store_options(k)
    k.set_defaults(handler=cmd_key_list)
    k = inner.add_parser("revoke", help="remove a key by its id")
    k.add_argument("id", help="key id (k-...)")
    k.add_argument("--keys", required=True, help="API keys file")
    store_options(k)
    k.set_defaults(handler=cmd_key_revoke)

    p = sub.add_parser("mcp", help="serve one user's memory to agents over MCP (stdio or streamable HTTP)")
    p.add_argument("--user", help="user id whose memory the tools use (give --user, --agent or both)")
    p.add_argument("--agent", help="agent id (optional finer scope)")
    p.add_argument("--run", help="run id (optional finer scope)")
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default; for agent tools that spawn the server) or streamable HTTP",
    )
    p.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_MCP_PORT, help=f"HTTP port (default {DEFAULT_MCP_PORT})")
    p.add_argument("--path", default="/mcp", help="HTTP endpoint path (default /mcp)")
    store_options(p)
    remote_options(p)
    p.set_defaults(handler=local_only(cmd_mcp, "anchormem mcp serves a store of this machine to an agent"))


def cmd_serve(args: argparse.Namespace) -> Any:
    with requires_extra("server", "anchormem serve"):
        import uvicorn

        from anchormem.server.app import create_app
    from anchormem.server.keys import KeyRing

    if not args.keys:
        raise ConfigError(
            "anchormem serve needs --keys FILE, the API keys it accepts "
            "(create one with: anchormem serve-key add --keys FILE --user USER)"
        )
    _log_to_stderr(args.log_level)
    keys = KeyRing(args.keys)
    memory = open_memory(args)
    try:
        memory.store.ping()  # a store that cannot open (damaged, unreachable) says why before uvicorn starts
        app = create_app(
            memory, keys, max_body=args.max_body, background_turns=args.background_turns, job_concurrency=args.jobs
        )
        print(
            f"anchormem: serving {memory.settings.store} on http://{args.host}:{args.port} once the store is open "
            f"and the embedding model loaded ({len(keys)} keys; OpenAPI at /openapi.json, docs at /docs)",
            file=sys.stderr,
        )
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    finally:
        memory.close()
    return None


class _StderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is when a line is logged."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(self.format(record), file=sys.stderr)
        except Exception:
            self.handleError(record)


def _log_to_stderr(level: str) -> None:
    """Show the service's own log lines (startup, failed requests) beside uvicorn's."""
    logger = logging.getLogger("anchormem")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(level.upper())


def cmd_key_add(args: argparse.Namespace) -> Any:
    from anchormem.server.keys import create_key

    raw, key = create_key(Path(args.keys).expanduser(), args.user, admin=args.admin, note=args.note)
    if args.json:
        return {"key": raw, "id": key.id, "users": list(key.users), "admin": key.admin}
    who = "every user" if key.admin else ", ".join(key.users)
    return f"{raw}\n(key {key.id} for {who}; shown only now: {args.keys} keeps its sha256)"


def cmd_key_list(args: argparse.Namespace) -> Any:
    from anchormem.server.keys import read_keys

    keys = read_keys(Path(args.keys).expanduser())
    if args.json:
        return [{k: v for k, v in key.to_dict().items() if k != "sha256"} for key in keys]
    return (
        "\n".join(f"{k.id}  {'ADMIN' if k.admin else ','.join(k.users)}  {k.created}  {k.note}" for k in keys)
        or "(no keys)"
    )


def cmd_key_revoke(args: argparse.Namespace) -> Any:
    from anchormem.server.keys import revoke_key

    key = revoke_key(Path(args.keys).expanduser(), args.id)
    return {"revoked": key.id} if args.json else f"revoked {key.id}"


def cmd_mcp(args: argparse.Namespace) -> Any:
    with requires_extra("server", "anchormem mcp"):
        from anchormem.server.mcp import build_server
        from anchormem.server.mcp_stdio import run_stdio
    from anchormem.server.warmup import warm_up

    memory = open_memory(args)
    try:
        seconds = warm_up(memory)
        print(f"anchormem: store open and embedding model loaded in {seconds:.1f} s", file=sys.stderr)
        server = build_server(memory, user_id=args.user, agent_id=args.agent, run_id=args.run)
        if args.transport == "stdio":
            run_stdio(server)
        else:
            server.run("streamable-http", host=args.host, port=args.port, streamable_http_path=args.path)
    finally:
        memory.close()
    return None
