"""Latency of the memory inspector (``/ui``) on a 10,000-turn memory.

    PYTHONPATH=src .venv/bin/python bench/ui_latency.py [--turns 10000] [--sessions 200] [--runs 30]
        [--embed-backend hash|minilm] [--no-browser]

Builds one user's memory of ``--turns`` synthetic turns (two speakers, ``--sessions`` dated sessions,
the offline path: LLM-free anchors and extractive events), starts ``anchormem serve`` on 127.0.0.1 (a
free port) in a subprocess, and measures:

- over HTTP (httpx, one connection): what the page fetches to show the timeline's first page (the
  page, its static files, ``/v1/inspect/key``, ``inspect/sessions?limit=20``), the first time
  (the server builds its browsing index of the memory) and then warm; one session's first 50 turns;
  the event graph's first page; a delete dry run of one session; and the search round trip, plain
  (``/search``) and explained (``inspect/search``: signals, highlights, prompt block), over varied
  questions;
- in headless Chromium (Debian's package, driven by Selenium; skipped with ``--no-browser`` or when
  missing), timed inside the page: from navigation start to the timeline's sessions painted (a full
  page load: HTML, scripts, key check, first page of sessions), and from submitting a search to the
  explained results painted.

Prints medians and p90 over ``--runs`` repetitions. Loopback only; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from served import free_port, stop, wait_healthy  # bench/ is on the path when this file runs as a script

from anchormem.config import Settings
from anchormem.memory import Memory
from anchormem.server.keys import create_key
from anchormem.server.ui.pages import STATIC

TOPICS = [
    ("adopted a dog from the shelter", "dog"),
    ("started learning the cello", "cello"),
    ("ran a half marathon by the lake", "marathon"),
    ("painted a portrait of my grandmother", "portrait"),
    ("went camping in the mountains", "camping"),
    ("baked sourdough bread for the neighbours", "bread"),
    ("visited the pottery studio downtown", "pottery"),
    ("planted tomatoes in the community garden", "garden"),
    ("booked a trip to Lisbon for the summer", "Lisbon"),
    ("joined a book club that reads science fiction", "book club"),
    ("fixed the old bicycle in the garage", "bicycle"),
    ("watched the meteor shower on the roof", "meteor shower"),
]
REPLIES = [
    "That sounds wonderful, how did it go?",
    "I remember you mentioned that last time.",
    "Tell me more about it, I am curious.",
    "Nice! I have been busy with work this week.",
    "Did anyone go with you?",
]
QUESTIONS = [
    "When did Ana adopt the dog?",
    "What instrument is Ben learning?",
    "Where did they go camping?",
    "Who painted a portrait?",
    "What did Ana plant in the garden?",
    "Which city is the summer trip to?",
    "What does the book club read?",
    "When did they watch the meteor shower?",
]
NAMES = ["Priya", "Tomás", "Mei", "Olu", "Sven", "Aisha", "Diego", "Hana", "Liam", "Zofia", "Ravi", "Nora"]
_WORD_TEXT = (
    "apples harbour violin chess lanterns poetry rowing tulips espresso glaciers origami jazz kites "
    "lighthouse mosaics volcano sailing quilts telescope bonsai salsa canyon fireflies pottery tango "
    "marmalade robots puzzles orchards chimney falcons meadow sketching ferries waffles trumpet vineyard "
    "snorkel pancakes islands comets bridges lemonade bakery skating museum riddles almonds cactus"
)
WORDS = _WORD_TEXT.split()
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]  # fmt: skip


def conversation(turns: int, sessions: int, seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    per = max(1, turns // sessions)
    out: list[dict[str, str]] = []
    for s in range(sessions):
        day, month, year = 1 + s % 28, MONTHS[(s // 28) % 12], 2022 + s // (28 * 12)
        stamp = f"{1 + s % 12}:{(7 * s) % 60:02d} pm on {day} {month}, {year}"
        for i in range(per if s < sessions - 1 else turns - per * (sessions - 1)):
            if i % 2 == 0:
                what, _ = rng.choice(TOPICS)
                detail = " ".join(rng.sample(WORDS, 4))
                text = f"Last week I {what} with {rng.choice(NAMES)}; we talked about {detail}."
                speaker = "Ana"
            else:
                text = rng.choice(REPLIES) + f" Session {s}, turn {i}."
                speaker = "Ben"
            out.append({"speaker": speaker, "text": text, "timestamp": stamp, "session": f"{s + 1}"})
    return out


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {len(values)} | {statistics.median(values) * 1000:.1f} | {pct(values, 0.9):.1f} |"


def http_figures(base: str, key: str, runs: int) -> tuple[list[str], dict[str, float]]:
    headers = {"Authorization": f"Bearer {key}"}
    rows: list[str] = []
    singles: dict[str, float] = {}
    with httpx.Client(base_url=base, headers=headers, timeout=120) as client:

        def ok(r: httpx.Response) -> httpx.Response:
            if r.status_code != 200:
                raise RuntimeError(f"{r.request.method} {r.request.url}: {r.status_code} {r.text[:300]}")
            return r

        def timeline() -> None:
            for path in ("/ui/", *(f"/ui/static/{name}" for name in STATIC), "/v1/inspect/key"):
                ok(client.get(path))
            ok(client.get("/v1/users/bench/inspect/sessions", params={"limit": 20}))

        started = time.perf_counter()
        timeline()
        singles["timeline first page, first load (builds the browsing index)"] = time.perf_counter() - started
        rows.append(row("timeline first page (page + static + key + sessions)", timed(timeline, runs)))
        rows.append(
            row(
                "one session's first 50 turns, contexts, facts, events",
                timed(lambda: ok(client.get("/v1/users/bench/inspect/session", params={"session": "1"})), runs),
            )
        )
        graph = lambda: ok(client.get("/v1/users/bench/inspect/graph"))  # noqa: E731
        rows.append(row("event graph first page (25 events)", timed(graph, runs)))
        rows.append(
            row(
                "delete dry run of one session",
                timed(lambda: ok(client.get("/v1/users/bench/inspect/delete-preview", params={"session": "2"})), runs),
            )
        )
        questions = iter(QUESTIONS * (runs + 2))
        started = time.perf_counter()
        ok(client.post("/v1/users/bench/search", json={"query": next(questions)}))
        singles["first search (builds the retrieval snapshot and indexes)"] = time.perf_counter() - started
        rows.append(
            row(
                "search round trip, plain (/search)",
                timed(lambda: ok(client.post("/v1/users/bench/search", json={"query": next(questions)})), runs),
            )
        )
        rows.append(
            row(
                "search round trip, explained (inspect/search)",
                timed(lambda: ok(client.post("/v1/users/bench/inspect/search", json={"query": next(questions)})), runs),
            )
        )
    return rows, singles


SESSIONS_SHOWN = """
new MutationObserver((_, observer) => {
  if (document.querySelector("article.session")) {
    observer.disconnect();
    requestAnimationFrame(() => { window.__sessionsShownAt = performance.now(); });
  }
}).observe(document, {childList: true, subtree: true});
"""
SEARCH_IN_PAGE = """
const [question, done] = arguments;
const results = document.getElementById("results");
results.replaceChildren();
document.getElementById("s-query").value = question;
const started = performance.now();
new MutationObserver((_, observer) => {
  if (results.querySelector("article.hit")) {
    observer.disconnect();
    requestAnimationFrame(() => done(performance.now() - started));
  }
}).observe(results, {childList: true, subtree: true});
document.querySelector("form[role='search']").requestSubmit();
"""


def browser_figures(base: str, key: str, runs: int) -> list[str]:
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        return ["| (browser: chromium or chromedriver not installed) | | | |"]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return ["| (browser: selenium not installed) | | | |"]
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1366,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    # Measured inside the page, so WebDriver's own round trips are not counted: the moment the timeline's
    # first session is in the document, in ms since navigation started; then the next frame.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SESSIONS_SHOWN})
    try:
        driver.get(base + "/ui/")
        driver.execute_script("sessionStorage.setItem('anchormem.key', arguments[0])", key)
        wait = WebDriverWait(driver, 120, poll_frequency=0.01)

        def timeline() -> float:  # a full page load each time (the key stays in the tab)
            driver.get("about:blank")
            driver.get(base + "/ui/#/timeline")
            wait.until(lambda d: d.execute_script("return window.__sessionsShownAt"))
            return float(driver.execute_script("return window.__sessionsShownAt")) / 1000

        def search(question: str) -> float:
            return float(driver.execute_async_script(SEARCH_IN_PAGE, question)) / 1000

        out = [row("browser: navigation start to the timeline's sessions painted", [timeline() for _ in range(runs)])]
        driver.get(base + "/ui/#/search")
        wait.until(lambda d: d.find_elements(By.ID, "s-query"))
        search(QUESTIONS[0])  # the first search of a page load also loads the variants list
        asked = [search(QUESTIONS[i % len(QUESTIONS)]) for i in range(runs)]
        out.append(row("browser: Search submitted to explained results painted", asked))
        return out
    finally:
        driver.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--embed-backend", default="hash", choices=["hash", "minilm"])
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    args.turns = min(args.turns, 200_000)
    args.runs = max(3, min(args.runs, 1000))

    with tempfile.TemporaryDirectory(prefix="anchormem-ui-") as tmp:
        store = str(Path(tmp) / "ui.db")
        settings = Settings.load(env={}, store=store, embed__backend=args.embed_backend)
        started = time.perf_counter()
        with Memory(settings) as memory:
            report = memory.add(conversation(args.turns, args.sessions), user_id="bench")
            stats = memory.stats(user_id="bench")
        built = time.perf_counter() - started
        key, _ = create_key(Path(tmp) / "keys.json", ["bench"], note="ui benchmark")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "anchormem", "serve", "--keys", str(Path(tmp) / "keys.json"), "--store", store,
               "--host", "127.0.0.1", "--port", str(port), "--embed-backend", args.embed_backend,
               "--log-level", "warning"]  # fmt: skip
        with open(Path(tmp) / "server.log", "w") as log:
            server = subprocess.Popen(cmd, env={**os.environ, "HOME": tmp}, stdout=subprocess.DEVNULL, stderr=log)
        try:
            if not wait_healthy(base, server, Path(tmp) / "server.log", 180):
                return 1
            rows, singles = http_figures(base, key, args.runs)
            if not args.no_browser:
                rows += browser_figures(base, key, args.runs)
        finally:
            stop(server)

    print(
        f"## Inspector latency: {stats.turns:,} turns in {stats.sessions} sessions, {stats.contexts:,} contexts, "
        f"{stats.facts:,} facts, {stats.events:,} events; {args.embed_backend} embedder, SQLite, "
        f"{os.cpu_count()} cores\n"
    )
    print(f"memory built in {built:.1f} s ({report.turns_added:,} turns added); server on 127.0.0.1\n")
    for name, seconds in singles.items():
        print(f"- {name}: {seconds * 1000:.0f} ms")
    print()
    print("| what | runs | median (ms) | p90 (ms) |")
    print("|---|---:|---:|---:|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
