"""The package's layering contract: every import of a harness module points to a lower layer.

python tools/check_layers.py          # exit 0 when the contract holds, 1 with one line per breach

The layers, lowest first, are listed in ``LAYERS`` (docs/layout.md says what each holds). A module
may import modules of its own layer and of layers below it, never above; imports inside functions
count as much as those at the top of a file. Among the modules of one layer there is no circle.
The root package's face (``harness/__init__.py``) imports from the lowest layer only. Read from the source text
with ``ast``: nothing of the package is imported or run.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "harness"
LAYERS = (
    "core",  # errors, bits, ULP, digests, op ids, C library loading: a leaf
    "platform",  # configuration ids, machine facts, provenance, emulation
    "store",  # HDF5, the tensor pool, fixture files, the generator's spec, store paths
    "workloads",  # what is recorded, torch-free: nanoGPT configs and data, random cases, op inputs
    "impl",  # the reference implementation's kernels and profiles
    "formats",  # one module per fixture kind, the kind registry, whole-store maintenance
    "compare",  # comparing two fixtures
    "report",  # report formats, the matrix, output files
    "replay",  # the impl run over fixtures of each kind
    "record",  # the torch processes that record fixtures, and starting them
    "trace",  # parity trace
    "cli",  # the parity command
)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, name: str) -> Iterator[tuple[int, str]]:
    """(line, module) of every harness module ``path`` imports, relative imports resolved."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            for alias in node.names:  # `from harness.impl import rows` imports harness.impl.rows
                yield node.lineno, f"{base}.{alias.name}"


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else ""


def resolve(module: str, known: set[str]) -> str:
    """The known module ``module`` names (``from pkg import name`` may name a module or an attribute)."""
    while module not in known and "." in module:
        module = module.rsplit(".", 1)[0]
    return module


def breaches(root: Path = ROOT) -> list[str]:
    files = sorted((root / PACKAGE).rglob("*.py"))
    names = {module_name(p, root): p for p in files}
    known = set(names)
    problems: list[str] = []
    edges: dict[str, set[str]] = {}
    for name, path in names.items():
        own = layer_of(name)
        where = path.relative_to(root)
        if own == "" and name != PACKAGE:
            problems.append(f"{where}: a module outside every layer (LAYERS in tools/check_layers.py)")
        for line, target in imported(path, name):
            if layer_of(target) is None:
                continue
            target = resolve(target, known)
            if target == name:
                continue
            other = layer_of(target)
            if name == PACKAGE:
                if other != LAYERS[0]:
                    problems.append(f"{where}:{line}: the package's face imports {target}, not of {LAYERS[0]}")
            elif other == "":
                problems.append(f"{where}:{line}: imports {target}, which is outside every layer")
            elif LAYERS.index(other) > LAYERS.index(own):
                problems.append(f"{where}:{line}: {own} imports {target} of the higher layer {other}")
            elif other == own:
                edges.setdefault(name, set()).add(target)
    problems += [f"circle within a layer: {' -> '.join(c)}" for c in circles(edges)]
    return problems


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected set of modules (Tarjan), as a path through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append([*sorted(group), sorted(group)[0]])

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    problems = breaches()
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} breach(es) of the layering contract")
        return 1
    print(f"layers hold: {', '.join(LAYERS)} (each imports only itself and those before it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
