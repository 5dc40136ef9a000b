"""How livable the code is, measured on a checkout: what a maintainer meets on the way from `mltune tune` to the
search, and where the code, the benchmarks and the docs stand. Compares two checkouts side by side.

    python benchmarks/house_metrics.py OLD_CHECKOUT NEW_CHECKOUT

Prints, per checkout: modules and lines of the library; the largest module and function; the constructor (or
dataclass) with the most parameters; how many times the option `screen_finalists` is written in the library and in
how many files; import circles between the library's modules (grimp, as `lint-imports` builds the graph); benchmark
scripts maintained and archived (`benchmarks/studies/`) with their lines; the files and bytes under `docs/`.
Nothing is timed.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

OPTION = "screen_finalists"


@dataclass
class Metrics:
    modules: int = 0
    lines: int = 0
    largest_module: tuple[int, str] = (0, "")
    largest_function: tuple[int, str] = (0, "")
    widest_constructor: tuple[int, str] = (0, "")
    option_mentions: int = 0
    option_files: int = 0
    circles: int = 0
    maintained: tuple[int, int] = (0, 0)
    archived: tuple[int, int] = (0, 0)
    docs: tuple[int, int] = (0, 0)


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def _read_library(root: Path, metrics: Metrics) -> None:
    for path in sorted((root / "mltune").rglob("*.py")):
        text = path.read_text()
        name = str(path.relative_to(root))
        count = len(text.splitlines())
        metrics.modules += 1
        metrics.lines += count
        metrics.largest_module = max(metrics.largest_module, (count, name))
        metrics.option_mentions += text.count(OPTION)
        metrics.option_files += OPTION in text
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = node.end_lineno - node.lineno + 1
                metrics.largest_function = max(metrics.largest_function, (span, f"{name}:{node.name}"))
                if node.name == "__init__":
                    width = len(node.args.args) - 1 + len(node.args.kwonlyargs)
                    metrics.widest_constructor = max(metrics.widest_constructor, (width, f"{name}:__init__"))
            if isinstance(node, ast.ClassDef) and _is_dataclass(node):
                width = sum(isinstance(item, ast.AnnAssign) for item in node.body)
                metrics.widest_constructor = max(metrics.widest_constructor, (width, f"{name}:{node.name}"))


def _circles(root: Path) -> int:
    """Groups of the library's modules that import each other (directly or through others; imports for type
    checking included, as an editor follows them), read in a child with the checkout on its path."""
    code = (
        "import grimp, sys\n"
        "g = grimp.build_graph('mltune')\n"
        "seen, count = set(), 0\n"
        "for m in sorted(g.modules):\n"
        "    if m in seen: continue\n"
        "    group = {o for o in g.find_upstream_modules(m) if m in g.find_upstream_modules(o)}\n"
        "    if group: seen |= group | {m}; count += 1\n"
        "print(count)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, env={"PYTHONPATH": str(root)}
    )
    return int(result.stdout.strip()) if result.returncode == 0 else -1


def _scripts(folder: Path, skip: Path | None = None) -> tuple[int, int]:
    paths = [
        p
        for p in folder.rglob("*")
        if p.suffix in (".py", ".sh") and (skip is None or skip not in p.parents) and "results" not in p.parts
    ]
    return len(paths), sum(len(p.read_text(errors="replace").splitlines()) for p in paths)


def measure(root: Path) -> Metrics:
    metrics = Metrics()
    _read_library(root, metrics)
    metrics.circles = _circles(root)
    studies = root / "benchmarks" / "studies"
    metrics.maintained = _scripts(root / "benchmarks", studies)
    metrics.archived = _scripts(studies) if studies.is_dir() else (0, 0)
    docs = [p for p in (root / "docs").rglob("*") if p.is_file()]
    metrics.docs = (len(docs), sum(p.stat().st_size for p in docs))
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", type=Path, nargs="+")
    args = parser.parse_args()
    measured = {str(root): measure(root) for root in args.checkouts}
    rows = {
        "library modules / lines": lambda m: f"{m.modules} / {m.lines}",
        "largest module": lambda m: f"{m.largest_module[1]} ({m.largest_module[0]} lines)",
        "largest function": lambda m: f"{m.largest_function[1]} ({m.largest_function[0]} lines)",
        "most constructor parameters": lambda m: f"{m.widest_constructor[1]} ({m.widest_constructor[0]})",
        f"`{OPTION}` written (files)": lambda m: f"{m.option_mentions} ({m.option_files})",
        "import circles": lambda m: str(m.circles),
        "benchmarks maintained: scripts / lines": lambda m: f"{m.maintained[0]} / {m.maintained[1]}",
        "benchmarks archived (studies/)": lambda m: f"{m.archived[0]} / {m.archived[1]}",
        "docs/: files / MB": lambda m: f"{m.docs[0]} / {m.docs[1] / 1e6:.1f}",
    }
    print("| measure | " + " | ".join(measured) + " |")
    print("|---|" + "---|" * len(measured))
    for label, cell in rows.items():
        print(f"| {label} | " + " | ".join(cell(m) for m in measured.values()) + " |")


if __name__ == "__main__":
    main()
