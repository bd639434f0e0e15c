"""The inspector in a real headless Chromium: sign in with a key, see a conversation added through the
API on the timeline, search and see the anchors highlighted in the original words, forget a session
and see it gone, and a second user's key sees none of the first user's memory on any view.

Set ANCHORMEM_UI_SCREENSHOTS=1 to write a screenshot of each view into docs/ui/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from tests.fixtures import SESSION_1, SESSION_2, messages
from tests.ui_browser import browser_or_skip, chromium_driver, live_server, screenshot

KEYS = KeyRing.from_raw({"key-alice": ["alice"], "key-bob": ["bob"], "key-admin": []}, admin=["key-admin"])
SESSION_3 = [
    ("Ana", "Pico learned to fetch at the beach last weekend, he brings the ball back every time."),
    ("Ben", "Nice! My cello teacher wants me to play the Bach suite again at the spring concert."),
    ("Ana", "My grandmother asked for a second portrait, this time of Pico at the beach."),
    ("Ben", "I bought new strings for the cello before the concert."),
]
ALICE_WORDS = ("Pico", "cello", "grandmother", "shelter")


def conversation() -> list[dict[str, str]]:
    return (
        messages(SESSION_1, session="1", stamp="1:56 pm on 8 May, 2023")
        + messages(SESSION_2, session="2", stamp="7:30 pm on 20 May, 2023")
        + messages(SESSION_3, session="3", stamp="9:00 am on 2 June, 2023")
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium, chromedriver = browser_or_skip()
    with chromium_driver(chromium, chromedriver) as driver:
        yield driver


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    # a lower linking threshold than the default, so the hashing embedder ties facts across sessions
    settings = Settings.load(env={}, store=str(tmp_path / "mem.db"), embed__backend="hash", graph__tau=0.6)
    with Memory(settings, embedder=HashEmbedder()) as memory, live_server(create_app(memory, KEYS)) as url:
        yield url


def wait(driver: Any, css: str, text: str | None = None, timeout: float = 20) -> Any:
    """The first element matching ``css`` (holding ``text`` when given), once it is there."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def found(d: Any) -> Any:
        for el in d.find_elements(By.CSS_SELECTOR, css):
            if el.is_displayed() and (text is None or text in el.text):
                return el
        return False

    waiting = WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))
    return waiting.until(found, f"no visible {css!r}" + (f" with {text!r}" if text else ""))


def wait_gone(driver: Any, css: str, text: str, timeout: float = 20) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: not any(text in el.text for el in d.find_elements(By.CSS_SELECTOR, css)), f"{text!r} still shown"
    )


def sign_in(driver: Any, url: str, key: str) -> None:
    driver.get(url + "/ui/")
    driver.execute_script("sessionStorage.clear()")
    driver.get(url + "/ui/")
    field = wait(driver, "#key")
    field.send_keys(key)
    field.submit()
    wait(driver, "#nav a[aria-current='page']")


def go(driver: Any, view: str, ready_css: str, text: str | None = None) -> Any:
    driver.execute_script("window.location.hash = arguments[0]", f"#/{view}")
    return wait(driver, ready_css, text)


def unlabelled(driver: Any) -> list[str]:
    """Visible form controls without a label (a screen reader could not name them)."""
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('input, select, textarea')]"
            ".filter(el => el.offsetParent !== null && !el.labels.length && !el.getAttribute('aria-label'))"
            ".map(el => el.outerHTML)"
        )
    )


def add_alice(url: str) -> None:
    r = httpx.post(
        url + "/v1/users/alice/memories",
        json={"messages": conversation()},
        headers={"Authorization": "Bearer key-alice"},
        timeout=60,
    )
    assert r.status_code == 200, r.text


def test_timeline_search_graph_forget(browser: Any, server: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    sign_in(browser, server, "key-alice")
    assert unlabelled(browser) == []
    wait(browser, "main", "empty")  # nothing added yet
    add_alice(server)
    browser.refresh()
    wait(browser, "#nav a[aria-current='page']")
    card = wait(browser, "article.session", "Session 1")
    assert "8 May, 2023" in card.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "article.session")) == 3
    card.find_element(By.CSS_SELECTOR, "button[aria-expanded]").click()
    wait(browser, "article.session table", "adopted a dog from the shelter")
    wait(browser, "article.session .card", "Context")
    assert unlabelled(browser) == []
    screenshot(browser, "timeline")

    go(browser, "search", "#s-query").send_keys("What is the name of Ana's dog?")
    browser.find_element(By.CSS_SELECTOR, "form[role='search'] button[type='submit']").click()
    hit = wait(browser, "article.hit")
    marks = [m.get_attribute("textContent") for m in browser.find_elements(By.CSS_SELECTOR, "article.hit mark")]
    assert "I finally adopted a dog from the shelter yesterday, his name is Pico." in marks, marks
    terms = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "article.hit mark .term")]
    assert "dog" in terms and "name" in terms, terms  # the question's words inside the anchor
    assert "anchor cosine" in hit.text and "relevance" in hit.text
    shown = browser.find_element(By.CSS_SELECTOR, "main").text
    # offline, marks are left out (their precision was too low): the block shows dates and order instead
    assert "[latest]" not in shown and "[earlier]" not in shown
    assert "prompt block" in wait(browser, "p.counts").text
    assert "DATE: 1:56 pm on 8 May, 2023" in browser.find_element(By.CSS_SELECTOR, "pre.prompt").text
    assert unlabelled(browser) == []
    screenshot(browser, "search")
    # open the context that holds the anchor by its id (a present-tense question may rank a later
    # session's context first: the recency rule)
    anchored = next(h for h in browser.find_elements(By.CSS_SELECTOR, "article.hit") if "adopted a dog" in h.text)
    first = anchored.get_attribute("data-context")
    anchored.find_element(By.CSS_SELECTOR, "h3 a").click()
    record = wait(browser, "main", "Record " + first)
    assert "Turns" in record.text and "Facts" in record.text and "adopted a dog" in record.text
    screenshot(browser, "record")
    browser.back()
    wait(browser, "article.hit")
    Select(browser.find_element(By.ID, "s-variant")).select_by_value("bm25")
    wait(browser, "p.counts", "Variant bm25")

    go(browser, "graph", "svg.graph")
    node = browser.find_element(By.CSS_SELECTOR, "svg.graph circle.node")
    browser.execute_script("arguments[0].focus()", node)  # reachable by Tab: a focusable node
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait(browser, "#node-detail .card", node.get_attribute("data-fact"))
    screenshot(browser, "graph")

    go(browser, "stats", "table", "turns")
    wait(browser, "table.history", "add")
    screenshot(browser, "stats")

    go(browser, "forget", "#d-kind")
    browser.find_element(By.ID, "d-target").send_keys("1")
    browser.find_element(By.CSS_SELECTOR, "#view form button[type='submit']").click()
    assert unlabelled(browser) == []
    preview = wait(browser, "#forget-preview")
    assert "5 turns" in preview.text and "contexts" in preview.text and "cached LLM responses" in preview.text
    screenshot(browser, "forget-preview")
    preview.find_element(By.CSS_SELECTOR, "button.danger").click()
    done = wait(browser, "#forget-done")
    assert "5 turns" in done.text and "delete" in done.text and "session" in done.text
    screenshot(browser, "forget-done")

    go(browser, "timeline", "article.session", "Session 2")
    wait_gone(browser, "article.session", "Session 1")
    assert len(browser.find_elements(By.CSS_SELECTOR, "article.session")) == 2


def test_second_users_key_sees_nothing_of_the_first(browser: Any, server: str) -> None:
    from selenium.webdriver.common.by import By

    add_alice(server)
    alice = httpx.get(
        server + "/v1/users/alice/memories/contexts", headers={"Authorization": "Bearer key-alice"}
    ).json()["items"]
    sign_in(browser, server, "key-bob")
    options = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#scope option")]
    assert options == ["bob (empty)"]

    def page_text() -> str:
        return str(browser.find_element(By.TAG_NAME, "body").text)

    for view, ready in (
        ("timeline", "main p.card"),
        ("graph", "main p.card"),
        ("stats", "main p.card"),
        ("forget", "#d-kind"),
        (f"record/{alice[0]['id']}", "main p.card"),
    ):
        go(browser, view, ready)
        assert not any(w in page_text() for w in ALICE_WORDS), view
    go(browser, "search", "#s-query").send_keys("What is the name of Ana's dog?")
    browser.find_element(By.CSS_SELECTOR, "form[role='search'] button[type='submit']").click()
    wait(browser, "main p.card", "empty")
    assert not any(w in page_text() for w in ALICE_WORDS)
    # the key itself cannot be pointed at alice, whatever the page is made to ask
    status = browser.execute_async_script(
        "const done = arguments[0];"
        "fetch('/v1/users/alice/inspect/sessions', {headers: {Authorization: 'Bearer key-bob'}})"
        ".then(r => done(r.status));"
    )
    assert status == 403

    sign_in(browser, server, "key-admin")  # an admin key picks any user's memory
    options = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#scope option")]
    assert options == ["alice"]
    wait(browser, "article.session", "Session 1")


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_browser_fails_under_ci_and_skips_loudly_elsewhere(
    monkeypatch: pytest.MonkeyPatch, ci: str, outcome: type[BaseException]
) -> None:
    import tests.ui_browser as ui_browser

    monkeypatch.setattr(ui_browser, "CHROMIUM", ("/nonexistent/chromium",))
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="BROWSER TESTS NOT RUN: missing chromium"):
        ui_browser.browser_or_skip()
