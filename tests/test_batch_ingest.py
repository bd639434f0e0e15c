"""Batch ingest: an add whose LLM requests go out as batch files ends exactly where the same add made live
through an OpenAI-compatible server ends, with the same recorded answers; the memory is searchable while the
answers are awaited; damaged, repeated, partial and late results files are safe."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.fake_server import FakeOpenAIServer

from anchormem.config import Settings
from anchormem.memory import Memory
from tests.batch_answers import answer, requests, result_line
from tests.maya import TopicEmbedder, all_sessions, recorded, session_messages

MODEL = "recorded-model"
QUERIES = ["Where does Maya live?", "When does the chess club meet?", "How old is Pico?"]


def _settings(tmp_path: Path, name: str, url: str) -> Settings:
    return Settings.load(
        env={},
        store=str(tmp_path / f"{name}.db"),
        embed__backend="hash",
        llm__base_url=url,
        llm__model=MODEL,
        llm__concurrency=1,
        llm__max_retries=0,
    )


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Memory]:
    """The chat added live, through the fake OpenAI-compatible server answering the recorded replies."""
    with FakeOpenAIServer(reply=lambda body: recorded(body["messages"])) as server:
        mem = Memory(_settings(tmp_path, "live", server.base_url), embedder=TopicEmbedder())
        with mem:
            mem.add(all_sessions(), user_id="maya")
            yield mem


@pytest.fixture
def batched(tmp_path: Path) -> Iterator[Memory]:
    """A memory whose LLM is only ever reached through batch files (its endpoint does not exist)."""
    with Memory(_settings(tmp_path, "batch", "http://127.0.0.1:9"), embedder=TopicEmbedder()) as mem:
        yield mem


def _round(mem: Memory, tmp_path: Path, n: int, skip: tuple[int, ...] = ()) -> Any:
    """Export what waits, answer it with the recorded replies, import the results."""
    [sent] = mem.batch_export(tmp_path / f"round{n}.jsonl")
    answer(sent, tmp_path / f"round{n}.results.jsonl", recorded, skip)
    return mem.batch_import(tmp_path / f"round{n}.results.jsonl")


def _view(mem: Memory) -> dict[str, Any]:
    """What a reader of the memory sees: records with their ids, search results, LLM usage (not times)."""
    search = {
        q: [(h.context.id, round(h.score, 6), h.latest, h.newer, [a.fact.id for a in h.anchors]) for h in r.contexts]
        + [(e.event.id, round(e.score, 6)) for e in r.events]
        for q in QUERIES
        for r in [mem.search(q, user_id="maya")]
    }
    usage = {
        phase: (u.calls, u.prompt_tokens, u.completion_tokens, u.failed_calls)
        for phase, u in mem.stats(user_id="maya").usage.items()
        if phase != "retrieval"
    }
    return {
        "turns": mem.turns(user_id="maya"),
        "contexts": mem.contexts(user_id="maya"),
        "facts": sorted(mem.facts(user_id="maya"), key=lambda f: f.id),
        "events": sorted(mem.events(user_id="maya"), key=lambda e: e.id),
        "search": search,
        "usage": usage,
    }


def test_a_chat_through_batch_files_equals_the_chat_added_live(live: Memory, batched: Memory, tmp_path: Path) -> None:
    report = batched.add(all_sessions(), user_id="maya", batch=True)
    assert report.llm_calls == 0 and report.llm_deferred == len(batched.contexts(user_id="maya"))
    first = _round(batched, tmp_path, 1)
    assert first.results.ok and first.results.added == report.llm_deferred
    assert batched.events(user_id="maya") == [] and first.waiting > 0  # the integration round is next
    second = _round(batched, tmp_path, 2)
    assert second.results.ok and second.waiting == 0
    assert batched.batch_export(tmp_path / "round3.jsonl") == []
    expected = _view(live)
    assert expected["events"] and any(e.supersedes for e in expected["events"])
    assert _view(batched) == expected
    with Memory(batched.settings, embedder=TopicEmbedder()) as reopened:  # a new process sees the same
        assert _view(reopened) == expected
    stats = batched.stats(user_id="maya")
    assert (stats.batch_extractions, stats.unlinked_facts) == (0, 0)


def test_the_memory_is_searchable_while_the_answers_are_awaited(batched: Memory, tmp_path: Path) -> None:
    batched.add(all_sessions(), user_id="maya", batch=True)
    stats = batched.stats(user_id="maya")
    assert stats.batch_extractions == stats.contexts > 0 and stats.pending_extractions == 0
    assert {f.source for f in batched.facts(user_id="maya")} == {"provisional"}
    assert batched.events(user_id="maya") == []
    hits = batched.search("Carabanchel", user_id="maya").contexts
    assert "Carabanchel" in hits[0].context.text
    [sent] = batched.batch_export(tmp_path / "requests.jsonl")
    lines = requests(sent)
    assert len(lines) == stats.contexts
    assert {line["url"] for line in lines} == {"/v1/chat/completions"}
    assert all(line["body"]["model"] == MODEL for line in lines)


def test_a_damaged_results_file_is_reported_line_by_line_and_nothing_is_half_applied(
    batched: Memory, tmp_path: Path
) -> None:
    batched.add(all_sessions(), user_id="maya", batch=True)
    [sent] = batched.batch_export(tmp_path / "round1.jsonl")
    good = answer(sent, tmp_path / "good.jsonl", recorded)
    damaged = [
        good[0],
        "{not json",
        good[0],  # the same answer again
        result_line("0" * 64, MODEL, "[]"),  # a request nobody made
        json.dumps({"custom_id": json.loads(good[1])["custom_id"], "response": None, "error": {"message": "boom"}}),
        *good[2:],
    ]  # the second request has no answer line
    (tmp_path / "damaged.jsonl").write_text("\n".join(damaged) + "\n", encoding="utf-8")
    done = batched.batch_import(tmp_path / "damaged.jsonl")
    kinds = [(p.line, p.kind) for p in done.results.problems]
    assert kinds == [(2, "malformed"), (3, "duplicate"), (4, "unknown"), (5, "failed")]
    assert "line 2" in done.results.describe() and len(done.results.missing) == 1
    # every context holds either its answered facts or its provisional anchors, never a mix
    contexts = batched.contexts(user_id="maya")
    by_context: dict[str, set[str]] = {}
    for f in batched.facts(user_id="maya"):
        by_context.setdefault(f.context_id, set()).add(f.source)
    assert all(len(sources) == 1 for sources in by_context.values())
    waiting = [c for c in contexts if by_context.get(c.id) == {"provisional"}]
    assert len(waiting) == 1 == batched.stats(user_id="maya").batch_extractions
    assert batched.events(user_id="maya") == []  # events wait for the last context's facts
    # the answer of the failed line comes in a later file
    missing = answer(sent, tmp_path / "rest.jsonl", recorded)
    rest = batched.batch_import(tmp_path / "rest.jsonl")
    assert rest.results.added == 1 and rest.results.already == len(missing) - 1
    assert batched.stats(user_id="maya").batch_extractions == 0 and rest.waiting > 0


def test_importing_twice_or_in_parts_or_after_an_interruption_is_safe(
    live: Memory, batched: Memory, tmp_path: Path
) -> None:
    batched.add(all_sessions(), user_id="maya", batch=True)
    [sent] = batched.batch_export(tmp_path / "round1.jsonl")
    count = len(requests(sent))
    answer(sent, tmp_path / "half.jsonl", recorded, skip=range(count // 2, count))
    half = batched.batch_import(tmp_path / "half.jsonl")
    assert half.results.added == count // 2 and batched.stats(user_id="maya").batch_extractions == count - count // 2
    answer(sent, tmp_path / "all.jsonl", recorded)
    whole = batched.batch_import(tmp_path / "all.jsonl")
    assert (whole.results.added, whole.results.already) == (count - count // 2, count // 2)
    again = batched.batch_import(tmp_path / "all.jsonl")  # the same file twice: nothing new
    assert (again.results.added, again.results.already) == (0, count)
    # an import interrupted while it derives events: importing again finishes it
    [events_round] = batched.batch_export(tmp_path / "round2.jsonl")
    answer(events_round, tmp_path / "round2.results.jsonl", recorded)
    embed = batched.embedder.embed
    calls = {"n": 0}

    def dies_once(texts: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt
        return embed(texts)

    batched._parts._embedder.embed = dies_once  # type: ignore[union-attr,method-assign]
    with pytest.raises(KeyboardInterrupt):
        batched.batch_import(tmp_path / "round2.results.jsonl")
    batched.batch_import(tmp_path / "round2.results.jsonl")
    got, expected = _view(batched), _view(live)
    # the interrupted import's answers were read once more, from the response cache: no token spent twice
    assert {p: u[1:] for p, u in got.pop("usage").items()} == {p: u[1:] for p, u in expected.pop("usage").items()}
    assert got == expected


def test_a_delete_between_export_and_import_leaves_no_trace(batched: Memory, tmp_path: Path) -> None:
    batched.add(all_sessions(), user_id="maya", batch=True)
    [sent] = batched.batch_export(tmp_path / "round1.jsonl")
    report = batched.delete(session="3", user_id="maya")  # the move and the correction are forgotten
    assert report.cache_entries_forgotten >= 1  # its requests left the batch store
    answer(sent, tmp_path / "round1.results.jsonl", recorded)  # the answers still hold the words
    done = batched.batch_import(tmp_path / "round1.results.jsonl")
    assert [p.kind for p in done.results.problems] == ["unknown"] * report.contexts  # one per forgotten window
    _round(batched, tmp_path, 2)
    gone = ("moved to Carabanchel", "for the chess club", "Thursdays, not Tuesdays")  # said, or written of it
    seen = [repr(r) for kind in ("turns", "contexts", "facts", "events") for r in batched.records(kind, user_id="maya")]
    for q in ["moved to Carabanchel", "Thursday chess", *QUERIES]:
        found = batched.search(q, user_id="maya")
        seen += [repr(found.contexts), repr(found.events)]
    seen += [repr(r) for r in batched.export(user_id="maya")]
    assert batched.events(user_id="maya") and not any(word in text for word in gone for text in seen)
    settings = batched.settings
    for path in (settings.store_path, settings.cache_path, settings.batch_path):
        held = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
        assert held and not any(word.encode() in held for word in gone), path


def test_an_update_between_export_and_import_is_honoured(batched: Memory, tmp_path: Path) -> None:
    batched.add(session_messages(1), user_id="maya", batch=True)
    [sent] = batched.batch_export(tmp_path / "round1.jsonl")
    turn = batched.turns(user_id="maya")[0]
    batched.update(turn.id, "I live in Usera these days.", user_id="maya")  # its live call fails: no endpoint
    answer(sent, tmp_path / "round1.results.jsonl", recorded)  # answers about the old words
    done = batched.batch_import(tmp_path / "round1.results.jsonl")
    assert [p.kind for p in done.results.problems] == ["unknown"] and done.waiting == 1  # the new words' request
    _round(batched, tmp_path, 2)
    texts = [repr(r) for kind in ("turns", "contexts", "facts") for r in batched.records(kind, user_id="maya")]
    old = ("with my partner", "Maya lives in Lavapiés")  # the old message, and the fact the answer held
    assert any("Usera" in t for t in texts) and not any(w in t for w in old for t in texts)
    assert batched.stats(user_id="maya").batch_extractions == 0
    for name in ("batch.db", "batch.llm-cache.db", "batch.llm-batch.db"):
        held = b"".join(p.read_bytes() for p in tmp_path.glob(name + "*"))
        assert held and not any(w.encode() in held for w in old), name


def test_rest_reaches_batch_ingest(batched: Memory, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyRing

    keys = KeyRing.from_raw({"key-maya": ["maya"], "key-admin": []}, admin=["key-admin"])
    admin, maya = {"X-API-Key": "key-admin"}, {"X-API-Key": "key-maya"}
    with TestClient(create_app(batched, keys, warm=False)) as client:
        added = client.post("/v1/users/maya/memories", json={"messages": all_sessions(), "batch": True}, headers=maya)
        assert added.status_code == 200 and added.json()["llm_deferred"] > 0
        found = client.post("/v1/users/maya/search", json={"query": "Carabanchel"}, headers=maya).json()
        assert "Carabanchel" in found["contexts"][0]["context"]["text"]  # searchable while the answers wait
        assert client.post("/v1/batch/export", headers=maya).status_code == 403  # every user's requests
        for n in (1, 2):
            sent = client.post("/v1/batch/export", headers=admin)
            assert sent.status_code == 200 and sent.headers["content-type"].startswith("application/jsonl")
            (tmp_path / f"r{n}.jsonl").write_text(sent.text, encoding="utf-8")
            answer(tmp_path / f"r{n}.jsonl", tmp_path / f"r{n}.results.jsonl", recorded)
            body = (tmp_path / f"r{n}.results.jsonl").read_bytes() + b"{broken\n"
            done = client.post("/v1/batch/import", content=body, headers=admin).json()
            assert done["added"] == len(requests(tmp_path / f"r{n}.jsonl"))
            assert [p["kind"] for p in done["problems"]] == ["malformed"]
        assert done["waiting"] == 0 and client.post("/v1/batch/export", headers=admin).text == ""
        stats = client.get("/v1/users/maya/stats", headers=maya).json()
        assert stats["events"] > 0 and stats["batch_extractions"] == 0


def test_the_cli_reaches_batch_ingest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from anchormem.cli.main import main

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(all_sessions()), encoding="utf-8")
    common = ["--store", str(tmp_path / "cli.db"), "--embed-backend", "hash", "--llm-url", "http://127.0.0.1:9"]
    common += ["--llm-model", MODEL, "--json", "--quiet"]
    assert main(["add", str(chat), "--user", "maya", "--batch", *common]) == 0
    assert json.loads(capsys.readouterr().out)["llm_deferred"] > 0
    for n in (1, 2):
        assert main(["batch", "export", str(tmp_path / f"c{n}.jsonl"), *common]) == 0
        assert json.loads(capsys.readouterr().out) == {"files": [str(tmp_path / f"c{n}.jsonl")]}
        answer(tmp_path / f"c{n}.jsonl", tmp_path / f"c{n}.results.jsonl", recorded)
        assert main(["batch", "import", str(tmp_path / f"c{n}.results.jsonl"), *common]) == 0
        done = json.loads(capsys.readouterr().out)
        assert done["problems"] == [] and done["added"] > 0
    assert done["waiting"] == 0
    assert main(["stats", "--user", "maya", *common]) == 0
    assert json.loads(capsys.readouterr().out)["events"] > 0


def test_locomo_evidence_recall_runs_on_a_memory_built_through_batch_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from anchormem.cli.main import main
    from tests.conftest import llm_responder
    from tests.fixtures import write_locomo

    data = write_locomo(tmp_path / "locomo.json")
    run = tmp_path / "run"
    llm = ["--llm-url", "http://127.0.0.1:9", "--llm-model", MODEL, "--embed-backend", "hash", "--quiet"]
    store = ["--store", str(run / "memory.db")]
    assert main(["add", str(data), "--sample", "conv-1", "--user", "conv-1", "--batch", *store, *llm]) == 0
    for n in (1, 2, 3):
        sent = tmp_path / f"r{n}.jsonl"
        assert main(["batch", "export", str(sent), *store, *llm]) == 0
        if not sent.exists():
            break
        answer(sent, tmp_path / f"r{n}.results.jsonl", llm_responder)
        assert main(["batch", "import", str(tmp_path / f"r{n}.results.jsonl"), *store, *llm]) == 0
    capsys.readouterr()
    with Memory(Settings.load(env={}, store=str(run / "memory.db"), embed__backend="hash")) as built:
        assert built.stats(user_id="conv-1").batch_extractions == 0
        assert {f.source for f in built.facts(user_id="conv-1")} == {"llm"} and built.events(user_id="conv-1")
        before = (built.facts(user_id="conv-1"), built.events(user_id="conv-1"))
    evaluated = ["eval", "locomo", "--data", str(data), "--samples", "conv-1", "--out", str(run), "--no-answer"]
    assert main([*evaluated, *llm, "--json"]) == 0  # the endpoint does not exist: nothing is asked of it
    assert "recall" in capsys.readouterr().out
    with Memory(Settings.load(env={}, store=str(run / "memory.db"), embed__backend="hash")) as built:
        assert (built.facts(user_id="conv-1"), built.events(user_id="conv-1")) == before
