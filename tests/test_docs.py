"""The docs say what the code does: docs/cli.md is the live ``--help`` text, the tables of names
hold exactly the registries' names, the README's figures are BENCHMARKS.md's, and every relative link
leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from anchormem.cli import docgen
from anchormem.embed.factory import BACKENDS
from anchormem.search.retrieve import RECIPES

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PAGES = [
    REPO / "README.md",
    REPO / "BENCHMARKS.md",
    REPO / "bench" / "data" / "README.md",
    *sorted(DOCS.glob("*.md")),
    *sorted((DOCS / "research").glob("*.md")),
]
FIGURES = re.compile(r"<!-- figures: start -->\n(.*?)<!-- figures: end -->", re.S)


def test_cli_reference_is_the_live_help() -> None:
    assert (DOCS / "cli.md").read_text("utf-8") == docgen.render(), (
        "docs/cli.md is stale; regenerate: python -m anchormem.cli.docgen docs/cli.md"
    )


def test_cli_reference_has_every_command() -> None:
    text = (DOCS / "cli.md").read_text("utf-8")
    for command in ("add", "search", "eval locomo", "serve", "serve-key add", "mcp", "import"):
        assert f"## `anchormem {command}`" in text


def table_names(page: Path, heading: str) -> list[str]:
    """The backticked first cells of the table under ``heading``."""
    text = page.read_text("utf-8")
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, re.M)


def test_docs_list_exactly_the_retrieval_variants() -> None:
    assert table_names(DOCS / "configuration.md", "### Retrieval variants") == list(RECIPES)


def test_docs_list_exactly_the_embedding_backends() -> None:
    assert table_names(DOCS / "configuration.md", "### Embedding backends") == list(BACKENDS)


def test_readme_figures_are_the_benchmarks_figures() -> None:
    readme, benchmarks = (FIGURES.findall((REPO / name).read_text("utf-8")) for name in ("README.md", "BENCHMARKS.md"))
    assert len(benchmarks) == 1 and benchmarks[0].count("\n|") >= 10
    assert readme == benchmarks, "README.md's figures differ from BENCHMARKS.md's: copy the table between the markers"


def test_benchmarks_is_a_short_reference() -> None:
    assert len((REPO / "BENCHMARKS.md").read_text("utf-8").splitlines()) <= 250, "move the lab notes to docs/research/"


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    text = page.read_text("utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: broken link {target}"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", linked.read_text("utf-8"), re.M)
            assert anchor in {_anchor(h) for h in headings}, f"{page.name}: no heading for {target}"
