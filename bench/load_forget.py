"""``bench/load.py --standby``'s forgetting check: how long a delete on the primary takes to vanish from the
searches of the server on the standby.

For each user checked: add a session of one message holding a word found nowhere else (on the primary's server),
wait until a search on the standby's server returns it (the standby replayed the add), delete the session on the
primary's server, then search the standby's server until nothing of it comes back. The figure is the time from
the delete's answer to the answer of the first search without it. Works on users of any memory (the word is
searched, so a user holding 1,000 turns of chat finds it as one holding a few does).
"""

from __future__ import annotations

import secrets
import time

import httpx


def served(read: httpx.Client, user: str, word: str) -> bool:
    """Whether a search of ``user`` on the ``read`` server returns a context holding ``word``."""
    found = read.post(f"/v1/users/{user}/search", json={"query": word, "k": 10})
    found.raise_for_status()
    return any(word in c["context"]["text"] for c in found.json()["contexts"])


def forget_checks(bases: tuple[str, str], key: str, users: list[str], limit: float = 60.0) -> list[float]:
    """The seconds from each delete's answer (on ``bases[0]``) to the first search of ``bases[1]`` without it.
    Raises if the standby never serves the added session, or still serves it ``limit`` seconds after the delete."""
    out: list[float] = []
    headers = {"Authorization": f"Bearer {key}"}
    with (
        httpx.Client(base_url=bases[0], headers=headers, timeout=120) as write,
        httpx.Client(base_url=bases[1], headers=headers, timeout=120) as read,
    ):
        for n, user in enumerate(users):
            word = "zq" + secrets.token_hex(6)  # a word no message of the memory holds
            session = f"forget-check-{n}-{word}"
            message = {"speaker": "user", "session": session, "text": f"My locker code word is {word}, remember it."}
            r = write.post(f"/v1/users/{user}/memories", json={"messages": [message], "background": False})
            r.raise_for_status()
            began = time.perf_counter()
            while not served(read, user, word):  # served before the delete (the standby replayed the add)
                if time.perf_counter() - began > limit:
                    raise RuntimeError(f"{user}: the standby never served {word!r}")
                time.sleep(0.01)
            r = write.delete(f"/v1/users/{user}/memories", params={"session": session})
            r.raise_for_status()
            deleted = time.perf_counter()
            while served(read, user, word):
                if time.perf_counter() - deleted > limit:
                    raise RuntimeError(f"{user}: {word!r} still served by the standby {limit:.0f} s after the delete")
                time.sleep(0.01)
            out.append(time.perf_counter() - deleted)
    return out
