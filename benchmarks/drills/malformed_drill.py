"""A drill of malformed input over every command, run as a user would (`python -m mltune.cli ...`, one process each).

    python benchmarks/drills/malformed_drill.py [--only CATEGORY] [--show-failures] [--lock /tmp/mltune-cpu.lock]

Every case must end with exactly one line on stderr ("mltune: error: ..."; a skipped dataset file may add
one "warning: ..." line each) and exit code 2; the few inputs mltune once refused and takes now (`ACCEPTED`) must
run instead (exit 0, no traceback). Prints, per category, the number of cases, how many did as expected, and how
many printed a traceback; then every case that did not.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from source_tree import python_path_first

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from mltune.frontend.one_op_model import ContractionShape, contraction_model  # noqa: E402

TINY = contraction_model(ContractionShape(32, 48, 64))
F64 = contraction_model(ContractionShape(32, 48, 64, in_type="f64", out_type="f64"))
I16 = contraction_model(ContractionShape(32, 48, 64, in_type="i16", out_type="i16"))
ADD = """func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = arith.addf %a, %b : tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
"""
DYNAMIC = TINY.replace("%lhs: tensor<32x64xf32>", "%lhs: tensor<?x64xf32>")
TWO_FUNCTIONS = TINY.replace("@main", "@first") + TINY.replace("@main", "@second")  # neither is main
NO_FUNCTION = "module {\n}\n"
CONV = """func.func @main(%x: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>) outs(%acc : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}
"""
GOOD_RECORD = {
    "schema": 2,
    "arch": "x",
    "device": "d/cpu/local-task/2cores",
    "pipeline": "DoubleTilingExpert",
    "ranker": "shuffle",
    "position": 0,
    "run_id": "r",
    "level": "model",
    "status": "ok",
    "time_us": [10.0, 11.0],
    "baseline_us": [12.0, 12.0],
    "knobs": {"wg_m": 16, "wg_n": 16, "vec_m": 4, "vec_n": 16, "vec_k": 8},
    "problem": {
        "op_kind": "contraction",
        "op_name": "linalg.matmul",
        "bounds": [32, 48, 64],
        "batch": [],
        "m": [0],
        "n": [1],
        "k": [2],
        "lhs_type": "f32",
        "rhs_type": "f32",
        "out_type": "f32",
        "indexing_maps": [],
        "layout": "nn",
    },
    "target": {"kind": "cpu", "arch": "x", "native_vector_bytes": 32, "cores": 2},
}
SPOILERS = {
    "string time_us": lambda r: {**r, "time_us": "12.5"},
    "knobs a list": lambda r: {**r, "knobs": [16, 16]},
    "knob a string": lambda r: {**r, "knobs": {**r["knobs"], "wg_m": "16"}},
    "knobs null": lambda r: {**r, "knobs": None},
    "bounds an int": lambda r: {**r, "problem": {**r["problem"], "bounds": 32}},
    "bounds empty": lambda r: {**r, "problem": {**r["problem"], "bounds": []}},
    "loop past bounds": lambda r: {**r, "problem": {**r["problem"], "m": [9]}},
    "problem a string": lambda r: {**r, "problem": "mm"},
    "problem extra field": lambda r: {**r, "problem": {**r["problem"], "evil": 1}},
    "unknown status": lambda r: {**r, "status": "fast"},
    "baseline strings": lambda r: {**r, "baseline_us": ["a", "b"]},
    "no pipeline": lambda r: {k: v for k, v in r.items() if k != "pipeline"},
    "target unknown kind": lambda r: {**r, "target": {"kind": "tpu"}},
    "target a list": lambda r: {**r, "target": [1]},
    "record a list": lambda r: [r],
}
CSV_HEADER = (
    "candidate_id,knob_M,knob_N,knob_K,compile_status,benchmark_status,benchmark_time_us,baseline_benchmark_time_us"
)


# Once refused, taken now: f64 models are timed (NumPy has the type), batch-1 convolutions are tuned on llvm-cpu, and an
# empty folder in the data home's models/ holds no model, so the next folder of the search path (the shipped one) ranks.
ACCEPTED = {"f64 model", "batch-1 convolution on CPU", "empty folder"}


@dataclass
class Case:
    category: str
    name: str
    args: list[str]
    files: dict[str, str | bytes | None] = field(default_factory=dict)  # None: a folder
    accepted: bool = False  # input mltune takes now (it was refused once): it must run, exit 0, no traceback


def _flag_cases() -> list[Case]:
    cases = [
        Case("flags", f"{flag} {value!r}", ["tune", "mm.mlir", flag, value], {"mm.mlir": TINY})
        for flag in ("--budget", "--batch", "--top", "--jobs")
        for value in ("0", "-1", "abc", "1.5", "", "0x10")
    ]
    cases += [
        Case("flags", f"{flag} {value!r}", ["tune", "mm.mlir", flag, value], {"mm.mlir": TINY})
        for flag, low in (("--time-budget", "-0.5"), ("--min-speedup", "0.5"))
        for value in ("0", "-1", "nan", "inf", "abc", low)
    ]
    cases += [
        Case("flags", f"--seed {value}", [command, *rest, "--seed", value], {"mm.mlir": TINY})
        for value in ("-1", "-99", str(2**32), "99999999999999999999", "1.5")
        for command, *rest in (["tune", "mm.mlir"], ["train", "--arch", "x"], ["evaluate", "--arch", "x"])
    ]
    cases += [
        Case("flags", f"--jobs {value}", ["tune", "mm.mlir", "--jobs", value], {"mm.mlir": TINY})
        for value in ("100000", "99999999999999999999")
    ]
    cases += [
        Case("flags", name, ["tune", "mm.mlir", *args], {"mm.mlir": TINY})
        for name, args in (
            ("--iree-flag without dashes", ["--iree-flag", "O3"]),
            ("unknown ranker", ["--ranker", "bogus"]),
            ("unknown device", ["--devices", "nodriver://3"]),
            ("empty devices", ["--devices", ","]),
            ("unknown function", ["--function", "nope"]),
            ("unknown option", ["--bogus"]),
        )
    ]
    return cases + [
        Case("flags", "evaluate --batch 0", ["evaluate", "--arch", "x", "--batch", "0"]),
        Case("flags", "no command", []),
    ]


def _path_cases() -> list[Case]:
    spoilt = {
        "under a file": "afile/sub",
        "a file": "afile",
        "in /sys": "/sys/mltune_drill",
        "in /proc": "/proc/mltune_drill/x",
    }
    files = {"mm.mlir": TINY, "afile": "x", "t.csv": CSV_HEADER + "\n1,32,48,64,True,True,1.0,2.0\n"}
    cases = [
        Case("paths", f"{option} {what}", [*command, option, path], files)
        for what, path in spoilt.items()
        for command, option in (
            (["tune", "mm.mlir"], "--run-dir"),
            (["tune", "mm.mlir"], "--dataset-dir"),
            (["train", "--arch", "x", "--dataset-dir", "."], "--model-dir"),
            (["evaluate", "--arch", "x", "--dataset-dir", "."], "--out"),
            (["dataset", "import", "t.csv", "--from", "amdsharktuner", "--arch", "x"], "--dataset-dir"),
        )
    ]
    cases += [
        Case("paths", f"-o {what}", ["tune", "mm.mlir", "-o", path], {**files, "adir/keep": ""})
        for what, path in (
            ("under a file", "afile/spec.mlir"),
            ("deep under a file", "afile/a/b/spec.mlir"),
            ("a folder", "adir"),
            ("in /proc", "/proc/x/spec.mlir"),
            ("root", "/"),
        )
    ]
    cases += [
        Case("paths", name, args, {**files, "adir/keep": ""})
        for name, args in (
            ("input missing", ["tune", "nope.mlir"]),
            ("input a folder", ["tune", "adir"]),
            ("starter spec a folder", ["tune", "mm.mlir", "--starter-spec", "adir"]),
            ("starter spec missing", ["tune", "mm.mlir", "--starter-spec", "nope.mlir"]),
            ("csv missing", ["dataset", "import", "nope.csv", "--from", "amdsharktuner", "--arch", "x"]),
            ("csv a folder", ["dataset", "import", "adir", "--from", "amdsharktuner", "--arch", "x"]),
        )
    ]
    return cases


def _input_cases() -> list[Case]:
    contents: dict[str, str | bytes] = {
        "binary": b"\xff\xfe\x00\x81 not text",
        "empty": "",
        "only spaces": "   \n",
        "random text": "hello world",
        "json": '{"model": 1}',
        "f64 model": F64,
        "i16 model": I16,
        "dynamic shapes": DYNAMIC,
        "untunable add": ADD,
        "batch-1 convolution on CPU": CONV,
        "no function": NO_FUNCTION,
        "two functions": TWO_FUNCTIONS,
        "NUL bytes": TINY.replace("linalg", "lin\x00alg"),
        "malformed starter spec": None,
        "spec without entry point": None,
    }
    for cut in (10, 60, 150, 300, len(TINY) - 3):
        contents[f"truncated at {cut}"] = TINY[:cut]
    cases = [
        Case("inputs", name, ["tune", "model.mlir"], {"model.mlir": text}, accepted=name in ACCEPTED)
        for name, text in contents.items()
        if text is not None
    ]
    cases.append(
        Case(
            "inputs",
            "malformed starter spec",
            ["tune", "mm.mlir", "--starter-spec", "s.mlir"],
            {"mm.mlir": TINY, "s.mlir": "module { nope"},
        )
    )
    cases.append(
        Case(
            "inputs",
            "spec without entry point",
            ["tune", "mm.mlir", "--starter-spec", "s.mlir"],
            {"mm.mlir": TINY, "s.mlir": "module attributes {transform.with_named_sequence} {\n}\n"},
        )
    )
    return cases


def _target_cases() -> list[Case]:
    return [
        Case("targets", name, ["tune", "mm.mlir", "--target", name], {"mm.mlir": TINY})
        for name in (
            "skylak",
            "znver99",
            "nosuchcpu",
            "x86",
            "gfx9999",
            "sm_99",
            "sm_75",
            "cuda",
            "not a cpu",
            "",
            "mi999",
            "host;rm",
        )
    ]


def _dataset_cases() -> list[Case]:
    good = json.dumps(GOOD_RECORD)
    cases = [
        Case(
            "datasets",
            f"{command}: every record {what}",
            [command, "--arch", "x", "--out" if command == "evaluate" else "--model-dir", "out"],
            {"datasets/x/run.jsonl": json.dumps(spoil(GOOD_RECORD)) + "\n"},
        )
        for what, spoil in SPOILERS.items()
        for command in ("train", "evaluate")
    ]
    files = {
        "binary .jsonl": b"\x00\xff\x81binary\n",
        "a folder named .jsonl": None,
        "empty .jsonl": "",
        "torn record": good[:50],
        "not JSON": "hello\n",
        "one good record": good + "\n",
    }
    cases += [
        Case("datasets", f"{command}: {what}", [command, "--arch", "x"], {"datasets/x/run.jsonl": text})
        for what, text in files.items()
        for command in ("train", "evaluate")
    ]
    cases += [
        Case("datasets", f"{command} --arch {arch!r}", [command, "--arch", arch])
        for arch in ("nope", "../up", "")
        for command in ("train", "evaluate")
    ]
    return cases


def _csv_cases() -> list[Case]:
    csvs: dict[str, str | bytes] = {
        "binary": b"\xff\xfe\x00\x81",
        "empty": "",
        "header only": CSV_HEADER + "\n",
        "missing columns": "a,b\n1,2\n",
        "bad numbers": CSV_HEADER + "\n1,x,y,z,True,True,abc,def\n",
        "NUL byte": CSV_HEADER + "\n1,3\x002,48\n",
        "NUL in header": "cand\x00idate_id,knob_M\n1,2\n",
        "wrong statuses": CSV_HEADER + "\n1,32,48,64,maybe,no,1,2\n",
        "negative times": CSV_HEADER + "\n1,32,48,64,True,True,-1,-2\n",
        "short rows": CSV_HEADER + "\n1,32\n2\n",
        "unterminated quote": CSV_HEADER + '\n"1,32,48,64,True,True,1,2\n',
    }
    cases = [
        Case("csv", name, ["dataset", "import", "t.csv", "--from", "amdsharktuner", "--arch", "x"], {"t.csv": text})
        for name, text in csvs.items()
    ]
    cases += [
        Case(
            "csv",
            f"--problem {spec!r}",
            ["dataset", "import", "t.csv", "--from", "amdsharktuner", "--arch", "x", "--problem", spec],
            {"t.csv": CSV_HEADER + "\n"},
        )
        for spec in ("32x48", "axbxc", "1x2x3:f99:f32", "", "0x0x0", "-1x2x3")
    ]
    cases += [
        Case("csv", name, args, {"t.csv": CSV_HEADER + "\n1,32,48,64,True,True,1.0,2.0\n"})
        for name, args in (
            ("unknown tuner", ["dataset", "import", "t.csv", "--from", "autotvm", "--arch", "x"]),
            ("no --arch", ["dataset", "import", "t.csv", "--from", "amdsharktuner"]),
            ("bad --arch", ["dataset", "import", "t.csv", "--from", "amdsharktuner", "--arch", "a/b"]),
        )
    ]
    return cases


def _model_folder_cases(arch: str) -> list[Case]:
    folder = f"models/{arch}/contraction"
    variants: dict[str, dict[str, str | bytes | None]] = {
        "empty folder": {f"{folder}/keep": ""},
        "model.json not JSON": {f"{folder}/model.json": "not json"},
        "model.json empty object": {f"{folder}/model.json": "{}"},
        "model file missing": {f"{folder}/model.json": json.dumps({"model_file": "forest.joblib", "sha256": "0" * 64})},
        "hash mismatch": {
            f"{folder}/model.json": json.dumps({"model_file": "forest.joblib", "sha256": "0" * 64}),
            f"{folder}/forest.joblib": "not a model",
        },
        "model.json a folder": {f"{folder}/model.json": None},
    }
    variants.update(_damaged_shipped_model(folder))
    return [
        Case(
            "model folders",
            name,
            ["tune", "mm.mlir", "--ranker", "random-forest"],
            {"mm.mlir": TINY, **files},
            accepted=name in ACCEPTED,
        )
        for name, files in variants.items()
    ]


def _damaged_shipped_model(folder: str) -> dict[str, dict[str, str | bytes | None]]:
    """The shipped cpu family model damaged in ways a file hash alone let through, its manifest recomputed where
    someone who can write the folder would (a truncated forest, a cycle) and not where the hash must catch it."""
    import io

    import numpy as np

    from mltune.learn.model_files import MANIFEST_KEY, MODEL_FILE, SIDECAR_FILE, manifest_sha256

    shipped = REPO / "models" / "family-cpu" / "contraction"
    sidecar, forest = json.loads((shipped / SIDECAR_FILE).read_text()), (shipped / MODEL_FILE).read_bytes()
    with np.load(shipped / MODEL_FILE) as data:
        arrays = {name: data[name] for name in data.files}
    looped = arrays["left"].copy()
    looped[0] = 0  # the first tree's root is its own left child
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{**arrays, "left": looped})
    damaged = {
        "truncated forest, manifest updated": forest[: len(forest) // 2],
        "a node its own child": buffer.getvalue(),
    }
    variants: dict[str, dict[str, str | bytes | None]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in damaged.items():
            (Path(tmp) / MODEL_FILE).write_bytes(content)
            rehashed = {**sidecar, MANIFEST_KEY: manifest_sha256(Path(tmp) / MODEL_FILE, sidecar)}
            variants[name] = {f"{folder}/{MODEL_FILE}": content, f"{folder}/{SIDECAR_FILE}": json.dumps(rehashed)}
    reordered = {**sidecar, "feature_names": sidecar["feature_names"][::-1]}
    variants["feature names reordered"] = {
        f"{folder}/{MODEL_FILE}": forest,
        f"{folder}/{SIDECAR_FILE}": json.dumps(reordered),
    }
    return variants


def _run_folder_cases() -> list[Case]:
    """Run folders that are not runs to resume or show: a recorded command that was itself a --resume, a path that
    is no run, a damaged state file."""
    resumed = json.dumps(
        {
            "status": "interrupted",
            "argv": ["tune", "--resume", "run"],
            "input_sha256": "0" * 64,
            "pid": 1,
            "started": 0.0,
            "updated": 0.0,
        }
    )
    return [
        Case("run folders", "resume of a resume", ["tune", "--resume", "run"], {"run/state.json": resumed}),
        Case("run folders", "show an absolute folder", ["show", "/an/absolute/folder/that/is/not/a/run"]),
        Case("run folders", "show a damaged state", ["show", "run", "--run-root", "."], {"run/state.json": "{bad"}),
    ]


def host_arch() -> str:
    """The LLVM CPU name that `host` resolves to here (the folder a forest for this machine lives in)."""
    from mltune.system.tools import run_tool, tool_path

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "mm.mlir").write_text(TINY)
        out = Path(tmp) / "out.mlir"
        run_tool(
            [
                tool_path("iree-compile"),
                str(Path(tmp) / "mm.mlir"),
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host",
                "--compile-to=executable-configurations",
                "-o",
                str(out),
            ],
            timeout_s=120,
        )
        found = re.search(r'\bcpu = "([^"]+)"', out.read_text())
        return found.group(1) if found else "host"


@dataclass
class Outcome:
    case: Case
    code: int
    stderr: str

    @property
    def as_expected(self) -> bool:
        """A bad input: one line and exit 2; an accepted one: it ran (exit 0) without a traceback."""
        return self.code == 0 and not self.traceback if self.case.accepted else self.one_line_exit_2

    @property
    def one_line_exit_2(self) -> bool:
        lines = [line for line in self.stderr.splitlines() if not line.startswith("warning: ")]
        return self.code == 2 and len(lines) == 1 and lines[0].startswith("mltune: error: ")

    @property
    def traceback(self) -> bool:
        return "Traceback" in self.stderr


def run_case(case: Case) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="drill_") as tmp:
        root = Path(tmp)
        for name, content in case.files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if content is None:
                path.mkdir()
            elif isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
        args = [*case.args]
        if args and args[0] == "tune":
            args += [
                flag
                for pair in (("--run-dir", "run"), ("--dataset-dir", "datasets"))
                if pair[0] not in args
                for flag in pair
            ]
        env = {
            **os.environ,
            "PYTHONPATH": python_path_first(REPO),
            "MLTUNE_HOME": str(root),
        }  # the case's models/ are the data home's; nothing is written elsewhere
        proc = subprocess.run(
            [sys.executable, "-m", "mltune.cli", *args],
            cwd=root,
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            timeout=600,
        )
        return Outcome(case, proc.returncode, proc.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help="run one category")
    parser.add_argument("--show-failures", action="store_true", help="print the stderr of each failing case")
    parser.add_argument(
        "--lock", type=Path, default=None, help="hold this lock file (flock) for each case, not for the whole drill"
    )
    args = parser.parse_args()
    cases = (
        _flag_cases()
        + _path_cases()
        + _input_cases()
        + _target_cases()
        + _dataset_cases()
        + _csv_cases()
        + _model_folder_cases(host_arch())
        + _run_folder_cases()
    )
    cases = [c for c in cases if args.only in (None, c.category)]
    outcomes: dict[str, list[Outcome]] = defaultdict(list)
    for case in cases:
        with open(args.lock or os.devnull, "a") as lock:
            if args.lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
            outcomes[case.category].append(run_case(case))
    print(f"{'category':<15} {'cases':>5} {'as expected':>11} {'tracebacks':>10}")
    for category, done in outcomes.items():
        print(
            f"{category:<15} {len(done):>5} {sum(o.as_expected for o in done):>11} {sum(o.traceback for o in done):>10}"
        )
    every = [o for done in outcomes.values() for o in done]
    print(
        f"{'total':<15} {len(every):>5} {sum(o.as_expected for o in every):>11} {sum(o.traceback for o in every):>10}"
    )
    print(
        f"(as expected: one line and exit 2; for the {sum(o.case.accepted for o in every)} inputs mltune now takes "
        f"({', '.join(sorted(ACCEPTED))}), exit 0)"
    )
    for outcome in every:
        if not outcome.as_expected:
            tail = outcome.stderr.strip().splitlines()[-1:] or [""]
            print(
                f"  not as expected: [{outcome.case.category}] {outcome.case.name}: exit {outcome.code}: "
                f"{tail[0][:200]}"
            )
            if args.show_failures:
                print("    " + outcome.stderr.replace("\n", "\n    "))


if __name__ == "__main__":
    main()
