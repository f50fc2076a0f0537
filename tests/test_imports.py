"""Import hygiene: every module imports alone, layers point one way, heavy imports stay put."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("refinery", "vampire")


def _modules() -> list[str]:
    out = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _imports(module: str) -> set[str]:
    path = REPO / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", _modules())
def test_module_imports_in_a_fresh_interpreter(module: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr


def test_core_never_imports_the_backend_layer() -> None:
    # the command line (cli and its subcommand modules) is the composition root
    for module in _modules():
        root = module == "refinery.cli" or module.startswith("refinery.commands")
        if module.startswith("refinery") and not root:
            assert not any(name.split(".")[0] == "vampire" for name in _imports(module)), module


@pytest.mark.parametrize(
    ("library", "allowed"),
    [
        ("z3", {"refinery.logic.to_z3", "refinery.prove.z3_backend"}),
        ("lark", {"refinery.logic.parse"}),
        ("prefect", set()),  # only flows/ and tasks/ import prefect
        ("great_expectations", {"refinery.validation"}),
        ("openai", {"refinery.agents.llm"}),
        ("xllamacpp", {"refinery.agents.embedded"}),
    ],
)
def test_heavy_libraries_are_imported_only_where_they_belong(
    library: str, allowed: set[str]
) -> None:
    users = {m for m in _modules() if any(name.split(".")[0] == library for name in _imports(m))}
    assert users <= allowed


def test_plain_commands_do_not_import_prefect(tmp_path: Path) -> None:
    formulas = tmp_path / "f.txt"
    formulas.write_text("P(a)\n", encoding="utf-8")
    code = (
        "import sys; from refinery.cli import main; main(['lint', sys.argv[1]]); "
        "heavy = [m for m in ('prefect', 'great_expectations', 'datasets', 'openai') if m in sys.modules]; "
        "print('HEAVY', heavy)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(formulas)], capture_output=True, text=True, cwd=REPO
    )
    assert "HEAVY []" in proc.stdout, proc.stdout + proc.stderr
