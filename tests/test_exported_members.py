"""The top level exports what a user picks between, each importable by name (lazily: nothing heavy loads)."""

from __future__ import annotations

import subprocess
import sys

import anchormem


def test_every_exported_name_imports() -> None:
    for name in anchormem.__all__:
        assert getattr(anchormem, name) is not None, name


def test_the_http_clients_are_exported() -> None:
    from anchormem import AsyncClient, Client
    from anchormem.client import AsyncClient as AsyncClientClass
    from anchormem.client import Client as ClientClass

    assert Client is ClientClass and AsyncClient is AsyncClientClass


def test_importing_anchormem_loads_nothing_heavy() -> None:
    code = "import sys, anchormem; print(sorted(m for m in ('numpy', 'httpx', 'onnxruntime') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
