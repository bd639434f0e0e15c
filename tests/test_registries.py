"""Each set of names has one registry, and every place that accepts a name takes it from there:
the command line's choices, the evaluation's variants, the REST schema and the settings check."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from anchormem.cli.main import build_parser, main
from anchormem.embed.factory import BACKENDS
from anchormem.errors import ConfigError
from anchormem.eval.runner import EvalConfig, eval_variants
from anchormem.search.retrieve import RECIPES
from anchormem.server.app import openapi_schema


def choices(path: tuple[str, ...], option: str) -> list[str]:
    parser = build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    action = next(a for a in parser._actions if option in a.option_strings)
    assert action.choices is not None
    return list(action.choices)


def test_command_line_choices_come_from_the_registries() -> None:
    assert choices(("search",), "--variant") == list(RECIPES)
    assert choices(("eval", "locomo"), "--variant") == choices(("eval", "sweep"), "--variant") == list(eval_variants())
    for command in (("add",), ("search",), ("serve",), ("eval", "locomo")):
        assert choices(command, "--embed-backend") == list(BACKENDS)


def test_evaluation_accepts_every_recipe_and_its_own_variants() -> None:
    assert set(RECIPES) < set(eval_variants())
    for variant in eval_variants():
        assert EvalConfig(data=Path("d"), out=Path("o"), variant=variant).retrieval_variant() in RECIPES
    with pytest.raises(ConfigError, match="choose one of anchormem"):
        EvalConfig(data=Path("d"), out=Path("o"), variant="nope").retrieval_variant()


def test_rest_schema_lists_the_recipes() -> None:
    schemas = openapi_schema()["components"]["schemas"]
    for body in ("SearchRequest", "AnswerRequest"):
        assert schemas[body]["properties"]["variant"]["enum"] == list(RECIPES)


@pytest.mark.parametrize(
    ("section", "line", "message"),
    [
        ("retrieval", 'variant = "bm52"', "unknown retrieval variant 'bm52'; choose one of anchormem"),
        ("embed", 'backend = "minilm2"', "unknown embedding backend 'minilm2'; choose one of minilm"),
    ],
)
def test_a_config_file_naming_an_unknown_name_fails_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, line: str, message: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f"[{section}]\n{line}\n")
    code = main(["stats", "--user", "u", "--store", str(tmp_path / "m.db"), "--config", str(config)])
    assert code == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.db").exists()


def test_the_light_name_lists_match_what_builds() -> None:
    """The shells list backends and recipes without importing numpy: the names must be the real ones."""
    from anchormem.embed.factory import BACKENDS
    from anchormem.registries import EMBEDDERS
    from anchormem.search import recipes, retrieve

    assert BACKENDS is EMBEDDERS  # one list of names: the registry the factory builds from
    assert retrieve.RECIPES is recipes.RECIPES
