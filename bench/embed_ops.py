"""Where one MiniLM run goes, by operator: onnxruntime's own profile of anchormem's ONNX file on one thread (the
single-text session's options), one text of ``--tokens`` tokens run ``--runs`` times.

    PYTHONPATH=src .venv/bin/python bench/embed_ops.py [--tokens 50] [--runs 100]

Prints each operator's share of the kernel time and the matrix products' rate: all-MiniLM-L6-v2 holds 6 layers of
4 384x384 projections and a 384x1536x384 feed-forward, 10.6 M multiply-adds (21.2 MFLOP) per token, besides
attention's own products. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

FLOP_PER_TOKEN = 2 * 6 * (4 * 384 * 384 + 2 * 384 * 1536)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--tokens", type=int, default=50)
    ap.add_argument("--runs", type=int, default=100)
    args = ap.parse_args()
    import onnxruntime as ort

    from anchormem.embed.bundled import minilm_model_dir
    from anchormem.embed.onnx_export import ensure_onnx

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.enable_profiling = True
    with tempfile.TemporaryDirectory(prefix="embed-ops-") as tmp:
        options.profile_file_prefix = str(Path(tmp) / "ort")
        session = ort.InferenceSession(
            str(ensure_onnx(minilm_model_dir())), options, providers=["CPUExecutionProvider"]
        )
        n = args.tokens
        feeds = {
            "input_ids": np.full((1, n), 1000, dtype=np.int64),
            "attention_mask": np.ones((1, n), dtype=np.int64),
            "token_type_ids": np.zeros((1, n), dtype=np.int64),
        }
        for _ in range(args.runs):
            session.run(None, feeds)
        events = json.loads(Path(session.end_profiling()).read_text())
    spent: Counter[str] = Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            spent[e["args"]["op_name"]] += e["dur"]
    total = sum(spent.values()) / args.runs
    print(f"# bench/embed_ops.py --tokens {n} --runs {args.runs}; load average {os.getloadavg()[0]:.1f}")
    print(f"kernel time per run {total / 1000:.2f} ms ({total / n / 1000:.3f} ms per token)")
    for name, us in spent.most_common(8):
        print(f"  {name}: {100 * us / sum(spent.values()):.1f}%")
    matmul = (spent["MatMul"] + spent["FusedMatMul"]) / args.runs / 1e6
    print(f"matrix products: {FLOP_PER_TOKEN * n / matmul / 1e9:.0f} GFLOP/s on one thread (projections only)")


if __name__ == "__main__":
    main()
