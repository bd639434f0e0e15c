"""The public API is ``anchormem.__all__``: this test pins it (as httpx's
``tests/test_exported_members.py`` does), so a name is added or removed on purpose."""

from __future__ import annotations

import subprocess
import sys

import anchormem
from anchormem import errors

PUBLIC = {
    "__version__",
    "Memory",
    "AsyncMemory",
    "Client",
    "AsyncClient",
    "Settings",
    "Scope",
    "SearchResult",
    "AnchorMemError",
    "ConfigError",
    "MissingExtraError",
    "InputError",
    "NotFoundError",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
    "EmbeddingError",
    "LLMError",
    "LLMUnavailableError",
    "LLMResponseError",
    "LLMNotConfiguredError",
    "AccessDeniedError",
    "ServiceError",
}


def test_all_is_the_public_api() -> None:
    assert set(anchormem.__all__) == PUBLIC
    assert len(anchormem.__all__) == len(PUBLIC)  # no name twice
    assert sorted(dir(anchormem)) == sorted(PUBLIC)


def test_every_exported_member_resolves_and_names_its_home() -> None:
    for name in anchormem.__all__:
        member = getattr(anchormem, name)
        if name == "__version__":
            assert isinstance(member, str)
            continue
        assert member.__module__.startswith("anchormem."), name
        assert member.__name__ == name


def test_every_error_of_the_tree_is_exported_and_drawn() -> None:
    tree = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.AnchorMemError)
    }
    assert tree <= set(anchormem.__all__)
    doc = errors.__doc__ or ""
    assert all(name in doc for name in tree)


def test_the_http_clients_are_exported() -> None:
    from anchormem import AsyncClient, Client
    from anchormem.client import AsyncClient as AsyncClientClass
    from anchormem.client import Client as ClientClass

    assert Client is ClientClass and AsyncClient is AsyncClientClass


def test_importing_anchormem_loads_nothing_heavy() -> None:
    code = "import sys, anchormem; print(sorted(m for m in ('numpy', 'httpx', 'onnxruntime') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
