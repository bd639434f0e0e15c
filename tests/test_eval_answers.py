"""The answers benchmark: blocks per system, reader tasks with a separate key, batch files and a live
endpoint (the fake OpenAI-compatible server with recorded answers), the judge, the scores, the cheap
proxy and haystacks. Small chats built here; hash embedder; no network."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bench.fake_server import FakeOpenAIServer

from anchormem.cli.main import main
from anchormem.errors import InputError
from anchormem.eval.answers.blocks import BlockMaker, MessageSearch, render_messages
from anchormem.eval.answers.chats import load_chats, parse_chat
from anchormem.eval.answers.haystack import build_haystack, sessions_of
from anchormem.memory import Memory
from anchormem.prompts import answer as answer_prompt
from anchormem.prompts import judge as judge_prompt

FILLER = (
    "Sure, here is a longer reply that talks about general advice for planning a week, "
    "with steps, lists and a few caveats that have nothing to do with the question at hand. "
)
SESSIONS = [
    (
        "9:20 pm on 10 June, 2024",
        [
            ("user", "Can you help me plan my commute? I work at Plover, the payments app, in Shoreditch."),
            ("assistant", FILLER * 3),
        ],
    ),
    (
        "8:00 am on 2 July, 2024",
        [
            ("user", "My dad Marco is visiting next week; what should we cook? He loves risotto."),
            ("assistant", FILLER * 3),
        ],
    ),
    (
        "6:15 pm on 3 September, 2024",
        [
            ("user", "Big news: I moved to Leeds last weekend. Any tips for meeting people?"),
            ("assistant", FILLER * 3),
        ],
    ),
]
QA = [
    {
        "question": "Where does the user work?",
        "question_named": "Where does Noor work?",
        "question_user": "where do I work?",
        "answer": "Plover",
        "answer_terms": ["Plover"],
        "evidence": ["D1:1"],
        "kind": "stable",
    },
    {
        "question": "What is the name of the user's father?",
        "question_named": "What is the name of Noor's father?",
        "question_user": "what's my dad called?",
        "answer": "Marco",
        "answer_terms": ["Marco"],
        "evidence": ["D2:1"],
        "kind": "stable",
    },
    {
        "question": "Where does the user live now?",
        "question_named": "Where does Noor live now?",
        "answer": "Leeds",
        "evidence": ["D3:1"],
        "kind": "current",
    },
]
RECORDED = {"Plover": "Plover, in Shoreditch", "Marco": "I don't know", "Leeds": "Leeds"}  # reader's answers by gold


def chat_sample(sample_id: str = "chat-noor") -> dict[str, Any]:
    conv: dict[str, Any] = {"speaker_a": "user", "speaker_b": "assistant"}
    for n, (when, turns) in enumerate(SESSIONS, start=1):
        conv[f"session_{n}_date_time"] = when
        conv[f"session_{n}"] = [{"speaker": s, "dia_id": f"D{n}:{i}", "text": t} for i, (s, t) in enumerate(turns, 1)]
    return {"sample_id": sample_id, "user_name": "Noor", "language": "en", "conversation": conv, "qa": QA}


def chat_file(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([chat_sample()]), encoding="utf-8")
    return path


def gold_of(question: str) -> str:
    for qa in QA:
        if question in (qa["question"], qa["question_named"], qa.get("question_user")):
            return str(qa["answer"])
    raise AssertionError(f"unknown question {question!r}")


def reply(body: dict[str, Any]) -> str:
    """The recorded reader and judge: the reader answers by the question's gold; the judge says
    CORRECT when the gold is in the answer."""
    content = body["messages"][-1]["content"]
    if content.startswith("Grade the generated answer"):
        gold = re.search(r"^Gold answer: (?:<gold>)?(.*?)(?:</gold>)?$", content, re.MULTILINE)
        generated = re.search(r"^Generated answer: (?:<generated>)?(.*?)(?:</generated>)?$", content, re.MULTILINE)
        assert gold and generated
        return json.dumps({"label": "CORRECT" if gold.group(1) in generated.group(1) else "WRONG"})
    question = re.search(r"^Question: (.*)$", content, re.MULTILINE)
    assert question and content.startswith("Memories") and "Today's date: 3 September 2024." in content
    return json.dumps({"answer": RECORDED[gold_of(question.group(1))], "turn_ids": []})


def answer_batch(requests: list[Path], results: Path, *, damage: bool = False) -> int:
    """Answer every request of the batch input files as the batch service would; returns the count."""
    lines = []
    for path in requests:
        for raw in path.read_text(encoding="utf-8").splitlines():
            request = json.loads(raw)
            assert request["method"] == "POST" and request["url"] == "/v1/chat/completions"
            body = {
                "id": "chatcmpl-b",
                "object": "chat.completion",
                "model": request["body"]["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply(request["body"])}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
            }
            lines.append(
                json.dumps(
                    {"id": "r", "custom_id": request["custom_id"], "response": {"status_code": 200, "body": body}}
                )
            )
    if damage:  # the first answer cut off, an unknown id, a duplicate
        lines = [lines[0][:40], *lines[1:], lines[1], lines[1].replace(json.loads(lines[1])["custom_id"], "0" * 64)]
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(requests)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["eval", *args, "--embed-backend", "hash"]) == 0
    return capsys.readouterr().out


def test_chats_read_spellings_kinds_and_the_users_date(tmp_path: Path) -> None:
    (chat,) = load_chats(chat_file(tmp_path))
    assert chat.role_based and chat.today == "3 September 2024" and len(chat.messages) == 6
    first = chat.questions[0]
    assert first.spellings == {"third": QA[0]["question"], "named": QA[0]["question_named"], "user": "where do I work?"}
    assert chat.questions[2].spellings.keys() == {"third", "named"} and chat.questions[2].kind == "current"
    assert chat.to_memory("roles")[0] == {
        "id": "D1:1",
        "session": "1",
        "created_at": "2024-06-10T21:20:00",
        "role": "user",
        "content": SESSIONS[0][1][0][1],
    }
    named = chat.to_memory("named")  # the user's name given with the messages, as OpenAI's ``name``
    assert named[0]["role"] == "user" and named[0]["name"] == "Noor" and named[0]["content"] == SESSIONS[0][1][0][1]
    assert named[1]["role"] == "assistant" and "name" not in named[1]
    people = parse_chat({"sample_id": "c", "conversation": {"speaker_a": "Ana", "speaker_b": "Ben"}, "qa": []})
    assert not people.role_based
    with pytest.raises(InputError, match="conversation"):
        parse_chat({"sample_id": "x"})


def test_blocks_fit_the_budget_and_say_what_they_show(memory: Memory, tmp_path: Path) -> None:
    (chat,) = load_chats(chat_file(tmp_path))
    memory.add(chat.to_memory("roles"), user_id="u")
    maker = BlockMaker(memory, "u", chat, whole_max=10_000)
    for system in ("default", "bm25", "message"):
        block = maker.block(system, "Where does the user live now?", 700)
        assert block is not None and len(block.text) <= 700 and block.shown
        assert block.shown <= {m.id for m in chat.messages}
    message = MessageSearch(memory, chat).block("who moved last weekend?", 700)
    assert "D3:1" in message.shown and "Leeds" in message.text
    assert message.text.startswith("Session ") and len(message.shown) < len(chat.messages)
    assert all(f"[{mid}]" in message.text for mid in message.shown)
    whole = maker.block("whole", "anything", 700)
    assert whole is not None and whole.shown == {m.id for m in chat.messages}
    assert whole.text == render_messages(chat, chat.messages) and '[D2:1] User: "My dad Marco' in whole.text
    assert BlockMaker(memory, "u", chat, whole_max=100).block("whole", "q", 700) is None
    named = BlockMaker(memory, "u", chat, whole_max=10_000, named=True).block("whole", "q", 700)
    assert named is not None and '[D2:1] Noor: "My dad Marco' in named.text and "] User:" not in named.text
    with pytest.raises(InputError, match="unknown system"):
        maker.block("mem0", "q", 700)


def test_batch_files_round_trip_to_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = chat_file(tmp_path), tmp_path / "run"
    common = ["answers", "--data", str(data), "--out", str(out), "--budget", "900", "--reader-batch", "reader-x"]
    said = run_cli(capsys, *common, "--part-size", "10")
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    key = {k["task_id"]: k for k in json.loads((out / "key.json").read_text(encoding="utf-8"))}
    # 3 questions x (third, named) + 2 first-person ones = 8 questions asked, 4 systems each
    assert len(tasks) == len(key) == 32
    assert {k["system"] for k in key.values()} == {"default", "bm25", "message", "whole"}
    assert set(tasks[0]) == {"task_id", "question", "today", "block"}  # no system in what a reader sees
    assert [t["task_id"] for t in tasks] != sorted(t["task_id"] for t in tasks)  # shuffled
    parts = sorted((out / "batches").glob("reader.part*.jsonl"))
    assert parts and all(len(p.read_text().splitlines()) <= 10 for p in parts)
    assert "wait for answers" in said and "reader: 0 of 32" in said
    assert json.loads((out / "prompts.json").read_text()) == {
        "answer_prompt": answer_prompt.VERSION,
        "judge_prompt": judge_prompt.VERSION,
    }
    # answered, but one results file damaged: what it holds is used, the rest waits
    answer_batch(parts, tmp_path / "r1.jsonl", damage=True)
    said = run_cli(capsys, *common, "--reader-results", str(tmp_path / "r1.jsonl"))
    assert "malformed" in said and "unknown" in said and "duplicate" in said and "1 requests still without" in said
    assert not (out / "report.md").exists()
    resumed = sorted((out / "batches").glob("reader.part*.jsonl"))
    assert len(resumed) == 1 and len(resumed[0].read_text().splitlines()) == 1
    answer_batch(resumed, tmp_path / "r2.jsonl")
    said = run_cli(capsys, *common, "--reader-results", str(tmp_path / "r2.jsonl"))
    assert "reader: 32 of 32" in said and "judge:" in said and "prompts changed" not in said
    judge_parts = sorted((out / "batches").glob("judge.part*.jsonl"))
    judge_lines = [json.loads(line) for p in judge_parts for line in p.read_text().splitlines()]
    contents = [j["body"]["messages"][-1]["content"] for j in judge_lines]
    assert contents and all("Gold answer:" in c for c in contents)
    # question, gold and answer only: no block, so nothing tells the systems apart
    assert not any("<memories>" in c or "Session 1" in c or "bm25" in c for c in contents)
    # "I don't know" answers are WRONG without a judge call only when empty: here they go to the judge
    answer_batch(judge_parts, tmp_path / "j1.jsonl")
    said = run_cli(capsys, *common, "--judge-results", str(tmp_path / "j1.jsonl"))
    report = (out / "report.md").read_text(encoding="utf-8")
    graded = [json.loads(line) for line in (out / "graded.jsonl").read_text().splitlines()]
    assert len(graded) == 32 and report.strip() in said
    # every reader got Plover and Leeds right and Marco wrong: 2 of 3 third-person questions
    row = next(line for line in report.splitlines() if line.startswith("| whole | third |"))
    assert "| 3 | 66.7% |" in row
    wrong = [g for g in graded if not g["correct"]]
    assert wrong and all(g["answer"] == "Marco" for g in wrong)
    whole_wrong = [g for g in wrong if g["system"] == "whole"]
    assert whole_wrong and all(g["evidence_shown"] for g in whole_wrong)


def test_a_changed_prompt_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = chat_file(tmp_path), tmp_path / "run"
    args = ["answers", "--data", str(data), "--out", str(out), "--systems", "whole", "--reader-batch", "r"]
    run_cli(capsys, *args)
    (out / "prompts.json").write_text(json.dumps({"answer_prompt": "answer-v0", "judge_prompt": judge_prompt.VERSION}))
    said = run_cli(capsys, *args)
    assert f"prompts changed since this run began (answer_prompt answer-v0 -> {answer_prompt.VERSION})" in said


def test_a_live_endpoint_answers_the_same_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = chat_file(tmp_path), tmp_path / "live"
    with FakeOpenAIServer(reply=reply) as server:
        args = ["answers", "--data", str(data), "--out", str(out), "--budget", "900", "--systems", "default,whole"]
        args += ["--reader-url", server.base_url, "--reader-model", "reader-m", "--judge-model", "judge-m"]
        args += ["--judge-url", server.base_url, "--spellings", "user", "--workers", "2"]
        said = run_cli(capsys, *args)
        assert "reader: 4 of 4 tasks answered" in said and "judge: 4 of 4" in said
        assert {body["model"] for body in server.requests} == {"reader-m", "judge-m"}
        row = next(line for line in said.splitlines() if line.startswith("| default | user |"))
        assert "| 2 | 50.0% |" in row  # Plover right, Marco wrong
        asked = len(server.requests)
        run_cli(capsys, *args)  # everything cached: nothing asked again
        assert len(server.requests) == asked


def test_the_proxy_counts_answer_terms_in_the_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = chat_file(tmp_path)
    said = run_cli(capsys, "proxy", "--data", str(data), "--budget", "5000", "--systems", "whole,message")
    row = next(line for line in said.splitlines() if line.startswith("| whole | third |"))
    assert "| 3 | 100.0% |" in row and "12 tasks judged by their answer terms" in said
    tight = run_cli(
        capsys, "proxy", "--data", str(data), "--budget", "60", "--systems", "message", "--spellings", "third"
    )
    row = next(line for line in tight.splitlines() if line.startswith("| message | third |"))
    assert "| 3 | 0.0% |" in row  # no message fits 60 characters
    out = tmp_path / "run"
    run_cli(capsys, "answers", "--data", str(data), "--out", str(out), "--budget", "5000", "--systems", "whole")
    from_run = run_cli(capsys, "proxy", "--run", str(out))
    whole_rows = [line for line in said.splitlines() if line.startswith("| whole |")]
    assert (
        len(whole_rows) == 3
        and [line for line in from_run.splitlines() if line.startswith("|") and "|---" not in line][1:] == whole_rows
    )


def test_a_haystack_hides_the_chat_among_other_peoples_sessions() -> None:
    target = chat_sample()
    people = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            **{f"session_{n}_date_time": f"1:00 pm on {n} May, 2023" for n in range(1, 41)},
            **{
                f"session_{n}": [
                    {"speaker": "Ana", "dia_id": f"D{n}:1", "text": f"Session {n}: I went hiking again. " * 20},
                    {"speaker": "Ben", "dia_id": f"D{n}:2", "text": "Sounds lovely, where did you go? " * 20},
                ]
                for n in range(1, 41)
            },
        },
        "qa": [],
    }
    people["conversation"]["session_7"][0]["text"] = "I work at Plover too! " * 30  # holds an answer: left out
    hay = build_haystack(target, [people, target], min_chars=20_000)
    sessions = sessions_of(hay)
    texts = [t["text"] for _, turns in sessions for t in turns]
    assert hay["haystack_filler_chars"] >= 20_000 and hay["sample_id"] == "chat-noor-haystack"
    assert not any("I work at Plover too" in t for t in texts)
    assert {t["speaker"] for _, turns in sessions for t in turns} == {"user", "assistant"}
    (chat,) = [parse_chat(hay)]
    ids = [m.id for m in chat.messages]
    assert ids.index("D1:1") < ids.index("D2:1") < ids.index("D3:1") and any(i.startswith("H") for i in ids)
    assert chat.messages[-1].id.startswith("D3:") and chat.today == "3 September 2024"
    assert ids[0] == "D1:1"  # filler only between the chat's first and last sessions
    assert hay["qa"] == QA
    with pytest.raises(InputError, match="usable filler"):
        build_haystack(target, [people], min_chars=10**7)


def test_filler_is_banned_by_whole_words_of_the_answers() -> None:
    """An answer "Go" (the language) keeps out a session that says "go", not one that says "ago" or "good"."""
    target = chat_sample()
    target["qa"] = [{**QA[0], "answer": "Go", "answer_terms": ["Go"]}]

    def session(text: str) -> list[dict[str, str]]:
        return [{"speaker": "Ana", "dia_id": "D1:1", "text": text}, {"speaker": "Ben", "dia_id": "D1:2", "text": "Ok."}]

    texts = {1: "A good walk two days ago. " * 40, 2: "Shall we go? " * 80}
    people = {
        "sample_id": "conv-y",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            **{f"session_{n}_date_time": f"1:00 pm on {n} May, 2023" for n in texts},
            **{f"session_{n}": session(text) for n, text in texts.items()},
        },
        "qa": [],
    }
    hay = build_haystack(target, [people], min_chars=500)
    kept = " ".join(t["text"] for _, turns in sessions_of(hay) for t in turns)
    assert "A good walk" in kept and "Shall we go?" not in kept


def test_a_kept_memory_is_added_once_and_anew_when_the_chat_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = chat_file(tmp_path)
    kept = tmp_path / "kept.db"
    args = ("proxy", "--data", str(data), "--systems", "default", "--spellings", "third", "--keep-memory", str(kept))
    adds: list[str] = []
    real_add = Memory.add

    def counting_add(self: Memory, source: Any, **kw: Any) -> Any:
        adds.append(kw["user_id"])
        return real_add(self, source, **kw)

    monkeypatch.setattr(Memory, "add", counting_add)
    first = run_cli(capsys, *args)
    assert len(adds) == 1 and kept.exists()
    again = run_cli(capsys, *args)
    assert len(adds) == 1 and again == first  # nothing added again, the same blocks
    sample = json.loads(data.read_text())
    sample[0]["conversation"]["session_1"][0]["text"] += " A new sentence."
    data.write_text(json.dumps(sample))
    run_cli(capsys, *args)
    assert len(adds) == 2 and adds[1] != adds[0]  # a changed chat is a new memory
