"""`refinery lint`: parse and lint a file of formulas; one line per error, then a total."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "lint", help="parse and lint a file of FOL formulas"
    )
    parser.add_argument(
        "file", type=Path, help=".txt (one per line), .json list (e.g. MALLS), or a FOLIO file"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from refinery.datasets.folio import load_fol_lines
    from refinery.logic.lint import lint
    from refinery.logic.parse import Parsed, try_parse

    entries = load_fol_lines(args.file)
    errors = 0
    for line, text in entries:
        result = try_parse(text, field=f"{args.file}:{line}")
        if not isinstance(result, Parsed):
            errors += 1
            print(result.render())
            continue
        for issue in lint([(f"{args.file}:{line}", result.formula)]):
            if issue.severity == "error":
                errors += 1
                print(issue.render())
    print(f"{len(entries)} formulas, {errors} errors")
    return 1 if errors else 0
