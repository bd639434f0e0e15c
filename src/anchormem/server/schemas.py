"""Request and response bodies (pydantic), as the OpenAPI schema shows them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from anchormem.query.retrieve import RECIPES

MAX_MESSAGES = 20_000
MAX_PAGE = 1000

Kind = Literal["turns", "contexts", "facts", "events"]


class Message(BaseModel):
    """One message. ``speaker`` (or ``role``) and ``text`` (or ``content``) are required."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "example": {
                "speaker": "Priya",
                "text": "I adopted an orange tabby, his name is Biscuit.",
                "timestamp": "9:30 am on 23 March, 2024",
                "session": "2",
            }
        },
    )

    speaker: str | None = Field(None, max_length=256)
    role: str | None = Field(None, max_length=256)
    text: str | None = None
    content: str | None = None
    timestamp: str | None = Field(None, max_length=256)
    session: str | None = Field(None, max_length=256)
    id: str | None = Field(None, max_length=256)


class AddRequest(BaseModel):
    """A list of ``messages``, or one LoCoMo-format ``conversation`` (an object with
    ``sample_id`` and ``conversation``). ``background``: run as a job (202 and a job to poll);
    by default, requests with more than the server's threshold of turns run in the background."""

    model_config = ConfigDict(extra="forbid")

    messages: list[Message] | None = Field(None, max_length=MAX_MESSAGES)
    conversation: dict[str, Any] | None = None
    agent_id: str | None = Field(None, max_length=256)
    run_id: str | None = Field(None, max_length=256)
    background: bool | None = None


VARIANT_FIELD: Any = Field(
    None,
    max_length=32,
    description="retrieval recipe (default: the server's setting)",
    json_schema_extra={"enum": list(RECIPES)},
)


def _known_variant(value: str | None) -> str | None:
    if value is not None and value not in RECIPES:
        raise ValueError(f"unknown retrieval variant {value!r}; choose one of {', '.join(RECIPES)}")
    return value


class _RecallRequest(BaseModel):
    """What a search and an answer request share: the scope below the user, ``k``, the recipe, whether
    sub-scopes are searched too, and the filters (see docs/search.md)."""

    model_config = ConfigDict(extra="forbid")

    agent_id: str | None = Field(None, max_length=256)
    run_id: str | None = Field(None, max_length=256)
    k: int | None = Field(None, ge=1, le=200)
    variant: str | None = VARIANT_FIELD
    include_subscopes: bool = Field(
        True,
        description="also search the scope's sub-scopes: a user's agents and runs, an agent's runs "
        "(false: the exact scope only)",
    )
    filters: dict[str, Any] | None = Field(
        None,
        description="metadata equality: only messages whose metadata has every one of these key/value pairs "
        '(e.g. {"topic": "work"}); a key no message has gives an empty result',
    )
    session: str | None = Field(None, min_length=1, max_length=256, description="only this session's messages")
    since: str | int | float | None = Field(
        None,
        description="only messages at or after this time (ISO 8601 or Unix seconds/ms); messages without a "
        "known time are left out when since or until is given",
    )
    until: str | int | float | None = Field(
        None, description="only messages at or before this time (ISO 8601 or Unix seconds/ms)"
    )

    _variant = field_validator("variant")(_known_variant)


class SearchRequest(_RecallRequest):
    query: str = Field(..., min_length=1, max_length=10_000)
    max_contexts: int | None = Field(None, ge=1, le=200)
    format: Literal["json", "prompt"] = Field(
        "json",
        description="json: contexts best first (rank 1 = highest score) with provenance and events; "
        "prompt: {query, prompt, turn_ids}, the memories as one prompt-ready block (see max_chars)",
    )
    max_chars: int | None = Field(None, ge=1, le=1_000_000, description="budget of the prompt block (format=prompt)")


class AnswerRequest(_RecallRequest):
    question: str = Field(..., min_length=1, max_length=10_000)


class ErrorDetail(BaseModel):
    code: str = Field(..., examples=["not_found"])
    message: str


class ErrorResponse(BaseModel):
    error: ErrorDetail


class Page(BaseModel):
    """One page of a list: ``next_offset`` is null on the last page."""

    items: list[dict[str, Any]]
    total: int
    offset: int
    limit: int
    next_offset: int | None


class JobProgress(BaseModel):
    stage: str
    done: int
    total: int


class Job(BaseModel):
    """A background ingest. ``status``: queued, running, succeeded or failed; ``result`` is the
    ingest report once succeeded, ``error`` the stable error once failed."""

    id: str
    user_id: str
    agent_id: str | None
    run_id: str | None
    status: Literal["queued", "running", "succeeded", "failed"]
    turns: int
    progress: list[JobProgress]
    created: float
    started: float | None
    finished: float | None
    result: dict[str, Any] | None
    error: ErrorDetail | None


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    jobs_running: int


class UserList(BaseModel):
    users: list[dict[str, str | None]]
