"""keys.json is checked strictly and fails closed (issue 30, item 6): a malformed entry is an error at
load, never a guess such as ``bool("false")`` making an admin key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchormem.errors import ConfigError
from anchormem.server.keys import KeyRing, create_key, hash_key, read_keys

RAW = "amk_strict_test_key"


def entry(**fields: Any) -> dict[str, Any]:
    return {"id": "k-1", "sha256": hash_key(RAW), "users": ["alice"], **fields}


def write(path: Path, *entries: Any) -> Path:
    path.write_text(json.dumps({"version": 1, "keys": list(entries)}), encoding="utf-8")
    return path


BAD_ENTRIES = {
    'admin "false"': entry(admin="false"),
    'admin "true"': entry(admin="true"),
    'admin "no"': entry(admin="no"),
    'admin "0"': entry(admin="0"),
    "admin 0": entry(admin=0),
    "admin 1": entry(admin=1),
    "admin null": entry(admin=None),
    "admin [false]": entry(admin=[False]),
    "admin {}": entry(admin={}),
    "users a string": entry(users="alice"),
    "users with a number": entry(users=["alice", 7]),
    "users with an empty id": entry(users=[""]),
    "users with padding": entry(users=[" alice"]),
    "users true": entry(users=True),
    "sha256 too short": entry(sha256="abc"),
    "sha256 not hex": entry(sha256="z" * 64),
    "sha256 a number": entry(sha256=12345),
    "id a number": entry(id=7),
    "note a list": entry(note=["x"]),
    "created a number": entry(created=20250131),
    "unknown field": entry(admins=True),
    "not an object": ["sha256", hash_key(RAW)],
    "a string": "amk_raw_key_pasted_here",
}


@pytest.mark.parametrize("name", list(BAD_ENTRIES))
def test_a_malformed_entry_is_an_error_at_load(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / "keys.json", BAD_ENTRIES[name])
    with pytest.raises(ConfigError, match="entry 1"):
        read_keys(path)
    with pytest.raises(ConfigError):
        KeyRing(path)


def test_repeated_key_ids_are_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "keys.json", entry(), entry(sha256=hash_key("other")))
    with pytest.raises(ConfigError, match="repeat"):
        KeyRing(path)


def test_the_error_never_echoes_a_raw_key(tmp_path: Path) -> None:
    path = write(tmp_path / "keys.json", "amk_raw_key_pasted_here")
    with pytest.raises(ConfigError) as caught:
        KeyRing(path)
    assert "amk_raw_key_pasted_here" not in str(caught.value)


def test_well_formed_entries_load_with_their_types(tmp_path: Path) -> None:
    path = write(
        tmp_path / "keys.json",
        entry(admin=False, note="bot", created="2025-01-31"),
        entry(id="k-2", sha256=hash_key("x"), admin=True, users=[]),
    )
    ring = KeyRing(path)
    user_key, admin_key = ring.authenticate(RAW), ring.authenticate("x")
    assert user_key is not None and user_key.admin is False and user_key.may("alice") and not user_key.may("bob")
    assert admin_key is not None and admin_key.admin is True and admin_key.may("bob")


def test_keys_the_cli_writes_read_back(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    raw, _ = create_key(path, ["alice", "-"], note="n")
    raw_admin, _ = create_key(path, [], admin=True)
    ring = KeyRing(path)
    assert ring.authenticate(raw) is not None and ring.authenticate(raw_admin) is not None


def test_a_file_broken_while_serving_fails_closed(tmp_path: Path) -> None:
    path = write(tmp_path / "keys.json", entry())
    ring = KeyRing(path)
    assert ring.authenticate(RAW) is not None
    write(path, entry(admin="false", note="edited by hand"))
    assert ring.authenticate(RAW) is None, "no key is valid while the file is malformed"
    write(path, entry(admin=False))
    found = ring.authenticate(RAW)
    assert found is not None and found.admin is False
