"""What an add asks of the LLM (issue 29, item 4): extraction only for the contexts it cuts, integration only
around the facts it adds, and the calls and tokens of each phase counted as the paper's Table 4 counts them."""

from __future__ import annotations

import re
from pathlib import Path

from anchormem.config import Settings
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.maya import TopicEmbedder, recorded, session_messages


def test_an_add_asks_only_about_what_it_adds(tmp_path: Path) -> None:
    llm = FakeLLM(recorded, model="recorded-llm")
    settings = Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash")
    with Memory(settings, embedder=TopicEmbedder(), llm=llm) as mem:
        for n in (1, 2, 3):
            mem.add(session_messages(n), user_id="maya")
        before_facts = {f.id for f in mem.facts(user_id="maya")}
        before_usage = mem.stats(user_id="maya").usage
        asked = len(llm.requests)
        report = mem.add(session_messages(4), user_id="maya")  # one message: "Pico turned three today."
        requests = [r[-1]["content"] for r in llm.requests[asked:]]
        extraction = [r for r in requests if "Key fact:" not in r]
        integration = [r for r in requests if "Key fact:" in r]
        assert len(extraction) == report.contexts_added == 1  # the new window only
        new = {f.text for f in mem.facts(user_id="maya") if f.id not in before_facts}
        assert new == {"Maya's cat Pico turned three."} and len(integration) == 1
        keys = re.findall(r"^Key fact: <fact>(.*)</fact>$", integration[0], re.MULTILINE)
        assert new & set(keys)  # the cluster grew around the new fact
        used = mem.stats(user_id="maya").usage
        for phase, calls in (("extraction", 1), ("integration", 1)):
            grown = used[phase].since(before_usage.get(phase))
            assert grown.calls == calls and grown.prompt_tokens > 0 and grown.completion_tokens > 0
        asked = len(llm.requests)
        mem.add(session_messages(4), user_id="maya")  # the same message again: nothing new, no call
        assert len(llm.requests) == asked
