"""The OpenAI Agents SDK: anchormem as function tools, a session and automatic recall
(``pip install 'anchormem[openai-agents]'``).

- :func:`memory_tools`: ``search_memory`` and ``add_memory`` ``FunctionTool``\\ s for
  ``Agent(tools=[...])``. Whose memory they touch is fixed when they are made, or read per run from
  the run context (``Runner.run(agent, input, context=...)``: an object or dict with ``user_id``),
  never chosen by the model.
- :class:`AnchorMemSession`: a ``Session`` for ``Runner.run(..., session=...)``. The SDK's own
  session (an in-memory ``SQLiteSession`` unless you give one) keeps the exact turn-by-turn items the
  model replays, tool calls included; every user and assistant message is also added to the
  user's long-term memory, as a session of the conversation named by ``session_id``. ``pop_item``
  removes the popped message from long-term memory too; ``clear_session`` clears the history and,
  with ``forget_on_clear=True``, that session's long-term memory.
- :func:`recall`: a ``RunConfig(call_model_input_filter=...)`` hook that, before each model call,
  searches memory for the latest user message and adds what it finds to the instructions.

Every function here works over a ``Memory``, ``AsyncMemory``, ``Client`` or ``AsyncClient``; the
SDK is async, so a blocking ``Memory`` or ``Client`` runs in a worker thread.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Unpack

from anchormem._util.extras import requires_extra
from anchormem.errors import AnchorMemError, InputError, NotFoundError
from anchormem.ingest.messages import TIME_FIELDS, identify
from anchormem.integrations.binding import Binding, MemoryLike, ScopeOptions, SearchOptions, as_text
from anchormem.integrations.tool_text import ADD_DESCRIPTION, SEARCH_DESCRIPTION

with requires_extra("openai-agents", "anchormem.integrations.openai_agents"):
    from agents import FunctionTool, RunContextWrapper, Session, SQLiteSession
    from agents.run_config import CallModelData, ModelInputData

__all__ = ["AnchorMemSession", "memory_tools", "message_text", "recall"]

UserSource = str | Callable[[Any], str] | None
"""Whose memory: a user id, a function of the run context giving one, or ``None`` for the run
context's ``user_id`` (attribute or key)."""


def _schema(name: str, description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
        "additionalProperties": False,
    }


def resolve_user(source: UserSource, context: Any) -> str:
    """The user id ``source`` names for a run whose context is ``context``."""
    if isinstance(source, str):
        return source
    chosen: Any
    if callable(source):
        chosen = source(context)
    elif isinstance(context, Mapping):
        chosen = context.get("user_id")
    else:
        chosen = getattr(context, "user_id", None)
    if not isinstance(chosen, str) or not chosen:
        raise InputError(
            "no user for anchormem: give user_id=... or run with a context that has a user_id "
            "(Runner.run(agent, input, context={'user_id': ...}))"
        )
    return chosen


def memory_tools(
    memory: MemoryLike, *, user_id: UserSource = None, speaker: str = "user", **scope: Unpack[SearchOptions]
) -> list[FunctionTool]:
    """``search_memory`` and ``add_memory`` over ``memory`` (a ``Memory``, ``AsyncMemory``, ``Client``
    or ``AsyncClient``). ``speaker`` names the author of remembered statements. Bad arguments from the
    model and failures of the memory (an unreachable service, say) are told to the model as the tool's
    answer; a run with no user raises :class:`~anchormem.errors.InputError`. ``agent_id``, ``run_id``
    and ``k``: see :class:`~anchormem.integrations.binding.SearchOptions`."""
    base = Binding(memory, "-", **scope)

    async def search(ctx: RunContextWrapper[Any], raw: str) -> str:
        binding = base.scoped(resolve_user(user_id, ctx.context))  # no user: the application's error, raised
        try:
            return as_text(await binding.asearch(_argument(raw, "query")))
        except AnchorMemError as exc:  # the model's arguments, or the memory failing: told to the model
            return f"memory search failed: {exc}"

    async def add(ctx: RunContextWrapper[Any], raw: str) -> str:
        binding = base.scoped(resolve_user(user_id, ctx.context))
        try:
            message = {"role": speaker, "content": _argument(raw, "content"), "timestamp": _now()}
            report = await binding.aadd([message])
        except AnchorMemError as exc:
            return f"storing the memory failed: {exc}"
        return f"stored {report.turns_added} new turn(s)"

    query_help = "what to look for, as a question or a few words (e.g. 'name of Ana's dog')"
    content_help = "the statement to remember, in the user's own words where possible"
    return [
        FunctionTool(
            name="search_memory",
            description=SEARCH_DESCRIPTION,
            params_json_schema=_schema("query", query_help),
            on_invoke_tool=search,
        ),
        FunctionTool(
            name="add_memory",
            description=ADD_DESCRIPTION,
            params_json_schema=_schema("content", content_help),
            on_invoke_tool=add,
        ),
    ]


def _argument(raw: str, name: str) -> str:
    try:
        value = json.loads(raw or "{}").get(name)
    except (ValueError, AttributeError) as exc:
        raise InputError(f"the tool arguments are not a JSON object: {raw[:200]!r}") from exc
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"the tool argument {name!r} must be a non-empty string")
    return value


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def message_text(item: Mapping[str, Any]) -> str | None:
    """The text of a user or assistant message item (Responses format), or ``None`` for any other item
    (tool calls and their outputs, reasoning, ...). Content parts: text and refusals are kept, joined
    by newlines; other parts (images, files, audio) are left out."""
    if item.get("type", "message") != "message" or item.get("role") not in ("user", "assistant"):
        return None
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = [p.get("text") or p.get("refusal") for p in content if isinstance(p, Mapping)]
        text = "\n".join(p for p in parts if isinstance(p, str) and p.strip())
    else:
        return None
    return text if text.strip() else None


class AnchorMemSession:
    """A ``Session`` that keeps the SDK's history and adds the conversation to long-term memory.

    ``AnchorMemSession("thread-42", memory, user_id="maya")``; ``history`` is the session that keeps
    the exact items (default: ``SQLiteSession(session_id)``, in memory; give
    ``SQLiteSession(session_id, "chats.db")`` to keep it on disk). ``names`` maps roles to the speaker
    names stored (``{"user": "Maya", "assistant": "Coach"}``; default the roles themselves): facts
    read better with names. Each message goes through the library's message normaliser
    (:mod:`anchormem.ingest.messages`): its id comes from its content, so an item added again is stored
    once, and its time is the item's own (``timestamp``, ``created_at``, ...) if it has one, else the
    time it was added.
    """

    def __init__(
        self,
        session_id: str,
        memory: MemoryLike,
        *,
        user_id: str,
        history: Session | None = None,
        names: Mapping[str, str] | None = None,
        forget_on_clear: bool = False,
        **scope: Unpack[ScopeOptions],
    ) -> None:
        self.session_id = session_id
        self.history: Session = history if history is not None else SQLiteSession(session_id)
        self.session_settings = getattr(self.history, "session_settings", None)
        unknown = sorted(set(scope) - ScopeOptions.__optional_keys__)  # k, say: a Binding would take it
        if unknown:
            raise TypeError(f"AnchorMemSession() got an unexpected keyword argument {unknown[0]!r}")
        self.binding = Binding(memory, user_id, **scope)
        self.names = dict(names or {})
        self.forget_on_clear = forget_on_clear

    def _messages(self, items: Sequence[Any]) -> list[dict[str, Any]]:
        """The user and assistant messages among ``items`` as stored: each with the id the message
        normaliser gives it from its content (an item sent again adds nothing), and the item's own time if
        it has one, else the time it is added."""
        said = [m for item in items if (m := self._said(item)) is not None]
        added = {"timestamp": _now()}
        return [
            {**m, "id": turn_id, **({} if msg.time_given else added)}
            for m, (msg, turn_id) in zip(said, identify(said, "session items"), strict=True)
        ]

    def _said(self, item: Any) -> dict[str, Any] | None:
        if not isinstance(item, Mapping):
            return None
        text = message_text(item)
        if text is None:
            return None
        role = str(item["role"])
        times = {name: item[name] for name in TIME_FIELDS if item.get(name) not in (None, "")}
        return {"role": self.names.get(role, role), "content": text, "session": self.session_id, **times}

    def recall(self, *, k: int | None = None) -> Callable[[CallModelData[Any]], Any]:
        """:func:`recall` for the user and scope of this Session object, leaving out the contexts it added itself
        (the model has them as history): ``RunConfig(call_model_input_filter=session.recall())``."""
        b = self.binding
        return recall(
            b.memory, user_id=b.user_id, agent_id=b.agent_id, run_id=b.run_id, k=k, exclude_session=self.session_id
        )

    async def get_items(self, limit: int | None = None) -> list[Any]:
        return await self.history.get_items(limit)

    async def add_items(self, items: list[Any]) -> None:
        await self.history.add_items(items)
        messages = self._messages(items)
        if messages:
            await self.binding.aadd(messages)

    async def pop_item(self) -> Any | None:
        item = await self.history.pop_item()
        if item is None:
            return None
        for message in self._messages([item]):
            with contextlib.suppress(NotFoundError):  # it never reached long-term memory, or is gone
                await self.binding.adelete(turn=message["id"])
        return item

    async def clear_session(self) -> None:
        await self.history.clear_session()
        if self.forget_on_clear:
            with contextlib.suppress(NotFoundError):
                await self.binding.adelete(session=self.session_id)


RECALL_HEADER = "Memories of earlier conversations with this user (original words, with dates):"


def recall(
    memory: MemoryLike,
    *,
    user_id: UserSource = None,
    exclude_session: str | None = None,
    **scope: Unpack[SearchOptions],
) -> Callable[[CallModelData[Any]], Any]:
    """A ``call_model_input_filter`` that adds the memories for the latest user message to the
    instructions before each model call: ``RunConfig(call_model_input_filter=recall(memory))``.
    Nothing is added when the user has no memory yet or nothing matches. ``exclude_session`` leaves
    out contexts of that session (the one the model already sees as its history; see
    :meth:`AnchorMemSession.recall`)."""
    base = Binding(memory, "-", **scope)

    async def hook(data: CallModelData[Any]) -> ModelInputData:
        query = next((t for item in reversed(data.model_data.input) if (t := _user_text(item))), None)
        if query is None:
            return data.model_data
        result = await base.scoped(resolve_user(user_id, data.context)).asearch(query)
        if exclude_session is not None:
            kept = tuple(hit for hit in result.contexts if hit.context.session != exclude_session)
            result = replace(result, contexts=kept)
        if not result.contexts and not result.events:
            return data.model_data
        block = f"{RECALL_HEADER}\n\n{as_text(result)}"
        instructions = f"{data.model_data.instructions}\n\n{block}" if data.model_data.instructions else block
        return replace(data.model_data, instructions=instructions)

    return hook


def _user_text(item: Any) -> str | None:
    if isinstance(item, Mapping) and item.get("role") == "user":
        return message_text(item)
    return None
