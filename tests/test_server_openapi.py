"""docs/openapi.json is the service's schema as it is now (regenerate it when this fails)."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from anchormem.server.openapi import render

DOC = Path(__file__).resolve().parents[1] / "docs" / "openapi.json"


def test_checked_in_schema_is_current() -> None:
    assert DOC.exists(), "run: python -m anchormem.server.openapi docs/openapi.json"
    assert json.loads(DOC.read_text(encoding="utf-8")) == json.loads(render()), (
        "docs/openapi.json is stale; regenerate: python -m anchormem.server.openapi docs/openapi.json"
    )


def test_schema_is_served_and_documents_auth(memory: Memory) -> None:
    with TestClient(create_app(memory, KeyRing())) as client:
        schema = client.get("/openapi.json").json()
    assert schema["info"]["title"] == "anchormem"
    assert {"HTTPBearer", "APIKeyHeader"} <= set(schema["components"]["securitySchemes"])
    for path in (
        "/v1/users/{user_id}/memories",
        "/v1/users/{user_id}/search",
        "/v1/users/{user_id}/export",
        "/v1/users/{user_id}/jobs/{job_id}",
        "/v1/health",
    ):
        assert path in schema["paths"]
