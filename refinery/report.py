"""The run report of the Refine stage: `report.md`, `report.html` and two figures.

This module owns what a report says and how it looks: run metadata, outcome counts with reason
codes, the gold × agreed-prover-label confusion matrix (table and `confusion.png`), the
error-class histogram (table and `error_classes.png`), every FOL edit as a unified diff beside
its NL sentence, every suggested label change and every conflict with its evidence (the premises
that prove the provers' label, or a countermodel), and the data-validation summaries. The output is
deterministic (everything sorted; no clock is read) and each file is written atomically.
matplotlib is imported only inside `write_report`, through its Agg canvas (no pyplot state).
"""

from __future__ import annotations

import base64
import difflib
import html
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from refinery.agents.models import ErrorClass
from refinery.labels import GOLD_LABELS, Label
from refinery.outcomes import Outcome, Status
from refinery.outputs import atomic_write, atomic_write_text

#: Outcome statuses, in report order.
STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
#: Shown for an empty label or reason.
NONE = "(none)"
_META_FIRST = ("run_id", "source", "agents", "rounds", "time")
_LABEL_ORDER = [label.value for label in Label]


def _natural_key(text: str) -> tuple[tuple[int, str], ...]:
    # "…/2" before "…/10", "premises[2]" before "premises[10]".
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"(\d+)", text))


def _s(value: object) -> str:
    return "" if value is None else str(value)


def _ordered(found: Iterable[str], first: Sequence[str]) -> list[str]:
    """`first` in its order, then the other values found, sorted."""
    found = set(found)
    return list(first) + sorted(found - set(first))


@dataclass(frozen=True, slots=True)
class _Summary:
    status_counts: dict[str, int]
    reason_counts: list[tuple[str, str, int]]  # (status, reason, items)
    repaired_by: list[tuple[str, int]]
    gold_axis: list[str]
    prover_axis: list[str]
    confusion: list[list[int]]  # [gold][prover]
    error_classes: list[tuple[str, int]]
    edits: list[Mapping[str, object]]
    label_changes: list[tuple[str, str, str, str, str]]  # (id, gold, suggested, why, evidence)
    conflicts: list[tuple[str, str, str, str, list[str]]]  # (id, reason, gold, provers, evidence)


def _summarise(outcomes: Sequence[Outcome], edits: Sequence[Mapping[str, object]]) -> _Summary:
    statuses = Counter(o.status.value for o in outcomes)
    order = _ordered(statuses, STATUSES)
    status_counts = {s: statuses.get(s, 0) for s in order}
    reasons: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        status = o.status.value
        # Several reason codes may be joined by ";" or ","; each counts once for the item.
        codes = {c.strip() for c in re.split(r"[;,]", o.reason.value) if c.strip()}
        if status != "verified" or codes:
            reasons.update((status, code) for code in codes or {NONE})
    reason_counts = sorted(
        ((s, r, n) for (s, r), n in reasons.items()),
        key=lambda t: (order.index(t[0]), -t[2], t[1]),
    )
    repaired = Counter(o.repaired_by or NONE for o in outcomes if o.status is Status.REPAIRED)
    pairs = Counter((o.gold_label or NONE, o.prover_label or NONE) for o in outcomes)
    gold_axis = _ordered((g for g, _ in pairs), [lab.value for lab in GOLD_LABELS])
    prover_seen = {p for _, p in pairs}
    prover_axis = [lab for lab in _LABEL_ORDER if lab in prover_seen or lab in GOLD_LABELS]
    prover_axis += sorted(prover_seen - set(prover_axis) - {NONE}) + (
        [NONE] if NONE in prover_seen else []
    )
    if NONE in gold_axis:  # keep "(none)" last on both axes
        gold_axis = [g for g in gold_axis if g != NONE] + [NONE]
    confusion = [[pairs.get((g, p), 0) for p in prover_axis] for g in gold_axis]
    classes = Counter(c for o in outcomes for c in o.error_classes)
    error_classes = [
        (c, classes.get(c, 0)) for c in _ordered(classes, [e.value for e in ErrorClass])
    ]
    sorted_edits = sorted(
        edits,
        key=lambda e: (
            _natural_key(_s(e.get("id"))),
            _natural_key(_s(e.get("where"))),
            _s(e.get("source")),
            _s(e.get("before")),
            _s(e.get("after")),
        ),
    )
    label_changes = []
    conflicts = []
    for o in sorted(outcomes, key=lambda o: _natural_key(o.id)):
        gold, suggested = o.gold_label, o.suggested_label
        if suggested and suggested != gold:
            evidence = "; ".join(_evidence(o)) or NONE
            label_changes.append((o.id, gold or NONE, suggested, _why(o), evidence))
        if o.status is Status.NEEDS_REVIEW:
            reason, provers = o.reason.value or NONE, o.prover_label or NONE
            conflicts.append((o.id, reason, gold or NONE, provers, _evidence(o)))
    return _Summary(
        status_counts=status_counts,
        reason_counts=reason_counts,
        repaired_by=sorted(repaired.items(), key=lambda t: (-t[1], t[0])),
        gold_axis=gold_axis,
        prover_axis=prover_axis,
        confusion=confusion,
        error_classes=error_classes,
        edits=sorted_edits,
        label_changes=label_changes,
        conflicts=conflicts,
    )


def _evidence(o: Outcome) -> list[str]:
    return [line for line in o.evidence.split("\n") if line]


def _why(o: Outcome) -> str:
    agreed = o.prover_label
    parts = [f"provers agree on {agreed}" if agreed else "no prover agreement"]
    if o.reason:
        parts.append(f"reason: {o.reason.value}")
    classes = o.error_classes
    if classes:
        parts.append("diagnosed: " + ", ".join(sorted(set(classes))))
    return "; ".join(parts)


def _diff(edit: Mapping[str, object]) -> list[str]:
    where = _s(edit.get("where"))
    return list(
        difflib.unified_diff(
            _s(edit.get("before")).splitlines(),
            _s(edit.get("after")).splitlines(),
            fromfile=f"a/{where}",
            tofile=f"b/{where}",
            lineterm="",
        )
    )


def _value(value: object) -> str:
    if isinstance(value, Mapping):
        return ", ".join(
            f"{k}={_value(v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))
        )
    if isinstance(value, list | tuple | set | frozenset):
        items = [_value(v) for v in value]
        return ", ".join(sorted(items) if isinstance(value, set | frozenset) else items)
    return _s(value)


def _meta_rows(meta: Mapping[str, object]) -> list[tuple[str, str]]:
    keys = [k for k in _META_FIRST if k in meta] + sorted(set(meta) - set(_META_FIRST))
    return [(k, _value(meta[k])) for k in keys]


@dataclass(frozen=True, slots=True)
class _Validation:
    name: str
    success: bool
    statistics: list[tuple[str, str]]
    failed: list[str]


def _failed_text(e: object) -> str:
    if not isinstance(e, Mapping):
        return _s(e)
    kind = _s(e.get("expectation_type") or e.get("type") or "expectation")
    kwargs = e.get("kwargs") or {}
    args = ""
    if isinstance(kwargs, Mapping):
        args = ", ".join(f"{k}={v!r}" for k, v in sorted(kwargs.items()) if k != "batch_id")
    text = f"{kind}({args})"
    result = e.get("result")
    if isinstance(result, Mapping) and "unexpected_count" in result:
        text += f": {result['unexpected_count']} unexpected"
        sample = result.get("partial_unexpected_list")
        if isinstance(sample, list) and sample:
            text += " (e.g. " + ", ".join(repr(x) for x in sample[:5]) + ")"
    return text


def _validations(validations: Mapping[str, Mapping[str, object]]) -> list[_Validation]:
    out = []
    for name in sorted(validations):
        v = validations[name]
        stats = v.get("statistics") or {}
        failed = v.get("failed_expectations", v.get("failed"))
        if failed is None:  # a great-expectations `describe_dict()`: keep the failures
            failed = [
                e
                for e in _as_list(v.get("expectations"))
                if isinstance(e, Mapping) and not e.get("success")
            ]
        out.append(
            _Validation(
                name=name,
                success=bool(v.get("success")),
                statistics=sorted((str(k), _value(x)) for k, x in stats.items())
                if isinstance(stats, Mapping)
                else [],
                failed=[_failed_text(e) for e in _as_list(failed)],
            )
        )
    return out


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


# ---------------------------------------------------------------------------------------------
# Markdown


def _md(text: object) -> str:
    """A table cell: pipes escaped, lines joined."""
    return " ".join(_s(text).replace("|", "\\|").splitlines())


def _md_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return lines + [""]


def _fence(body: str) -> str:
    # A fence longer than any backtick run inside, so no formula can close it early.
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


_REVIEW_HEADER = ("id", "decision", "reviewer", "label", "FOL lines changed", "note")


def _review_rows(review: Sequence[Mapping[str, object]]) -> list[list[str]]:
    rows = []
    for r in sorted(review, key=lambda r: _natural_key(_s(r.get("id")))):
        before, after = _s(r.get("label_before")), _s(r.get("label_after"))
        label = f"{before} → {after}" if before != after else f"{after} (kept)"
        rows.append(
            [
                _s(r.get("id")),
                _s(r.get("decision")),
                _s(r.get("reviewer")) or NONE,
                label,
                _s(r.get("fol_lines_changed")),
                _s(r.get("note")),
            ]
        )
    return rows


def _markdown(
    s: _Summary,
    meta: Mapping[str, object],
    checks: list[_Validation],
    review: Sequence[Mapping[str, object]] = (),
) -> str:
    total = sum(s.status_counts.values())
    out = [f"# FOL Refinery report: {_md(meta.get('run_id', ''))}", "", "## Run", ""]
    out += _md_table(["field", "value"], _meta_rows(meta))
    out += ["## Outcomes", ""]
    out += _md_table(["status", "items"], [*s.status_counts.items(), ("total", total)])
    if s.reason_counts:
        out += ["### Reasons", ""] + _md_table(["status", "reason", "items"], s.reason_counts)
    if s.repaired_by:
        out += ["### Repaired by", ""] + _md_table(["repaired by", "items"], s.repaired_by)
    if review:
        out += [f"## Review round ({len(review)} decisions)", ""]
        out += _md_table(_REVIEW_HEADER, _review_rows(review))
    out += ["## Gold label × agreed prover label", ""]
    out += _md_table(
        ["gold \\ provers", *s.prover_axis],
        [[g, *row] for g, row in zip(s.gold_axis, s.confusion, strict=True)],
    )
    out += ["![confusion matrix](confusion.png)", "", "## Error classes", ""]
    out += _md_table(["error class", "diagnoses"], s.error_classes)
    out += ["![error classes](error_classes.png)", "", f"## FOL edits ({len(s.edits)})", ""]
    for e in s.edits:
        out += [
            f"### `{_md(e.get('id'))}` {_md(e.get('where'))}",
            "",
            f"- error class: {_md(e.get('error_class')) or NONE}; made by: {_md(e.get('source')) or NONE}",
            f"- NL: {_md(e.get('nl')) or NONE}",
            "",
        ]
        body = "\n".join(_diff(e)) or "(no change)"
        fence = _fence(body)
        out += [f"{fence}diff", body, fence, ""]
    out += [f"## Suggested label changes ({len(s.label_changes)})", ""]
    out += _md_table(["id", "gold", "suggested", "why", "evidence"], s.label_changes)
    out += [f"## Conflicts and their evidence ({len(s.conflicts)})", ""]
    for item_id, reason, gold, provers, evidence in s.conflicts:
        out += [f"- `{_md(item_id)}` {_md(reason)}: gold {_md(gold)}, provers {_md(provers)}"]
        out += [f"  - {_md(line)}" for line in evidence] or ["  - (no evidence: nothing proved)"]
    out += [""]
    out += ["## Validations", ""]
    if not checks:
        out += ["No validations were run.", ""]
    for v in checks:
        out += [f"### {_md(v.name)}: {'passed' if v.success else 'FAILED'}", ""]
        if v.statistics:
            out += _md_table(["statistic", "value"], v.statistics)
        out += [f"- failed: {_md(f)}" for f in v.failed] + ([""] if v.failed else [])
    return "\n".join(out).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------------------------
# HTML

_CSS = """
body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1rem}td,th{border:1px solid #ccc;padding:.2rem .5rem;
text-align:left;vertical-align:top;white-space:pre-wrap}th{background:#f3f3f3}pre{margin:0;white-space:pre-wrap}
.add{color:#116611}.del{color:#aa1111}.hunk{color:#666}.ok{color:#116611}.bad{color:#aa1111}
img{max-width:100%}
"""


def _h(text: object) -> str:
    return html.escape(_s(text))


def _html_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th>{_h(c)}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{_h(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _html_diff(lines: list[str]) -> str:
    def cls(line: str) -> str:
        if line.startswith(("+++", "---")):
            return "hunk"
        return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")

    body = "\n".join(f'<span class="{cls(x)}">{_h(x)}</span>' for x in lines)
    return f"<pre>{body or '(no change)'}</pre>"


def _html(
    s: _Summary,
    meta: Mapping[str, object],
    checks: list[_Validation],
    pngs: Mapping[str, bytes],
    review: Sequence[Mapping[str, object]] = (),
) -> str:
    def img(name: str, alt: str) -> str:
        # Embedded, so the page stays whole when copied on its own; the PNG also sits beside it.
        data = base64.b64encode(pngs[name]).decode("ascii")
        return f'<img alt="{_h(alt)}" src="data:image/png;base64,{data}">'

    total = sum(s.status_counts.values())
    title = f"FOL Refinery report: {_s(meta.get('run_id', ''))}"
    parts = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{_h(title)}</title>",
        f"<style>{_CSS}</style></head><body><h1>{_h(title)}</h1>",
        "<h2>Run</h2>",
        _html_table(["field", "value"], _meta_rows(meta)),
        "<h2>Outcomes</h2>",
        _html_table(["status", "items"], [*s.status_counts.items(), ("total", total)]),
    ]
    if s.reason_counts:
        parts += ["<h3>Reasons</h3>", _html_table(["status", "reason", "items"], s.reason_counts)]
    if s.repaired_by:
        parts += ["<h3>Repaired by</h3>", _html_table(["repaired by", "items"], s.repaired_by)]
    if review:
        parts += [
            f"<h2>Review round ({len(review)} decisions)</h2>",
            _html_table(_REVIEW_HEADER, _review_rows(review)),
        ]
    parts += [
        "<h2>Gold label × agreed prover label</h2>",
        _html_table(
            ["gold \\ provers", *s.prover_axis],
            [[g, *row] for g, row in zip(s.gold_axis, s.confusion, strict=True)],
        ),
        img("confusion.png", "confusion matrix"),
        "<h2>Error classes</h2>",
        _html_table(["error class", "diagnoses"], s.error_classes),
        img("error_classes.png", "error classes"),
        f"<h2>FOL edits ({len(s.edits)})</h2>",
        "<table><tr><th>item</th><th>NL</th><th>diff</th></tr>",
    ]
    for e in s.edits:
        parts.append(
            f"<tr><td><code>{_h(e.get('id'))}</code><br>{_h(e.get('where'))}<br>"
            f"{_h(e.get('error_class')) or NONE}<br>by {_h(e.get('source')) or NONE}</td>"
            f"<td>{_h(e.get('nl'))}</td><td>{_html_diff(_diff(e))}</td></tr>"
        )
    parts += [
        "</table>",
        f"<h2>Suggested label changes ({len(s.label_changes)})</h2>",
        _html_table(["id", "gold", "suggested", "why", "evidence"], s.label_changes),
        f"<h2>Conflicts and their evidence ({len(s.conflicts)})</h2>",
        _html_table(
            ["id", "reason", "gold", "provers", "evidence"],
            [
                (i, r, g, p, "\n".join(e) or "(no evidence: nothing proved)")
                for i, r, g, p, e in s.conflicts
            ],
        ),
        "<h2>Validations</h2>",
    ]
    if not checks:
        parts.append("<p>No validations were run.</p>")
    for v in checks:
        verdict = (
            '<span class="ok">passed</span>' if v.success else '<span class="bad">FAILED</span>'
        )
        parts.append(f"<h3>{_h(v.name)}: {verdict}</h3>")
        if v.statistics:
            parts.append(_html_table(["statistic", "value"], v.statistics))
        if v.failed:
            parts.append("<ul>" + "".join(f"<li>{_h(f)}</li>" for f in v.failed) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------
# Figures


def _figures(s: _Summary) -> dict[str, bytes]:
    """Render both figures to PNG bytes with matplotlib's Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    def png(fig: Figure) -> bytes:
        FigureCanvasAgg(fig)
        buf = io.BytesIO()
        # No "Software" stamp: the same inputs give byte-identical files across patch versions.
        fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
        return buf.getvalue()

    cm = Figure(
        figsize=(1.6 + 1.1 * len(s.prover_axis), 1.4 + 0.7 * len(s.gold_axis)), layout="constrained"
    )
    ax = cm.add_subplot()
    peak = max((n for row in s.confusion for n in row), default=0)
    ax.imshow(s.confusion, cmap="Blues", vmin=0, vmax=max(peak, 1), aspect="auto")
    for i, row in enumerate(s.confusion):
        for j, n in enumerate(row):
            ax.text(
                j, i, str(n), ha="center", va="center", color="white" if n > peak / 2 else "black"
            )
    ax.set_xticks(range(len(s.prover_axis)), s.prover_axis)
    ax.set_yticks(range(len(s.gold_axis)), s.gold_axis)
    ax.set_xlabel("agreed prover label")
    ax.set_ylabel("gold label")
    ax.set_title("Gold × agreed prover label")

    names = [c for c, _ in s.error_classes]
    counts = [n for _, n in s.error_classes]
    ec = Figure(figsize=(7, 1.2 + 0.35 * len(names)), layout="constrained")
    ax = ec.add_subplot()
    positions = list(range(len(names)))
    ax.barh(positions, counts, color="#4c72b0")
    ax.set_yticks(positions, names)
    ax.invert_yaxis()  # taxonomy order reads top to bottom
    for y, n in zip(positions, counts, strict=True):
        ax.text(n, y, f" {n}", va="center")
    ax.set_xlim(0, max([*counts, 1]) * 1.15)
    ax.set_xlabel("diagnoses")
    ax.set_title("Error classes")
    return {"confusion.png": png(cm), "error_classes.png": png(ec)}


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
        ``source`` (rule name or ``llm:<model>``) and ``error_class``.
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

    Returns
    -------
    dict of str to Path
        ``markdown`` (report.md), ``html`` (report.html, self-contained: figures embedded),
        ``confusion`` (confusion.png: gold label × agreed prover label, annotated counts) and
        ``error_classes`` (error_classes.png: diagnoses per error class).
    """
    summary = _summarise(outcomes, edits)
    checks = _validations(validations)
    pngs = _figures(summary)
    paths = {
        key: atomic_write(out_dir / name, _bytes_writer(pngs[name]))
        for key, name in (("confusion", "confusion.png"), ("error_classes", "error_classes.png"))
    }
    paths["markdown"] = atomic_write_text(
        out_dir / "report.md", _markdown(summary, meta, checks, review)
    )
    paths["html"] = atomic_write_text(
        out_dir / "report.html", _html(summary, meta, checks, pngs, review)
    )
    return {k: paths[k] for k in ("markdown", "html", "confusion", "error_classes")}
