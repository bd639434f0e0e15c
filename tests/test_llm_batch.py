"""Batch files: the product's LLM requests written in the OpenAI Batch API's input format and their
answers read back from its output format, through the same parsing, cache and accounting as live calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchormem.errors import InputError
from anchormem.llm import Accounting, CachedLLM, CompletionParams, complete_parsed
from anchormem.llm.batch import BatchLLM, BatchPendingError
from anchormem.llm.batch_lines import BATCH_URL, BatchRequest
from anchormem.llm.keys import cache_key
from anchormem.llm.structured import UnparsableResponseError
from anchormem.prompts import judge as judge_prompt

QUESTIONS = [("Where does the user live?", "Boulder", "Boulder, Colorado"), ("Who is Leo's father?", "Marco", "Paolo")]


def ask(llm: Any, question: str, gold: str, generated: str) -> bool:
    return complete_parsed(llm, judge_prompt.build(question, gold, generated), judge_prompt.parse)


def run(llm: Any) -> dict[str, bool | None]:
    """Grade every question; None where the answer is still pending."""
    verdicts: dict[str, bool | None] = {}
    for question, gold, generated in QUESTIONS:
        try:
            verdicts[question] = ask(llm, question, gold, generated)
        except BatchPendingError:
            verdicts[question] = None
    return verdicts


def requests_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def answer_line(custom_id: str, text: str, *, usage: bool = True) -> str:
    body: dict[str, Any] = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "model": "reader-1",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127}
    record = {
        "id": "batch_req_1",
        "custom_id": custom_id,
        "response": {"status_code": 200, "body": body},
        "error": None,
    }
    return json.dumps(record)


def test_requests_are_written_in_the_batch_input_format_with_stable_ids(tmp_path: Path) -> None:
    llm = BatchLLM("reader-1", tmp_path / "batch.sqlite")
    assert run(llm) == {q: None for q, _, _ in QUESTIONS}
    (written,) = llm.export(tmp_path / "requests.jsonl")
    lines = requests_of(written)
    assert len(lines) == 2
    first = lines[0]
    assert set(first) == {"custom_id", "method", "url", "body"}
    assert first["method"] == "POST" and first["url"] == BATCH_URL == "/v1/chat/completions"
    messages = judge_prompt.build(*QUESTIONS[0])
    assert first["body"] == {"model": "reader-1", "messages": messages, "temperature": 0.0, "max_tokens": 1024}
    assert first["custom_id"] == cache_key("reader-1", messages, None)
    # the same request always maps to the same line, in another store too
    other = BatchLLM("reader-1", tmp_path / "other.sqlite")
    run(other)
    assert requests_of(other.export(tmp_path / "again.jsonl")[0]) == lines
    # params are part of the request and of its id
    changed = BatchRequest.of("reader-1", messages, CompletionParams(temperature=0.5))
    assert changed.custom_id != first["custom_id"] and changed.body()["temperature"] == 0.5


def test_answers_are_read_back_through_the_same_parsing_and_accounting(tmp_path: Path) -> None:
    llm = BatchLLM("reader-1", tmp_path / "batch.sqlite")
    run(llm)
    lines = requests_of(llm.export(tmp_path / "requests.jsonl")[0])
    results = tmp_path / "results.jsonl"
    # a fenced, chatty answer and a bare word: the live path's cleaning and repair read both
    results.write_text(
        answer_line(lines[0]["custom_id"], 'Sure!\n```json\n{"label": "CORRECT",}\n```')
        + "\n"
        + answer_line(lines[1]["custom_id"], "WRONG", usage=False)
        + "\n",
        encoding="utf-8",
    )
    report = llm.import_results(results)
    assert (report.added, report.already, report.problems, report.missing) == (2, 0, [], [])
    accounting = Accounting()
    accounted = accounting.wrap(llm, "judging")
    assert run(accounted) == {QUESTIONS[0][0]: True, QUESTIONS[1][0]: False}
    usage = accounting.usage("judging")
    assert usage.calls == 2 and usage.failed_calls == 0 and usage.cached_calls == 0
    # the reported usage where the line has it, the live client's estimate where not
    assert usage.prompt_tokens > 120 and usage.completion_tokens == 7 + 2
    # the product's response cache in front: the second run is free
    with CachedLLM(llm, tmp_path / "cache.sqlite") as cached:
        run(accounting.wrap(cached, "again"))
        run(accounting.wrap(cached, "again"))
    assert accounting.usage("again").cached_calls == 2


def test_an_unreadable_answer_is_asked_again_in_the_next_batch(tmp_path: Path) -> None:
    llm = BatchLLM("reader-1", tmp_path / "batch.sqlite")
    question = QUESTIONS[0]
    with pytest.raises(BatchPendingError):
        ask(llm, *question)
    (first,) = requests_of(llm.export(tmp_path / "r1.jsonl")[0])
    results = tmp_path / "o1.jsonl"
    results.write_text(answer_line(first["custom_id"], "Hmm, hard to say.") + "\n", encoding="utf-8")
    assert llm.import_results(results).added == 1
    with pytest.raises(BatchPendingError):
        ask(llm, *question)  # the retry (bad answer + "answer only with JSON") is a new request
    (retry,) = requests_of(llm.export(tmp_path / "r2.jsonl")[0])
    assert retry["body"]["messages"][-1]["content"].startswith("Your previous answer could not be read")
    results.write_text(answer_line(retry["custom_id"], '{"label": "WRONG"}') + "\n", encoding="utf-8")
    llm.import_results(results)
    assert ask(llm, *question) is False
    # a model that never answers readably ends as the live path ends (its second and third tries are the
    # same request, "no idea" + "answer again", so two batch rounds give all three answers)
    stubborn = BatchLLM("reader-2", tmp_path / "b2.sqlite")
    for attempt in range(2):
        with pytest.raises(BatchPendingError):
            ask(stubborn, *question)
        (line,) = requests_of(stubborn.export(tmp_path / f"s{attempt}.jsonl")[0])
        results.write_text(answer_line(line["custom_id"], "no idea") + "\n", encoding="utf-8")
        stubborn.import_results(results)
    with pytest.raises(UnparsableResponseError):
        ask(stubborn, *question)


def test_a_damaged_results_file_is_reported_line_by_line_and_the_rest_used(tmp_path: Path) -> None:
    llm = BatchLLM("reader-1", tmp_path / "batch.sqlite")
    extra = [(f"Question {n}?", "yes", "yes") for n in range(4)]
    for item in extra:
        with pytest.raises(BatchPendingError):
            ask(llm, *item)
    ids = [line["custom_id"] for line in requests_of(llm.export(tmp_path / "requests.jsonl")[0])]
    good = answer_line(ids[0], '{"label": "CORRECT"}')
    failed = json.dumps({"id": "b2", "custom_id": ids[1], "response": None, "error": {"message": "rate limited"}})
    empty_body = json.dumps(
        {"id": "b3", "custom_id": ids[2], "response": {"status_code": 200, "body": {"choices": []}}}
    )
    lines = [
        good,
        "{not json",
        "",
        "[1, 2]",
        json.dumps({"response": {}}),
        answer_line("f" * 64, '{"label": "CORRECT"}'),
        failed,
        empty_body,
        answer_line(ids[0], '{"label": "WRONG"}'),
    ]
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = llm.import_results(results)
    assert report.added == 1
    assert [(p.line, p.kind) for p in report.problems] == [
        (2, "malformed"),
        (4, "malformed"),
        (5, "malformed"),
        (6, "unknown"),
        (7, "failed"),
        (8, "malformed"),
        (9, "duplicate"),
    ]
    assert "rate limited" in str(report.problems[4]) and "line 9" in report.describe()
    assert report.missing == ids[1:] and not report.ok
    assert ask(llm, *extra[0]) is True  # the first answer of the duplicated id is the one kept
    # resume: only what is unanswered goes out again
    (again,) = llm.export(tmp_path / "resume.jsonl", everything=True)
    assert [line["custom_id"] for line in requests_of(again)] == ids[1:]


def test_nothing_answered_is_lost_when_a_later_file_is_damaged(tmp_path: Path) -> None:
    store = tmp_path / "batch.sqlite"
    llm = BatchLLM("reader-1", store)
    run(llm)
    ids = [line["custom_id"] for line in requests_of(llm.export(tmp_path / "requests.jsonl")[0])]
    first = tmp_path / "first.jsonl"
    first.write_text(answer_line(ids[0], '{"label": "CORRECT"}') + "\n", encoding="utf-8")
    assert llm.import_results(first).missing == ids[1:]
    llm.close()
    # a new process: the same store, a results file that is garbage or answers the first id otherwise
    reopened = BatchLLM("reader-1", store)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(
        answer_line(ids[0], '{"label": "WRONG"}')[:-9] + "\n" + answer_line(ids[0], '{"label": "WRONG"}') + "\n",
        encoding="utf-8",
    )
    report = reopened.import_results(damaged)
    assert (report.added, report.already) == (0, 1)
    assert run(reopened) == {QUESTIONS[0][0]: True, QUESTIONS[1][0]: None}
    assert reopened.unanswered() == ids[1:]
    assert [line["custom_id"] for line in requests_of(reopened.export(tmp_path / "rest.jsonl")[0])] == ids[1:]
    with pytest.raises(InputError, match="cannot read batch results"):
        reopened.import_results(tmp_path / "absent.jsonl")


def test_parts_hold_at_most_part_size_requests(tmp_path: Path) -> None:
    llm = BatchLLM("reader-1", tmp_path / "batch.sqlite")
    for n in range(5):
        with pytest.raises(BatchPendingError):
            ask(llm, f"Question {n}?", "a", "b")
    parts = llm.export(tmp_path / "dev" / "reader.jsonl", part_size=2)
    assert [p.name for p in parts] == ["reader.part001.jsonl", "reader.part002.jsonl", "reader.part003.jsonl"]
    assert [len(requests_of(p)) for p in parts] == [2, 2, 1]
    with pytest.raises(InputError, match="part_size"):
        llm.export(tmp_path / "x.jsonl", part_size=0)
    results = tmp_path / "results.jsonl"
    ids = [line["custom_id"] for part in parts for line in requests_of(part)]
    results.write_text("".join(answer_line(cid, "CORRECT") + "\n" for cid in ids), encoding="utf-8")
    assert llm.import_results(results).ok
    assert llm.export(tmp_path / "none.jsonl") == [] and not (tmp_path / "none.jsonl").exists()
