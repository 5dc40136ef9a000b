#!/bin/bash
# usage: bash benchmarks/device/make_pack.sh
# Builds the ignored .pack/ that the scripts here unpack on a lent GPU machine, whose Python is 3.12 and which reaches
# no registry, from the versions installed here: IREE's compiler and runtime as one xz stream split in two
# (.pack/a1/part, .pack/a2/part: a call carries at most 64 MiB with the repository, so they travel in two calls),
# Z3, Optuna and what Optuna needs (.pack/b/site.tar.xz), Ray's core and what the device's image lacks for it
# (.pack/r/ray.tar.xz, for the scaling and collection scripts: a third call), mltune's entry points, for the ranker
# registry (.pack/mltune-0.1.0.dist-info), and iree-turbine with decorator and diffusers, for exports made there
# (.pack/whl).
# Shared libraries are stripped, IREE's Tracy runtime is left out. On the device, `bash benchmarks/device/unpack.sh`
# after a first call that ran `cp .pack/a1/part /tmp/site_a1`; a script that needs Ray unpacks .pack/r.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.pack/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info && echo /.pack/ >> .git/info/exclude; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version() { python3 -c "import importlib.metadata as m; print(m.version('$1'))"; }
unpack_wheels() {  # TARGET REQUIREMENT...: CPython 3.12 manylinux wheels unpacked into TARGET
  local target=$1
  shift
  python3 -m pip install -q --disable-pip-version-check --no-deps --no-compile --only-binary=:all: \
    --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --target "$target" "$@"
}
unpack_wheels "$work/iree" "iree-base-compiler==$(version iree-base-compiler)" \
  "iree-base-runtime==$(version iree-base-runtime)"
rm -rf "$work/iree/iree/_runtime_libs_tracy"
unpack_wheels "$work/b" "z3-solver==$(version z3-solver)" "optuna==$(version optuna)" alembic sqlalchemy mako \
  colorlog platformdirs
unpack_wheels "$work/r" "ray==$(version ray)" jsonschema jsonschema-specifications referencing rpds-py
# Ray's core only: its Java jars, dashboard front end and libraries (RLlib, Data, Serve, Train, Tune, LLM) go
(cd "$work/r/ray" && rm -rf jars dashboard/client rllib data serve train tune llm)
strip --strip-unneeded "$work/r/ray/core/src/ray/gcs/gcs_server" "$work/r/ray/core/src/ray/raylet/raylet"
rm -f "$work/b/bin/z3"  # the solver's own command line: mltune loads the library
(cd "$work/b/z3/lib" && for copy in libz3.so.*; do ln -sf libz3.so "$copy"; done)  # the wheel holds it twice
find "$work" -name '*.so' -exec strip --strip-unneeded {} +
find "$work" -name __pycache__ -prune -exec rm -rf {} +
sed -i '1s|^#!.*python.*$|#!/usr/bin/env python3|' "$work"/iree/bin/* "$work"/b/bin/* "$work"/r/bin/*  # their Python
rm -rf .pack/a1 .pack/a2 .pack/b .pack/r .pack/whl .pack/mltune-*.dist-info
mkdir -p .pack/a1 .pack/a2 .pack/b .pack/r .pack/whl
tar cf - -C "$work/iree" . | xz -T0 -7 > "$work/iree.tar.xz"
head -c 30000000 "$work/iree.tar.xz" > .pack/a1/part
tail -c +30000001 "$work/iree.tar.xz" > .pack/a2/part
tar cf - -C "$work/b" . | xz -T0 -7 > .pack/b/site.tar.xz
tar cf - -C "$work/r" . | xz -T0 -7 > .pack/r/ray.tar.xz
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d .pack/whl \
  "iree-turbine==3.9.*" decorator "diffusers==$(version diffusers)"
python3 - <<'EOF'
import importlib.metadata
from pathlib import Path

mltune = importlib.metadata.distribution("mltune")
folder = Path(f".pack/mltune-{mltune.version}.dist-info")
folder.mkdir()
(folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: mltune\nVersion: {mltune.version}\n")
(folder / "entry_points.txt").write_text(mltune.read_text("entry_points.txt"))
EOF
du -sh .pack/*
