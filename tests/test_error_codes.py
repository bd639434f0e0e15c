"""The error-code table (``anchormem/data/error_codes.json``): every entry reachable, each code raised back
by a client as the error the service answered it for, and the Python names the table had as constants."""

from __future__ import annotations

import pytest

from anchormem import errors
from anchormem.client.errors import error_from_code
from anchormem.server.errors import classify
from anchormem.wire import error_codes
from anchormem.wire.error_codes import client_errors, http_codes, library_errors


def test_no_entry_is_hidden_behind_a_more_general_one_before_it() -> None:
    table = library_errors()
    for i, (general, _, _) in enumerate(table):
        later = [kind for kind, _, _ in table[i + 1 :] if issubclass(kind, general)]
        assert later == [], f"{general.__name__} comes before its subclasses {later}"


def test_the_service_answers_each_library_error_with_its_code() -> None:
    answered = {kind: (status, code) for kind, status, code in library_errors()}
    assert classify(errors.LLMNotConfiguredError("no llm")) == (409, "llm_not_configured")
    assert classify(errors.StoreFullError("disk")) == (507, "store_full")
    assert classify(errors.MissingExtraError("server", "serve", None)) == answered[errors.ConfigError]
    assert classify(errors.AccessDeniedError("key")) == (500, "internal_error")


@pytest.mark.parametrize("kind,status,code", library_errors(), ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_client_raises_back_the_error_the_code_was_answered_for(
    kind: type[errors.AnchorMemError], status: int, code: str
) -> None:
    raised = error_from_code(code, "message", status)
    expected = errors.ServiceError if code == "internal_error" else kind
    assert type(raised) is expected and raised.code == code and raised.status == status  # type: ignore[attr-defined]


def test_http_level_codes_map_to_the_error_the_same_mistake_raises() -> None:
    assert http_codes()[422] == "validation_error" and http_codes()[413] == "payload_too_large"
    assert client_errors()["validation_error"] is errors.InputError
    assert client_errors()["forbidden"] is errors.AccessDeniedError
    assert type(error_from_code("unknown_code", "x", 404)) is errors.NotFoundError


def test_the_tables_keep_their_constant_names() -> None:
    assert library_errors() == error_codes.LIBRARY_ERRORS
    assert http_codes() == error_codes.HTTP_CODES
    assert client_errors() == error_codes.CLIENT_ERRORS
    with pytest.raises(AttributeError):
        error_codes.NO_SUCH_TABLE  # noqa: B018
