"""docs/ui.md says how to sign in to the inspector, in the words the page itself uses."""

from __future__ import annotations

from pathlib import Path

from anchormem.server.keys import KEY_PREFIX

REPO = Path(__file__).resolve().parents[1]
STATIC = REPO / "src" / "anchormem" / "server" / "ui" / "static"


def test_ui_doc_says_how_to_sign_in_as_the_page_does() -> None:
    doc = (REPO / "docs" / "ui.md").read_text("utf-8")
    page = (STATIC / "index.html").read_text("utf-8") + (STATIC / "app.js").read_text("utf-8")
    assert "## Signing in" in doc and "anchormem serve-key add --keys keys.json" in doc
    assert f"`{KEY_PREFIX}…`" in doc
    for words in ("API key", "Sign in", "That key is not valid for this server.", "/v1/inspect/key", "sessionStorage"):
        assert words in doc and words in page, words


def test_readme_links_the_ui_doc() -> None:
    assert "(docs/ui.md)" in (REPO / "README.md").read_text("utf-8")
