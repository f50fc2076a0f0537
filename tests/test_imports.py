"""Import hygiene: every module imports alone, layers point one way, no circles, heavy imports stay put.

The layer contract, top to bottom: a module may import modules of its own layer or of layers
below it, never above. Lazy imports inside functions count too: they are the same dependency.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("refinery", "vampire", "flows", "tasks")
MAX_LINES = 600
#: Loose modules the top of the `refinery` package may hold; the rest live in packages.
MAX_LOOSE = 12

#: (layer, module prefixes), from the top (the command line) to the bottom (the vocabulary).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("command line", ("refinery.cli",)),
    ("flows", ("flows",)),
    ("tasks", ("tasks",)),
    ("prover backends", ("vampire",)),
    ("refine run", ("refinery.pipeline",)),
    ("publish and rescore", ("refinery.publish",)),
    ("review", ("refinery.review",)),
    ("run folders and report", ("refinery.runs", "refinery.report", "refinery.validation")),
    ("repair stage", ("refinery.repair",)),
    ("agents", ("refinery.agents",)),
    ("check stage", ("refinery.check",)),
    ("provers and datasets", ("refinery.prove", "refinery.datasets")),
    ("logic", ("refinery.logic",)),
    (
        "vocabulary and plumbing",
        (
            "refinery",
            "refinery.addresses",
            "refinery.outcomes",
            "refinery.labels",
            "refinery.errors",
            "refinery.config",
            "refinery.store",
            "refinery.outputs",
            "refinery.parallel",
            "refinery.progress",
            "refinery.lifeline",
        ),
    ),
)


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Every module `path` imports (top-level or inside functions), by full name."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            # `from refinery import runs` imports the module refinery.runs
            subs = {f"{node.module}.{alias.name}" for alias in node.names}
            found = subs & MODULES.keys()
            names |= found or {node.module}
            if subs - found:
                names.add(node.module)
    return names


GRAPH: dict[str, set[str]] = {m: _imports(p) & MODULES.keys() - {m} for m, p in MODULES.items()}


def layer_of(module: str) -> int:
    """Index of the layer whose longest prefix matches `module` (0 = top)."""
    best, index = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, index = len(prefix), i
    if index < 0:
        raise KeyError(f"{module} is in no layer: add it to LAYERS")
    return index


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import of a higher layer by a lower one, as readable lines."""
    return [
        f"{m} ({LAYERS[layer_of(m)][0]}) imports {n} ({LAYERS[layer_of(n)][0]})"
        for m, targets in sorted(graph.items())
        for n in sorted(targets)
        if layer_of(n) < layer_of(m)
    ]


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_in_a_fresh_interpreter(module: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr


def test_every_module_has_a_layer() -> None:
    assert all(layer_of(m) >= 0 for m in MODULES)


def test_layers_point_one_way() -> None:
    assert upward_imports(GRAPH) == []


def test_no_import_circles() -> None:
    assert cycles(GRAPH) == []


def test_the_contract_catches_an_upward_import_and_a_circle() -> None:
    # the checks themselves can fail: a logic module importing the repair loop is both
    scratch = {m: set(t) for m, t in GRAPH.items()}
    scratch["refinery.logic.parse"].add("refinery.repair")
    assert upward_imports(scratch) == [
        "refinery.logic.parse (logic) imports refinery.repair (repair stage)"
    ]
    assert any("refinery.logic.parse" in c and "refinery.repair" in c for c in cycles(scratch))


def test_no_module_is_too_long_to_hold_in_your_head() -> None:
    lengths = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in MODULES.items()}
    assert {m: n for m, n in lengths.items() if n > MAX_LINES} == {}


def test_the_top_of_the_package_is_a_few_modules_and_no_prefix_family() -> None:
    """Stages live in packages (`check/`, `repair/`, `report/` …), not in `name_part.py` files."""
    loose = sorted(p.stem for p in (REPO / "refinery").glob("*.py") if p.stem != "__init__")
    assert len(loose) <= MAX_LOOSE, loose
    prefixes = {name.split("_")[0] for name in loose if "_" in name}
    packages = {p.name for p in (REPO / "refinery").iterdir() if p.is_dir()}
    assert prefixes & ({*loose} | packages) == set(), loose


def test_every_path_a_cache_key_hashes_exists() -> None:
    """A cache key hashes the code that decides a result by path: a moved file must not drop out."""
    from refinery.check.batches import CHECK_CODE
    from refinery.repair.batches import REPAIR_CODE

    root = REPO / "refinery"
    for folders, files in (CHECK_CODE, REPAIR_CODE):
        assert [f for f in folders if not (root / f).is_dir()] == []
        assert [f for f in files if not (root / f).is_file()] == []


@pytest.mark.parametrize(
    ("library", "allowed"),
    [
        ("z3", {"refinery.logic.to_z3", "refinery.prove.z3_backend", "refinery.prove.z3_sparse"}),
        ("lark", {"refinery.logic.parse"}),
        ("prefect", {m for m in MODULES if m.split(".")[0] in ("flows", "tasks")}),
        # the cluster libraries, like Prefect, only where work is mapped onto task runners
        *(
            (library, {m for m in MODULES if m.split(".")[0] in ("flows", "tasks")})
            for library in ("dask", "distributed", "ray", "prefect_dask", "prefect_ray")
        ),
        ("great_expectations", {"refinery.validation"}),
        ("openai", {"refinery.agents.llm"}),
        ("xllamacpp", {"refinery.agents.embedded"}),
        # the review page's web stack: only its app module, so no other command loads it
        ("fastapi", {"refinery.review.web.app"}),
        ("starlette", set()),
        ("uvicorn", {"refinery.review.web.app"}),
        ("jinja2", {"refinery.review.web.app", "refinery.report.render"}),
        ("playwright", set()),
    ],
)
def test_heavy_libraries_are_imported_only_where_they_belong(
    library: str, allowed: set[str]
) -> None:
    users = {m for m, p in MODULES.items() if any(n.split(".")[0] == library for n in _imports(p))}
    assert users <= allowed


def test_plain_commands_do_not_import_prefect(tmp_path: Path) -> None:
    formulas = tmp_path / "f.txt"
    formulas.write_text("P(a)\n", encoding="utf-8")
    code = (
        "import sys; from refinery.cli import main; main(['lint', sys.argv[1]]); "
        "heavy = [m for m in ('prefect', 'great_expectations', 'datasets', 'openai', 'fastapi', "
        "'uvicorn') if m in sys.modules]; "
        "print('HEAVY', heavy)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(formulas)], capture_output=True, text=True, cwd=REPO
    )
    assert "HEAVY []" in proc.stdout, proc.stdout + proc.stderr


HEAVY_FOR_CHECK = ("prefect", "great_expectations", "pandas", "dask", "distributed", "ray")


def _check_imports(args: list[str], state: Path) -> str:
    """Run `refinery check ARGS` in a fresh interpreter; print the heavy modules it loaded."""
    code = (
        "import sys; from refinery.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        f"print('HEAVY', [m for m in {HEAVY_FOR_CHECK!r} if m in sys.modules])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "check", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "REFINERY_STATE_DIR": str(state)},
    )
    return proc.stdout + proc.stderr


def test_a_local_check_imports_no_orchestrator_cluster_or_dataframe_library(
    tmp_path: Path,
) -> None:
    """`check --help`, a cold and a warm local check load neither Prefect, great-expectations,
    pandas nor a cluster library: each costs a short run most of its time."""
    sample = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"
    state = tmp_path / "state"
    args = [str(sample), "--provers", "z3", "--workers", "1", "--quiet", "--out", str(tmp_path)]
    assert "HEAVY []" in (shown := _check_imports(["--help"], state)), shown
    assert "HEAVY []" in (cold := _check_imports(args, state)), cold
    warm = _check_imports(args, state)
    assert "HEAVY []" in warm and "verdicts from cache: 18/18 items" in warm, warm
