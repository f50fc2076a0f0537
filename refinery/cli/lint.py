"""`refinery lint`: parse and lint a file of formulas; one line per error, then a total."""

from __future__ import annotations

import click

from refinery.cli.options import PATH, Args, make_command


def run(args: Args) -> int:
    """Parse and lint every formula in FILE: one line per error, then a total; exit 1 on errors.

    FILE is a .txt file (one formula per line), a .json list (e.g. MALLS) or a FOLIO file.
    """
    from refinery.datasets.folio import load_fol_lines
    from refinery.logic.lint import lint
    from refinery.logic.parse import Parsed, try_parse
    from refinery.outputs import visible

    entries = load_fol_lines(args.file)
    errors = 0
    for line, text in entries:
        result = try_parse(text, field=f"{args.file}:{line}")
        if not isinstance(result, Parsed):
            errors += 1
            print(visible(result.render()))
            continue
        for issue in lint([(f"{args.file}:{line}", result.formula)]):
            if issue.severity == "error":
                errors += 1
                print(visible(issue.render()))
    print(f"{len(entries)} formulas, {errors} errors")
    return 1 if errors else 0


command = make_command(
    "lint",
    run,
    click.argument("file", type=PATH),
    short_help="parse and lint a file of FOL formulas",
)
