"""The run report of the Refine stage: `report.md`, `report.html` and two figures, written.

`refinery.report.data` decides what the report says, `refinery.report.figures` draws its charts,
and the Jinja2 templates in `refinery/report/templates/` lay it out; this module renders them
and writes the files, each atomically. Both documents carry their figures as base64 ``data:``
URIs, so the HTML page stays whole when copied alone and the Markdown shows its images where it
is published as a Prefect artifact (which cannot reach a file beside it); the PNG files are still
written. `run_history` reads the earlier runs of a split for the report's trend chart. Nothing
here reads the clock: the same inputs give byte-identical files. jinja2 and matplotlib are
imported only when a report is written.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from refinery import runs
from refinery.agents.models import ErrorClass
from refinery.outcomes import Outcome
from refinery.outputs import atomic_write, atomic_write_text
from refinery.prove import model_table
from refinery.report.data import NONE, STATUSES, summarise
from refinery.report.diff import changes
from refinery.report.figures import CONFUSION, ERROR_CLASSES, figures

if TYPE_CHECKING:
    from jinja2 import Environment

__all__ = ["HISTORY_LIMIT", "run_history", "write_report"]

#: The most earlier runs `run_history` returns (the newest ones).
HISTORY_LIMIT = 30


def run_history(
    run_dir: Path, *, before: str | None = None, limit: int = HISTORY_LIMIT
) -> list[dict[str, object]]:
    """The earlier runs of the split `run_dir` belongs to, oldest first, for `write_report`.

    The run folders beside `run_dir` (`refinery.runs.run_folders`) whose names sort before
    `before` (default: `run_dir`'s own name; run ids sort by time) and whose ``run.json`` holds
    ``counts``; a folder whose ``run.json`` cannot be read is left out.

    Parameters
    ----------
    run_dir
        The run folder the report is for (it need not exist yet).
    before
        The run id to stop at, for a run built under another name (a review round's staging).
    limit
        Keep only the newest `limit` runs; 0 keeps them all.

    Returns
    -------
    list of dict
        ``run_id`` and items per status (``verified``, ``repaired``, ``reviewed``,
        ``needs_review``; 0 where run.json has none), in run order.
    """
    cutoff = run_dir.name if before is None else before
    rows: list[dict[str, object]] = []
    for folder in runs.run_folders(run_dir.parent):
        if folder.name >= cutoff:
            continue
        try:
            meta = json.loads((folder / runs.RUN_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # half-written or foreign: not part of the history
        counts = meta.get("counts") if isinstance(meta, dict) else None
        if not isinstance(counts, Mapping):
            continue
        row: dict[str, object] = {"run_id": str(meta.get("run_id") or folder.name)}
        row.update({s: _int(counts.get(s)) for s in STATUSES})
        rows.append(row)
    return rows[-limit:] if limit > 0 else rows


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) else 0


# ---------------------------------------------------------------------------------------------
# Markdown filters: the HTML template relies on autoescape instead


def md_cell(text: object) -> str:
    """A Markdown table cell: shown as written (`md_text`), lines joined, pipes escaped.

    Every cell goes through `md_text`, so no cell (a reviewer's name, a run setting, a
    validation's message) can carry raw HTML into a Markdown viewer.

    >>> md_cell("a | b\\nc <svg onload=x>")
    'a \\\\| b c \\\\<svg onload=x\\\\>'
    """
    return md_markup_cell(md_text(text))


def md_markup_cell(markup: object) -> str:
    """A table cell of Markdown already made safe (a link built from escaped text): lines
    joined, pipes escaped, nothing else touched.

    >>> md_markup_cell("[a\\\\<b](#x)")
    '[a\\\\<b](#x)'
    """
    return " ".join(str(markup).replace("|", "\\|").splitlines())


def md_text(text: object) -> str:
    r"""Text that Markdown shows as written: raw HTML, code spans, emphasis and links are escaped.

    Brackets alone stay (``premises[0]`` reads as is); only ``](``, which would make a link, is
    broken up.

    >>> print(md_text("<b>x</b> `y` *z* [a](b) premises[0]"))
    \<b\>x\</b\> \`y\` \*z\* [a]\(b) premises[0]
    """
    out = str(text).replace("\\", "\\\\")
    for char in "`*<>":
        out = out.replace(char, "\\" + char)
    return out.replace("](", "]\\(")


def _longest_run(body: str, char: str) -> int:
    longest = current = 0
    for c in body:
        current = current + 1 if c == char else 0
        longest = max(longest, current)
    return longest


def md_fence(body: object) -> str:
    """A code fence longer than any backtick run in `body`, so nothing inside can close it.

    >>> md_fence("a ``` b")
    '````'
    """
    return "`" * max(3, _longest_run(str(body), "`") + 1)


def md_code(text: object) -> str:
    """An inline code span that holds `text` whatever backticks it has; "(empty)" for none.

    >>> md_code("P(a)"), md_code("a`b"), md_code("")
    ('`P(a)`', '`` a`b ``', '(empty)')
    """
    body = str(text)
    if not body:
        return "(empty)"
    ticks = "`" * (_longest_run(body, "`") + 1)
    pad = " " if "`" in body or body.startswith(" ") or body.endswith(" ") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def md_change(text: object) -> str:
    """A changed piece of a formula as inline code, without its edge spaces.

    >>> md_change(" ∧ Pet(rex)"), md_change(" ")
    ('`∧ Pet(rex)`', 'white space')
    """
    stripped = str(text).strip()
    return md_code(stripped) if stripped else "white space"


@functools.cache
def _templates() -> Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=PackageLoader("refinery.report", "templates"),
        # dataset text is untrusted: escaped in HTML; the Markdown template escapes it itself
        autoescape=select_autoescape(("html.j2",), default_for_string=False, default=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        cell=md_cell,
        markup_cell=md_markup_cell,
        text=md_text,
        fence=md_fence,
        code=md_code,
        change=md_change,
        changes=changes,
        model_table=model_table.read,
    )
    return env


def _render(name: str, **context: object) -> str:
    return _templates().get_template(name).render(**context)


def _bytes_writer(data: bytes) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        tmp.write_bytes(data)

    return write


def write_report(
    out_dir: Path,
    *,
    outcomes: Sequence[Outcome],
    edits: Sequence[Mapping[str, object]],
    validations: Mapping[str, Mapping[str, object]],
    meta: Mapping[str, object],
    review: Sequence[Mapping[str, object]] = (),
    history: Sequence[Mapping[str, object]] = (),
) -> dict[str, Path]:
    """Write the run report (Markdown, HTML and two PNG figures) into `out_dir`.

    Parameters
    ----------
    out_dir
        The folder to write into (created if needed); existing report files are replaced.
    outcomes
        One per item (`refinery.outcomes.Outcome`).
    edits
        One mapping per FOL edit (`refinery.outcomes.edit_rows`): ``id``, ``where`` (``premises[i]`` or
        ``conclusion``), ``before``, ``after``, ``nl`` (the sentence it formalises),
        ``source`` (rule name or ``llm:<model>``), ``error_class`` and ``accepted`` (False: only
        proposed, for an item still in review; a row without it counts as applied).
    validations
        Data-validation results by suite name: ``success`` (bool), ``statistics`` (mapping)
        and ``failed_expectations`` (strings, or great-expectations result dicts); a
        great-expectations ``describe_dict()`` (with ``expectations``) is accepted as is.
    meta
        Run metadata, shown in order ``run_id``, ``source``, ``agents``, ``rounds``, ``time``,
        then any other keys sorted. No clock is read here: pass the time in.
    review
        The decisions of a review round, when this report is for one (a "Review round" section):
        ``id``, ``decision``, ``reviewer``, ``label_before``, ``label_after``,
        ``fol_lines_changed`` (a count) and ``note``.
    history
        The earlier runs of the same split, in run order (`run_history`): ``run_id`` and items
        per status. When given, a "Run history" section shows them and this run (a table and an
        embedded trend chart).

    Returns
    -------
    dict of str to Path
        ``markdown`` (report.md), ``html`` (report.html, self-contained: figures embedded, tables
        sortable and filterable offline), ``confusion`` (confusion.png: gold label × agreed
        prover label, annotated counts) and ``error_classes`` (error_classes.png: items per
        error class).
    """
    data = summarise(
        outcomes,
        edits,
        error_classes=[e.value for e in ErrorClass],
        validations=validations,
        meta=meta,
        review=review,
        history=history,
    )
    pngs = figures(data)
    images = {
        name: "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        for name, png in pngs.items()
    }
    paths = {
        key: atomic_write(out_dir / name, _bytes_writer(pngs[name]))
        for key, name in (("confusion", CONFUSION), ("error_classes", ERROR_CLASSES))
    }
    context = {"data": data, "images": images, "none_text": NONE}
    paths["markdown"] = atomic_write_text(out_dir / "report.md", _render("report.md.j2", **context))
    paths["html"] = atomic_write_text(out_dir / "report.html", _render("report.html.j2", **context))
    return {k: paths[k] for k in ("markdown", "html", "confusion", "error_classes")}
