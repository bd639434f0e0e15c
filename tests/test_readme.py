"""The README's Python example runs as written (with the test embedder), and the README starts with
the two commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_starts_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]


def test_python_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert code is not None
    monkeypatch.chdir(tmp_path)
    source = code.group(1).replace(
        'Settings(store="memory.db")', 'Settings.load(env={}, store="memory.db", embed__backend="hash")'
    )
    exec(compile(source, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Biscuit" in out and "DATE: 9:30 am on 23 March, 2024" in out
