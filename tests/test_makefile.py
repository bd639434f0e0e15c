"""``make test`` stays short: every install and the package build run quietly (the build alone printed
~1,100 lines of setuptools' file copying)."""

from __future__ import annotations

from pathlib import Path

MAKEFILE = Path(__file__).resolve().parents[1] / "Makefile"


def _commands() -> list[str]:
    return [line.strip() for line in MAKEFILE.read_text(encoding="utf-8").splitlines() if line.startswith("\t")]


def test_installs_and_the_build_are_quiet() -> None:
    noisy = [c for c in _commands() if ("pip install" in c or "-m build" in c) and "--quiet" not in c]
    assert noisy == []
    assert any("-m build" in c for c in _commands())


def test_pytest_and_the_package_step_print_little() -> None:
    commands = _commands()
    assert any("-m pytest -q" in c for c in commands)
    assert all("--no-print-directory" in c for c in commands if "$(MAKE)" in c)
