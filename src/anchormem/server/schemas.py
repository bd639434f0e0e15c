"""Request and response bodies (pydantic), as the OpenAPI schema shows them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    field_validator,
)

from anchormem.search.recipes import RECIPES

MAX_MESSAGES = 20_000
MAX_PAGE = 1000

Kind = Literal["turns", "contexts", "facts", "events"]
TimeValue = StrictStr | StrictInt | StrictFloat
"""A time as sent: ISO 8601 text or Unix seconds/ms; ``true`` is not a time (no lax coercion)."""


class Message(BaseModel):
    """One message (documentation of the accepted shape; the service reads it with the same
    normaliser as the library, so errors name the message and field the same way on every path).
    Who: ``speaker``, else ``name``, else ``role``; what: ``text``, else ``content`` (a string or
    OpenAI content parts: text parts joined, others kept as ``[image]``, ``[audio]``, ``[file: …]``);
    when: ``timestamp``, ``created_at`` or ``time`` (ISO 8601, Unix seconds or milliseconds, or free
    text kept as given). Other keys are ignored (``user_id``, ``agent_id``, ``run_id`` are refused).
    Without an ``id``, the id comes from the session,
    speaker, text and time, so re-sending a message adds nothing new."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "example": {
                "role": "user",
                "name": "Priya",
                "content": [{"type": "text", "text": "I adopted an orange tabby, his name is Biscuit."}],
                "created_at": 1711186200,
                "session": "2",
                "metadata": {"channel": "chat"},
            }
        },
    )

    role: str | None = Field(None, max_length=256, description="user, assistant, system or tool")
    content: str | list[dict[str, Any]] | None = Field(
        None, description="the text, or OpenAI content parts ({type: text, text}, image_url, input_audio, file, …)"
    )
    name: str | None = Field(None, max_length=256, description="who said it (the speaker; the role goes to metadata)")
    speaker: str | None = Field(None, max_length=256, description="who said it (instead of role/name)")
    text: str | None = Field(None, description="what was said (instead of content)")
    created_at: str | float | None = Field(None, description="ISO 8601, Unix seconds or milliseconds, or free text")
    timestamp: str | float | None = Field(None, description="the same as created_at")
    time: str | float | None = Field(None, description="the same as created_at")
    session: str | None = Field(None, max_length=256, description="session label (default '1')")
    id: str | None = Field(None, max_length=256, description="turn id (default: from the message's content)")
    metadata: dict[str, Any] | None = Field(None, description="free JSON stored with the turn")
    image_caption: str | None = Field(None, description="a caption of an image shared with the message")


MESSAGE_SCHEMA = Message.model_json_schema()
AnyMessage = Annotated[Any, WithJsonSchema(MESSAGE_SCHEMA)]
"""A message as sent: checked by the library's normaliser, not by the request model, so errors read
the same as on every other path."""


class AddRequest(BaseModel):
    """A list of ``messages``, or one LoCoMo-format ``conversation`` (an object with
    ``sample_id`` and ``conversation``). ``background``: run as a job (202 and a job to poll);
    by default, requests with more than the server's threshold of turns run in the background. ``batch``: the
    add's LLM requests wait for a batch file (``/v1/batch/export``) instead of live calls; the messages are
    stored and searchable at once (docs/batch.md)."""

    model_config = ConfigDict(extra="forbid")

    messages: list[AnyMessage] | None = Field(None, max_length=MAX_MESSAGES)
    conversation: dict[str, Any] | None = None
    agent_id: str | None = Field(None, max_length=256)
    run_id: str | None = Field(None, max_length=256)
    background: StrictBool | None = None
    readd: StrictBool = Field(
        False,
        description="store again messages a delete removed (default false: a re-sent deleted message is skipped "
        "and counted in the report's notes)",
    )
    batch: StrictBool = False


class UpdateRequest(BaseModel):
    """The new text of one turn, and the scope below the user that holds it."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"example": {"text": "I adopted a grey tabby, his name is Biscuit."}}
    )

    text: str = Field(..., description="the turn's new text (like a message's: not empty, at most 100,000 characters)")
    agent_id: str | None = Field(None, max_length=256)
    run_id: str | None = Field(None, max_length=256)


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
    include_subscopes: StrictBool = Field(
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
    since: TimeValue | None = Field(
        None,
        description="only messages at or after this time (ISO 8601 or Unix seconds/ms); messages without a "
        "known time are left out when since or until is given",
    )
    until: TimeValue | None = Field(
        None, description="only messages at or before this time (ISO 8601 or Unix seconds/ms)"
    )

    _variant = field_validator("variant")(_known_variant)


class SearchRequest(_RecallRequest):
    query: str = Field(..., min_length=1, max_length=10_000)
    max_contexts: int | None = Field(None, ge=1, le=200)
    format: Literal["json", "prompt"] = Field(
        "json",
        description="json: contexts best first (rank 1 = highest score) with provenance and events; "
        "prompt: {query, prompt, turn_ids, labels}, the memories as one prompt-ready block (see max_chars), "
        "the turns it shows and the #n labels it uses for generated turn ids",
    )
    max_chars: int | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="characters of context text the search may return (default: the server's "
        "retrieval.max_chars, 10,000); with format=prompt also the budget of the prompt block",
    )


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
