"""The run report: files, counts, items and anchors, edits and inline diffs, label changes, the
review queue, charts (items, not diagnoses), embedded images, run history, determinism."""

from __future__ import annotations

import base64
import json
import re
import struct
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from refinery import runs
from refinery.agents.models import ErrorClass
from refinery.outcomes import Outcome, edit_rows
from refinery.report import run_history, write_report
from refinery.report.data import anchors, summarise
from refinery.report.diff import inline_diff
from refinery.report.figures import error_class_figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# One small story every item shares, unless an item says otherwise.
STORY: dict[str, Any] = {
    "premises": ["All dogs bark.", "Rex is a dog."],
    "original_premises_fol": ["∀x (Dog(x) → Bark(x))", "Dog(rex)"],
    "refined_premises_fol": ["∀x (Dog(x) → Bark(x))", "Dog(rex)"],
    "conclusion": "Rex barks.",
    "original_conclusion_fol": "Bark(rex)",
    "refined_conclusion_fol": "Bark(rex)",
}
PROPOSED_EDIT = {"where": "premises[1]", "before": "Dog(rex)", "after": "Dog(rex) ∧ Pet(rex)",
                 "error_class": "nl_mismatch", "source": "llm:qwen2.5"}  # fmt: skip
OUTCOMES: list[Outcome] = [
    Outcome.from_dict({**STORY, **o})
    for o in [
    # gold, agreed prover label: True/True ×3, False/True ×1, Uncertain/"" ×1, True/False ×1
    {"id": "f/1", "status": "verified", "reason": "", "gold_label": "True", "prover_label": "True",
     "suggested_label": "True", "error_classes": [], "repaired_by": ""},  # same as gold: no change
    {"id": "f/2", "status": "repaired", "reason": "unparseable", "gold_label": "True",
     "prover_label": "True", "suggested_label": "", "error_classes": ["unbalanced_parentheses"],
     "repaired_by": "balance_parentheses",
     "original_premises_fol": ["∀x (Dog(x) → Bark(x)", "Dog(rex)"]},
    {"id": "f/10", "status": "needs_review", "reason": "label_mismatch", "gold_label": "False",
     "prover_label": "True", "suggested_label": "True", "error_classes": ["label_error"],
     "repaired_by": "", "label_score": 0.05, "conclusion": "Rex is silent.",
     "original_conclusion_fol": "¬Bark(rex)", "refined_conclusion_fol": "¬Bark(rex)"},
    # two diagnoses of one class: one item in the error-class chart
    {"id": "f/3", "status": "needs_review", "reason": "prover_disagreement",
     "gold_label": "Uncertain", "prover_label": "", "suggested_label": "",
     "error_classes": ["scope", "label_error", "scope"], "repaired_by": "",
     "critique": "premises[0]: scope (0.80) the quantifier binds too little; "
                 "conclusion: label_error (0.40) the label looks wrong",
     "findings": ["premises[1]: entity_unsymbolised (0.50) the sentence names 'pet'"],
     "proposed_premises_fol": ["∀x (Dog(x) → Bark(x))", "Dog(rex) ∧ Pet(rex)"],
     "proposed_conclusion_fol": "Bark(rex)", "proposed_edits": [PROPOSED_EDIT]},
    {"id": "f/4", "status": "needs_review", "reason": "label_mismatch", "gold_label": "True",
     "prover_label": "False", "suggested_label": "False", "error_classes": ["label_error"],
     "repaired_by": "", "evidence": "proves its negation: premises[0] (z3)",
     "label_score": 0.2},
    # settled by the provers but misread: queued all the same
    {"id": "f/5", "status": "verified", "reason": "nl_mismatch", "gold_label": "True",
     "prover_label": "True", "error_classes": ["nl_mismatch"],
     "findings": ["premises[0]: exclusive_or (0.55) 'either … or' is read as ⊕"],
     "evidence": "proves the conclusion: premises[0], premises[1] (eprover, z3)"},
    ]
]  # fmt: skip
EDITS: list[dict[str, Any]] = [
    {"id": "f/2", "where": "premises[1]", "before": "∀x (Dog(x) → Bark(x)",
     "after": "∀x (Dog(x) → Bark(x))", "nl": "All dogs bark.", "source": "balance_parentheses",
     "error_class": "unbalanced_parentheses"},
    {"id": "f/2", "where": "conclusion", "before": "Bark(rex) v Cat(rex)",
     "after": "Bark(rex) ∨ Cat(rex)", "nl": "Rex barks or is a cat.", "source": "llm:qwen2.5",
     "error_class": "token_typo"},
]  # fmt: skip
VALIDATIONS: dict[str, dict[str, Any]] = {
    "refined_items": {
        "success": False,
        "statistics": {"evaluated_expectations": 4, "successful_expectations": 3},
        "failed_expectations": [
            {
                "expectation_type": "expect_column_values_to_be_in_set",
                "kwargs": {"column": "gold_label", "batch_id": "b"},
                "result": {"unexpected_count": 2, "partial_unexpected_list": ["Maybe"]},
            }
        ],
    },
    "queue": {  # a great-expectations describe_dict(), passed as is
        "success": True,
        "statistics": {"evaluated_expectations": 1},
        "expectations": [{"expectation_type": "expect_column_to_exist", "success": True}],
    },
}
META = {"run_id": "run-42", "source": "folio_v2_validation.jsonl", "agents": ["rules", "llm"],
        "rounds": 3, "time": "2025-06-01T12:00:00Z"}  # fmt: skip
HISTORY = [
    {"run_id": "run-40", "verified": 1, "repaired": 0, "needs_review": 5},
    {"run_id": "run-41", "verified": 2, "repaired": 1, "reviewed": 0, "needs_review": 3},
]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("report")
    return write_report(out, outcomes=OUTCOMES, edits=EDITS, validations=VALIDATIONS, meta=META)


@pytest.fixture(scope="module")
def md(written: dict[str, Path]) -> str:
    return written["markdown"].read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(written: dict[str, Path]) -> str:
    return written["html"].read_text(encoding="utf-8")


def _section(text: str, start: str, end: str = "\n## ") -> str:
    assert start in text, start
    return text.split(start, 1)[1].split(end, 1)[0]


def _md_item(md: str, anchor: str) -> str:
    return _section(md, f'### <a id="{anchor}"></a>', "\n### ")


def _html_item(page: str, anchor: str) -> str:
    return _section(page, f'<section class="item" id="{anchor}"', "</section>")


def test_all_files_exist_and_nothing_else(written: dict[str, Path]) -> None:
    assert set(written) == {"markdown", "html", "confusion", "error_classes"}
    folder = written["markdown"].parent
    assert sorted(p.name for p in folder.iterdir()) == [
        "confusion.png",
        "error_classes.png",
        "report.html",
        "report.md",
    ]


def test_markdown_meta_and_counts(md: str) -> None:
    assert md.startswith("# FOL Refinery report: run-42\n")
    for line in (
        "| source | folio_v2_validation.jsonl |",
        "| agents | rules, llm |",
        "| rounds | 3 |",
        "| time | 2025-06-01T12:00:00Z |",
        "| verified | 2 |",
        "| repaired | 1 |",
        "| needs_review | 3 |",
        "| total | 6 |",
        "| needs_review | label_mismatch | 2 |",
        "| needs_review | prover_disagreement | 1 |",
        "| repaired | unparseable | 1 |",
        "| verified | nl_mismatch | 1 |",
        "| balance_parentheses | 1 |",
        "| label_error | 3 |",
        "| scope | 1 |",
        "| nl_mismatch | 1 |",
        "| arity_conflict | 0 |",
    ):
        assert line in md.splitlines(), line


def test_table_of_contents_links_every_section(md: str, page: str) -> None:
    contents = _section(md, "## Contents\n")
    targets = re.findall(r"\]\(#([\w-]+)\)", contents)
    assert targets == [
        "run", "outcomes", "all-items", "confusion", "error-classes", "review-queue",
        "applied-edits", "proposed-edits", "label-changes", "items", "validations",
    ]  # fmt: skip
    for target in targets:
        assert f'<a id="{target}"></a>' in md
        assert f'id="{target}"' in page
    assert "- [Review queue](#review-queue): 4 items" in contents


def test_confusion_table_counts(md: str) -> None:
    assert "| gold \\ provers | True | False | Uncertain | (none) |" in md
    assert "| True | 3 | 1 | 0 | 0 |" in md
    assert "| False | 1 | 0 | 0 | 0 |" in md
    assert "| Uncertain | 0 | 0 | 0 | 1 |" in md


def test_markdown_embeds_images_as_data_uris(written: dict[str, Path], md: str) -> None:
    # a Prefect markdown artifact cannot reach a file beside it: the image travels inside
    for alt, key in (("confusion matrix", "confusion"), ("items per error class", "error_classes")):
        found = re.search(rf"!\[{alt}\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", md)
        assert found, alt
        assert base64.b64decode(found.group(1)) == written[key].read_bytes()
    assert "](confusion.png)" not in md and "](error_classes.png)" not in md


def test_a_diff_for_each_edit_with_its_nl_and_source(md: str) -> None:
    assert '<a id="applied-edits"></a>\n\n## Applied FOL edits (2)\n' in md
    for edit in EDITS:
        block = (
            f"--- a/{edit['where']}\n+++ b/{edit['where']}\n@@ -1 +1 @@\n"
            f"-{edit['before']}\n+{edit['after']}\n"
        )
        assert block in md
        assert f"- NL: {edit['nl']}" in md
        assert f"made by: {edit['source']}" in md
    # sorted: for the same item, "conclusion" comes before "premises[1]"
    assert md.index("a/conclusion") < md.index("a/premises[1]")
    # each edit's heading links to its item
    assert "### [f/2](#item-f-2) conclusion" in md


def test_inline_diff_marks_the_changed_token(md: str, page: str) -> None:
    assert [
        (s.kind, s.text) for s in inline_diff("Bark(rex) v Cat(rex)", "Bark(rex) ∨ Cat(rex)")
    ] == [
        ("same", "Bark(rex) "),
        ("del", "v"),
        ("ins", "∨"),
        ("same", " Cat(rex)"),
    ]
    assert '<code class="diff">Bark(rex) <del>v</del><ins>∨</ins> Cat(rex)</code>' in page
    assert '<code class="diff">∀x (Dog(x) → Bark(x)<ins>)</ins></code>' in page
    assert "- changed: `v` → `∨`" in md
    assert "- changed: added `)`" in md
    # the repaired item shows the same change where its formula is
    item = _html_item(page, "item-f-2")
    assert (
        '<div class="refined">refined: <code class="diff">∀x (Dog(x) → Bark(x)<ins>)</ins>' in item
    )


def test_applied_and_proposed_edits_are_counted_apart(tmp_path: Path) -> None:
    applied = [
        {"where": "premises[0]", "before": "P(a", "after": "P(a)",
         "error_class": "unbalanced_parentheses", "source": "balance_parentheses"},
        {"where": "conclusion", "before": "Q(a) v R(a)", "after": "Q(a) ∨ R(a)",
         "error_class": "token_typo", "source": "fix_tokens"},
    ]  # fmt: skip
    proposed = [
        {"where": "premises[0]", "before": "∃x P(x)", "after": "∀x P(x)",
         "error_class": "wrong_quantifier", "source": "switch_quantifier"},
    ]  # fmt: skip
    base = {"premises": ["A is P."], "conclusion": "A is Q or R."}
    outcomes = [
        Outcome.from_dict({**base, "id": "g/1", "status": "repaired", "edits": applied}),
        Outcome.from_dict({**base, "id": "g/2", "status": "needs_review", "reason":
                           "label_mismatch", "proposed_edits": proposed}),
        Outcome.from_dict({**base, "id": "g/3", "status": "verified"}),
    ]  # fmt: skip
    paths = write_report(
        tmp_path, outcomes=outcomes, edits=edit_rows(outcomes), validations={}, meta={}
    )
    md = paths["markdown"].read_text(encoding="utf-8")
    applied_md = _section(md, "Applied FOL edits (2)\n")
    proposed_md = _section(md, "Proposed FOL edits, not applied (1)\n")
    assert applied_md.count("```diff") == 2 and proposed_md.count("```diff") == 1
    assert "+P(a)" in applied_md and "+∀x P(x)" not in applied_md
    assert "+∀x P(x)" in proposed_md and "switch_quantifier" in proposed_md
    assert "[g/2](#item-g-2)" in proposed_md
    page = paths["html"].read_text(encoding="utf-8")
    assert "Applied FOL edits (2)</h2>" in page
    assert "Proposed FOL edits, not applied (1)</h2>" in page
    applied_html = _section(page, '<table class="sortable wide" id="applied-table">', "</table>")
    proposed_html = _section(page, '<table class="sortable wide" id="proposed-table">', "</table>")
    assert applied_html.count("<tr>") == 3 and proposed_html.count("<tr>") == 2  # + header
    assert "<del>∃</del><ins>∀</ins>x P(x)" in proposed_html
    # the counts per item in the all-items table agree
    assert (
        "| [g/1](#item-g-1) | repaired | (none) | (none) | (none) | (none) | 1.00 |  | 2 | 0 |"
        in md
    )
    assert "| [g/2](#item-g-2) | needs_review | label_mismatch |" in md
    assert md.count("| 0 | 1 |") == 1


def test_every_queued_item_appears_with_its_nl_fol_and_why(md: str, page: str) -> None:
    queued = [o for o in OUTCOMES if o.queued]
    assert {o.id for o in queued} == {"f/3", "f/4", "f/5", "f/10"}  # f/5 is verified: misread
    links = anchors(o.id for o in OUTCOMES)
    queue_md = _section(md, "Review queue (4 items)\n")
    queue_html = _section(page, '<table class="sortable wide" id="queue-table">', "</table>")
    for o in queued:
        anchor = links[o.id]
        assert f"| [{o.id}](#{anchor}) | {o.status.value} | {o.reason.value} |" in queue_md
        assert f'<a class="item-link" href="#{anchor}">{o.id}</a>' in queue_html
        item_md, item_html = _md_item(md, anchor), _html_item(page, anchor)
        pairs = [*zip(o.premises, o.original_premises_fol, strict=True)]
        for nl, fol in [*pairs, (o.conclusion, o.original_conclusion_fol)]:
            assert nl in item_md and f"`{fol}`" in item_md
            assert f'<td class="nl">{nl}</td>' in item_html
            assert f'<code class="original">{fol}</code>' in item_html
        assert f"({o.reason.value})" in item_md and o.reason.value in item_html
        for line in (*o.findings, *o.evidence.splitlines()):
            assert f"  - {line}" in item_md and f"<li>{escape(line)}</li>" in item_html
    # f/3: its critique, one line per diagnosis, and its proposal beside the original
    item_md = _md_item(md, "item-f-3")
    assert "  - premises[0]: scope (0.80) the quantifier binds too little" in item_md
    assert "  - conclusion: label\\_error" not in item_md  # underscores stay readable
    assert "  - conclusion: label_error (0.40) the label looks wrong" in item_md
    assert "  - proposed: `Dog(rex) ∧ Pet(rex)` (added `∧ Pet(rex)`)" in item_md
    item_html = _html_item(page, "item-f-3")
    assert (
        '<div class="proposed">proposed: <code class="diff">Dog(rex)<ins> ∧ Pet(rex)</ins></code>'
        in item_html
    )
    assert "evidence: none (nothing proved)" in item_md


def test_each_suggested_label_change_with_nl_fol_reason_and_score(md: str, page: str) -> None:
    section = _section(md, "Suggested label changes (2)\n")
    rows = [line for line in section.splitlines() if line.startswith("| [f/")]
    assert rows == [
        "| [f/4](#item-f-4) | True | False | 0.20 | provers agree on False; reason: label_mismatch; diagnosed: label_error | proves its negation: premises[0] (z3) | Rex barks. | `Bark(rex)` |",
        "| [f/10](#item-f-10) | False | True | 0.05 | provers agree on True; reason: label_mismatch; diagnosed: label_error | (none) | Rex is silent. | `¬Bark(rex)` |",
    ]
    table = _section(page, '<table class="sortable wide" id="label-table">', "</table>")
    assert table.count("<tr>") == 3
    assert "<td>0.05</td>" in table and "<td>Rex is silent.</td>" in table
    assert "<td><code>¬Bark(rex)</code></td>" in table
    # the premises are one click away
    assert "All dogs bark." in _html_item(page, "item-f-10")


def test_every_item_link_target_exists_once(md: str, page: str) -> None:
    class Ids(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.ids: list[str] = []
            self.hrefs: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found = dict(attrs)
            if found.get("id"):
                self.ids.append(str(found["id"]))
            if (found.get("href") or "").startswith("#"):
                self.hrefs.append(str(found["href"])[1:])

    parser = Ids()
    parser.feed(page)
    assert len(parser.ids) == len(set(parser.ids)), "duplicate ids"
    assert set(parser.hrefs) <= set(parser.ids)
    item_anchors = {f"item-{o.id.replace('/', '-')}" for o in OUTCOMES}
    assert item_anchors <= set(parser.ids)
    # the all-items table links every item
    table = _section(page, '<table class="sortable wide" id="outcomes-table">', "</table>")
    assert set(re.findall(r'href="#(item-[\w-]+)"', table)) == item_anchors
    md_ids = re.findall(r'<a id="([\w-]+)"></a>', md)
    assert len(md_ids) == len(set(md_ids)) and item_anchors <= set(md_ids)
    assert set(re.findall(r"\]\(#([\w-]+)\)", md)) <= set(md_ids)


def test_anchors_are_unique_and_stable() -> None:
    assert anchors(["f/10", "f/2", "F/2"]) == {"F/2": "item-f-2", "f/2": "item-f-2-2", "f/10": "item-f-10"}  # fmt: skip
    assert anchors(["f/2", "F/2"]) == anchors(["F/2", "f/2"])


def test_error_class_chart_counts_items_not_diagnoses(md: str, page: str) -> None:
    data = summarise(
        OUTCOMES,
        EDITS,
        error_classes=[e.value for e in ErrorClass],
        validations={},
        meta={},
    )
    counts = dict(data.error_classes)
    assert counts["scope"] == 1  # f/3 has two "scope" diagnoses
    assert counts["label_error"] == 3
    ax = error_class_figure(data).axes[0]
    bars = [round(p.get_width()) for p in ax.patches]  # type: ignore[attr-defined]
    assert bars == [n for _, n in data.error_classes]
    assert "items" in ax.get_xlabel() and "Items per error class" in ax.get_title()
    assert "| error class | items |" in md
    assert (
        "an item counts once for each class" in md and "an item counts once for each class" in page
    )


def test_review_queue_lists_evidence(md: str, page: str) -> None:
    queue = _section(md, "Review queue (4 items)\n")
    assert "| [f/3](#item-f-3) | needs_review | prover_disagreement | Uncertain | (none) | (none) | 1.00 | (no evidence: nothing proved) |" in queue  # fmt: skip
    assert "| [f/4](#item-f-4) | needs_review | label_mismatch | True | False | False | 0.20 | proves its negation: premises[0] (z3) |" in queue  # fmt: skip
    assert '<td><div class="line">proves its negation: premises[0] (z3)</div></td>' in page


class _Cells(HTMLParser):
    """The text of every cell of the report's countermodel tables, table by table."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._in = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and "model" in (dict(attrs).get("class") or ""):
            self.tables.append([])
            self._in = 1
        elif tag == "tr" and self._in:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self._in:
            self.tables[-1][-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in = 0

    def handle_data(self, data: str) -> None:
        if self._in and self.tables[-1] and self.tables[-1][-1]:
            self.tables[-1][-1][-1] += data.strip()


def test_a_countermodel_is_shown_as_small_tables(tmp_path: Path) -> None:
    line = (
        "the conclusion can fail: domain {mara, rex}; max = rex; Dog(rex); ¬Bark(rex); "
        "Owns(mara, rex); Cat = {} — all premises hold and the conclusion fails (z3)"
    )
    item = Outcome.from_dict(
        {**STORY, "id": "m/1", "status": "needs_review", "reason": "label_mismatch",
         "gold_label": "True", "prover_label": "Uncertain", "evidence": line}
    )  # fmt: skip
    written = write_report(tmp_path, outcomes=[item], edits=[], validations={}, meta=META)
    cells = _Cells()
    cells.feed(written["html"].read_text(encoding="utf-8"))
    # the item's own section shows the tables; the queue table folds them: two copies
    assert len(cells.tables) == 4
    unary, owns = cells.tables[2:]
    assert unary == [["element", "mara", "rex"], ["Bark", "✗", "✗"], ["Dog", "✗", "✓"],
                     ["nothing", "Cat"]]  # fmt: skip
    assert owns == [["Owns", "mara", "rex"], ["mara", "✗", "✓"], ["rex", "✗", "✗"]]
    assert "rex is also max" in written["html"].read_text(encoding="utf-8")
    md = written["markdown"].read_text(encoding="utf-8")
    assert "\n      Dog   ✗     ✓\n" in md and "\n      Owns  mara  rex\n" in md


def test_validations(md: str) -> None:
    assert "### queue: passed" in md
    assert "### refined_items: FAILED" in md
    assert md.index("### queue") < md.index("### refined_items")
    assert "| successful_expectations | 3 |" in md
    assert (
        "- failed: expect_column_values_to_be_in_set(column='gold_label'): 2 unexpected"
        " (e.g. 'Maybe')" in md
    )


def test_html_is_self_contained_sortable_and_escaped(tmp_path: Path, page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("data:image/png;base64,") == 2
    assert "All dogs bark." in page and "∀x (Dog(x) → Bark(x))" in page
    # no library, nothing fetched: the page's own script and no external reference
    assert page.count("<script>") == 1 and 'src="http' not in page and "<link" not in page
    assert 'class="sortable wide" id="outcomes-table"' in page and 'class="filter"' in page
    nasty = dict(EDITS[0], nl="<script>alert(1)</script>", after="P(a) & <b>")
    outcome = OUTCOMES[0].replace(id="f/2", premises=("<img src=x onerror=alert(1)>",))
    paths = write_report(tmp_path, outcomes=[outcome], edits=[nasty], validations={}, meta={})
    text = paths["html"].read_text(encoding="utf-8")
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert re.search(r"<ins>[^<]*&amp; &lt;b&gt;</ins>", text)
    assert "<img src=x" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "<script>" not in md and "\\<script\\>alert(1)\\</script\\>" in md
    assert not re.search(r"(?<!\\)<img", md) and "\\<img src=x onerror=alert(1)\\>" in md


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("key", ["confusion", "error_classes"])
def test_figures_are_pngs_of_reasonable_size(written: dict[str, Path], key: str) -> None:
    width, height = _png_size(written[key])
    assert 300 <= width <= 2000 and 200 <= height <= 2000
    assert 5_000 < written[key].stat().st_size < 500_000


def test_report_is_deterministic_and_order_free(tmp_path: Path) -> None:
    first = write_report(
        tmp_path / "a",
        outcomes=OUTCOMES,
        edits=EDITS,
        validations=VALIDATIONS,
        meta=META,
        history=HISTORY,
    )
    second = write_report(
        tmp_path / "b",
        outcomes=OUTCOMES[::-1],
        edits=EDITS[::-1],
        validations=dict(reversed(VALIDATIONS.items())),
        meta=dict(reversed(META.items())),
        history=HISTORY,
    )
    for key in first:
        assert first[key].read_bytes() == second[key].read_bytes(), key


def test_run_history_section(tmp_path: Path) -> None:
    paths = write_report(
        tmp_path, outcomes=OUTCOMES, edits=EDITS, validations={}, meta=META, history=HISTORY
    )
    md = paths["markdown"].read_text(encoding="utf-8")
    section = _section(md, '<a id="run-history"></a>\n\n## Run history\n')
    assert "| run | verified | repaired | reviewed | needs_review | total |" in section
    assert "| run-40 | 1 | 0 | 0 | 5 | 6 |" in section
    assert "| run-41 | 2 | 1 | 0 | 3 | 6 |" in section
    assert "| **run-42** | **2** | **1** | **0** | **3** | **6** |" in section  # this run, last
    assert section.index("run-40") < section.index("run-41") < section.index("run-42")
    assert re.search(r"!\[run history\]\(data:image/png;base64,[A-Za-z0-9+/=]{2000,}\)", section)
    assert "- [Run history](#run-history): 3 runs" in md
    page = paths["html"].read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 3
    assert '<tr class="current" style="font-weight:bold"><td>run-42</td>' in page
    # the chart is embedded only: the report still writes its four files
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "confusion.png",
        "error_classes.png",
        "report.html",
        "report.md",
    ]
    # no history, no section
    assert "Run history" not in write_report(
        tmp_path / "none", outcomes=OUTCOMES, edits=[], validations={}, meta=META
    )["markdown"].read_text(encoding="utf-8")


def test_run_history_reads_the_run_folders_beside_a_run(tmp_path: Path) -> None:
    split = tmp_path / "folio-v2" / "validation"
    for run_id, counts in (
        ("20260101-000000", {"verified": 5, "repaired": 1, "needs_review": 4}),
        ("20260102-000000", {"verified": 6, "repaired": 2, "needs_review": 2}),
        ("20260102-000000-review", {"verified": 6, "repaired": 2, "reviewed": 2, "needs_review": 0}),
        ("20260104-000000", {"verified": 9, "repaired": 0, "needs_review": 1}),  # newer: left out
    ):  # fmt: skip
        runs.write_meta(split / run_id, {"run_id": run_id, "kind": "refine", "counts": counts})
    (split / "20260101-120000").mkdir()  # not a run folder: no run.json
    (split / "20260101-130000").mkdir()
    (split / "20260101-130000" / runs.RUN_FILE).write_text("{broken", encoding="utf-8")
    (split / ".20260102-100000-review.tmp").mkdir()  # still being written
    this = split / "20260103-000000"
    assert run_history(this) == [
        {"run_id": "20260101-000000", "verified": 5, "repaired": 1, "reviewed": 0, "needs_review": 4},
        {"run_id": "20260102-000000", "verified": 6, "repaired": 2, "reviewed": 0, "needs_review": 2},
        {"run_id": "20260102-000000-review", "verified": 6, "repaired": 2, "reviewed": 2, "needs_review": 0},
    ]  # fmt: skip
    assert [h["run_id"] for h in run_history(this, limit=1)] == ["20260102-000000-review"]
    # a review round built in a hidden staging folder names the run it will become
    staging = split / ".20260103-000000-review.tmp"
    assert len(run_history(staging, before="20260103-000000-review")) == 3
    assert run_history(tmp_path / "nowhere" / "run") == []
    # the rows feed write_report as they are
    meta = json.loads((split / "20260104-000000" / runs.RUN_FILE).read_text(encoding="utf-8"))
    assert meta["counts"]["verified"] == 9


def test_empty_run(tmp_path: Path) -> None:
    paths = write_report(tmp_path, outcomes=[], edits=[], validations={}, meta={})
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "| total | 0 |" in md and "Applied FOL edits (0)" in md
    assert "Proposed FOL edits, not applied (0)" in md and "Items (0)" in md
    assert "No validations were run." in md
    _png_size(paths["confusion"])


def test_a_full_folio_split(tmp_path: Path) -> None:
    outcomes = [
        OUTCOMES[i % len(OUTCOMES)].replace(id=f"folio-v2/validation/{i}") for i in range(1200)
    ]
    edits = [dict(EDITS[i % 2], id=f"folio-v2/validation/{i}") for i in range(0, 1200, 3)]
    paths = write_report(tmp_path, outcomes=outcomes, edits=edits, validations={}, meta={})
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "| total | 1200 |" in md
    assert len(re.findall(r"^@@ ", md, flags=re.M)) == 400
    assert (
        len(re.findall(r'^### <a id="item-folio-v2-validation-\d+"></a>', md, flags=re.M)) == 1200
    )
    page = paths["html"].read_text(encoding="utf-8")
    assert page.count('<section class="item"') == 1200


def test_a_large_run_gets_a_sampled_report_whose_counts_cover_every_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from refinery.report import data
    from refinery.report.sample import SAMPLE_PER_REASON, sample

    monkeypatch.setattr(data, "FULL_REPORT_ITEMS", 40)  # the threshold `summarise` reads
    proposed = [{"where": "premises[0]", "before": "∃x P(x)", "after": "∀x P(x)",
                 "error_class": "wrong_quantifier", "source": "switch_quantifier"}]  # fmt: skip
    base = {"premises": ["A is P."], "conclusion": "A is Q."}
    outcomes = [
        Outcome.from_dict({**base, "id": f"s/{k}", "status": "verified"}) for k in range(30)
    ] + [
        Outcome.from_dict({**base, "id": f"s/{k}", "status": "needs_review", "reason":
                           "label_mismatch", "proposed_edits": proposed}) for k in range(30, 60)
    ]  # fmt: skip
    paths = write_report(
        tmp_path, outcomes=outcomes, edits=edit_rows(outcomes), validations={}, meta={}
    )
    shown = sample(outcomes)
    assert len(shown) == 2 * SAMPLE_PER_REASON  # 25 of each status and reason
    page = paths["html"].read_text(encoding="utf-8")
    md = paths["markdown"].read_text(encoding="utf-8")
    for text in (page, md):
        assert "This run has 60 items, too many to list" in text
        assert "Review queue (25 shown of 30 items)" in text
        assert "Proposed FOL edits, not applied (25 shown of 30)" in text
        assert "Items (50 shown of 60)" in text
    # counts are over every item; entries, table rows and edits only for the sample
    assert "<tr><td>needs_review</td><td>30</td></tr>" in page
    entries = set(re.findall(r'<section class="item" id="[\w-]+" data-id="([^"]+)"', page))
    assert entries == shown
    queue = _section(page, '<table class="sortable wide" id="queue-table">', "</table>")
    assert queue.count("<tr>") == 26  # + header
    hrefs = set(re.findall(r'href="#(item-[\w-]+)"', page))
    assert hrefs <= set(re.findall(r'id="(item-[\w-]+)"', page))  # no link to a missing entry
    # the same items every run, whatever the order they come in
    again = write_report(
        tmp_path / "again", outcomes=outcomes[::-1], edits=edit_rows(outcomes), validations={},
        meta={},
    )  # fmt: skip
    assert again["html"].read_text(encoding="utf-8") == page
    # a small run shows everything, and says nothing of a sample
    small = write_report(
        tmp_path / "small", outcomes=outcomes[:40], edits=[], validations={}, meta={}
    )
    assert "too many to list" not in small["html"].read_text(encoding="utf-8")
