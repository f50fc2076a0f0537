"""The run report in a real browser: Debian's Chromium, headless, driven by Playwright.

A real Refine run (rules only, real Z3 and E) over the FOLIO v2 validation split writes the
report once per module; each test opens its report.html from disk, as a maintainer would, and
uses it: follows an item link, finds every item in review, sorts and filters a table. Nothing is
downloaded: Playwright launches /usr/bin/chromium; without it, the playwright package or the
shared datasets, these tests skip and say why.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import launch

from refinery.outcomes import Outcome, Reason, Status
from refinery.pipeline import RefineSettings, run_plain
from refinery.report.data import anchors, natural_key
from vampire.registry import build_provers

WAIT_MS = 30_000

pytestmark = [pytest.mark.data, pytest.mark.slow, pytest.mark.prover]


class FolioRun:
    """A finished run: its report page and its outcomes (input order)."""

    def __init__(self, report: Path, outcomes: list[Outcome]) -> None:
        self.report = report
        self.outcomes = outcomes


@pytest.fixture(scope="module")
def folio_run(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> FolioRun:
    source = shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl"
    if not source.is_file():
        pytest.skip(f"FOLIO v2 validation not found at {source}")
    base = tmp_path_factory.mktemp("report-folio")
    settings = RefineSettings(
        source=str(source),
        agents=("rules",),
        out_dir=str(base / "run"),
        review_path=str(base / "q.csv"),
        state_dir=str(base / "state"),
        workers=2,
    )
    written = run_plain(settings, build_provers)
    return FolioRun(base / "run" / "report.html", list(written["outcomes"]))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch(WAIT_MS)


@pytest.fixture
def page(browser: Any, folio_run: FolioRun) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # offline: a report that fetched anything would fail here
    context.route("http://*/**", lambda route: route.abort())
    context.route("https://*/**", lambda route: route.abort())
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(folio_run.report.as_uri())
    yield page
    context.close()
    assert errors == [], errors


def _column(page: Any, table: str, header: str) -> list[str]:
    """The visible cells of one column, top to bottom."""
    return list(
        page.evaluate(
            """([table, header]) => {
                const t = document.getElementById(table);
                const i = [...t.tHead.rows[0].cells].findIndex(c => c.textContent === header);
                return [...t.tBodies[0].rows].filter(r => !r.hidden)
                    .map(r => r.cells[i].textContent.trim());
            }""",
            [table, header],
        )
    )


def test_an_item_link_leads_to_its_sentences_and_fol(page: Any, folio_run: FolioRun) -> None:
    from playwright.sync_api import expect

    # the last item in review with a few premises: far down the table and the page
    candidates = [
        o
        for o in folio_run.outcomes
        if o.status is Status.NEEDS_REVIEW and len(o.premises) >= 3 and o.original_premises_fol
    ]
    target = max(candidates, key=lambda o: natural_key(o.id))
    anchor = anchors(o.id for o in folio_run.outcomes)[target.id]
    section = page.locator(f'section.item[data-id="{target.id}"]')
    expect(section).not_to_be_in_viewport()

    page.locator("#outcomes-table").get_by_role("link", name=target.id, exact=True).click()

    assert page.url.endswith(f"#{anchor}")
    expect(section.locator("h3")).to_be_in_viewport()
    first = section.locator("tr.formula").first
    expect(first.locator("td.nl")).to_have_text(target.premises[0])
    expect(first.locator("td.nl")).to_be_in_viewport()
    expect(first.locator("code.original")).to_have_text(target.original_premises_fol[0])
    expect(first.locator("code.original")).to_be_in_viewport()
    conclusion = section.locator('tr.formula[data-where="conclusion"]')
    expect(conclusion.locator("td.nl")).to_have_text(target.conclusion)
    expect(conclusion.locator("code.original")).to_have_text(target.original_conclusion_fol)


def test_every_item_in_review_is_on_the_page(page: Any, folio_run: FolioRun) -> None:
    texts: dict[str, str] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("section.item")]
            .map(s => [s.dataset.id, s.textContent]))"""
    )
    queue_links = set(_column(page, "queue-table", "item"))
    review = [o for o in folio_run.outcomes if o.status is Status.NEEDS_REVIEW]
    queued = [o for o in folio_run.outcomes if o.queued]
    assert review and len(queued) >= len(review)
    assert len(texts) == len(folio_run.outcomes)
    assert queue_links == {o.id for o in queued}
    for o in queued:
        text = texts[o.id]
        for sentence in (*o.premises, o.conclusion):
            assert " ".join(sentence.split()) in " ".join(text.split()), (o.id, sentence)
        for fol in (*o.original_premises_fol, o.original_conclusion_fol):
            assert fol in text, (o.id, fol)
        assert o.reason.value in text
    heading = page.locator("#review-queue h2")
    assert heading.text_content() == f"Review queue ({len(queued)} items)"


def test_a_header_click_sorts_the_rows(page: Any, folio_run: FolioRun) -> None:
    from playwright.sync_api import expect

    header = page.locator("#outcomes-table thead th", has_text="label score")
    header.click()
    expect(header).to_have_attribute("aria-sort", "ascending")
    scores = [float(s) for s in _column(page, "outcomes-table", "label score")]
    assert scores == sorted(scores) and scores[0] < scores[-1]
    header.click()
    expect(header).to_have_attribute("aria-sort", "descending")
    scores = [float(s) for s in _column(page, "outcomes-table", "label score")]
    assert scores == sorted(scores, reverse=True)

    # ids sort as numbers: ".../9" before ".../10", and the other way on a second click
    item = page.locator("#outcomes-table thead th", has_text="item").first
    item.click()
    ids = _column(page, "outcomes-table", "item")
    assert ids == sorted((o.id for o in folio_run.outcomes), key=natural_key)
    item.click()
    assert _column(page, "outcomes-table", "item") == ids[::-1]
    expect(header).not_to_have_attribute("aria-sort", "descending")


def test_the_filter_box_hides_rows_without_its_words(page: Any, folio_run: FolioRun) -> None:
    from playwright.sync_api import expect

    total = len(folio_run.outcomes)
    shown = page.locator('.shown[data-for="outcomes-table"]')
    expect(shown).to_have_text(f"{total} of {total} rows")
    box = page.locator('input.filter[data-for="outcomes-table"]')

    box.fill("label_mismatch")
    wanted = {o.id for o in folio_run.outcomes if o.reason is Reason.LABEL_MISMATCH}
    assert wanted
    assert set(_column(page, "outcomes-table", "item")) == wanted
    expect(shown).to_have_text(f"{len(wanted)} of {total} rows")
    hidden = next(o.id for o in folio_run.outcomes if o.id not in wanted)
    link = page.locator("#outcomes-table").get_by_role("link", name=hidden, exact=True)
    expect(link).to_be_hidden()

    # every word must be in the row, in any column
    box.fill("repaired  UNBALANCED_parentheses")
    both = {
        o.id
        for o in folio_run.outcomes
        if o.status is Status.REPAIRED and "unbalanced_parentheses" in o.error_classes
    }
    assert both and set(_column(page, "outcomes-table", "item")) == both

    box.fill("")
    assert len(_column(page, "outcomes-table", "item")) == total


def test_a_report_of_many_items_opens_folded_and_pages_its_tables(
    browser: Any, tmp_path: Path
) -> None:
    """1,200 items, as a full FOLIO split: tables show 250 rows at a time, items are folded."""
    import time

    from playwright.sync_api import expect

    from refinery.report import write_report

    from fakes import queue_outcome

    outcomes = [queue_outcome(i) for i in range(1200)]
    paths = write_report(tmp_path, outcomes=outcomes, edits=[], validations={}, meta={})
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    started = time.perf_counter()
    page.goto(paths["html"].as_uri())
    size = paths["html"].stat().st_size
    print(
        f"report of 1200 items ({size / 1e6:.1f} MB): loaded in {time.perf_counter() - started:.2f} s"
    )

    pager = page.locator("#outcomes p.pager")
    expect(pager).to_have_text("rows 1–250 of 1200 next ›")
    on_page = "t => [...t.tBodies[0].rows].filter(r => r.offsetParent !== null).length"
    assert page.locator("#outcomes-table").evaluate(on_page) == 250
    pager.get_by_role("button", name="next ›").click()
    expect(pager).to_contain_text("rows 251–500 of 1200")
    # the filter searches every row, then pages what it keeps
    page.fill('input.filter[data-for="outcomes-table"]', "validation/1199")
    expect(pager).to_have_text("rows 1–1 of 1 ")
    link = page.locator("#outcomes-table").get_by_role("link", name="folio-v2/validation/1199")
    # every item is folded until a link leads to it
    assert page.locator("details.body[open]").count() == 0
    link.click()
    section = page.locator('section.item[data-id="folio-v2/validation/1199"]')
    expect(section.locator("details.body")).to_have_attribute("open", "")
    expect(section.locator("td.nl").first).to_be_in_viewport()
    # no table is wider than the page
    overflow = page.evaluate("() => document.documentElement.scrollWidth > innerWidth + 1")
    assert overflow is False
    context.close()
    # the rows past the first page start hidden in the file itself: the browser does not lay
    # out 1,200 rows while it reads the page (10,000 items took 10 s to open before)
    bare = browser.new_context(viewport={"width": 1000, "height": 900}, java_script_enabled=False)
    page = bare.new_page()
    page.goto(paths["html"].as_uri())
    for table in ("outcomes-table", "queue-table", "label-table"):
        assert page.locator(f"#{table}").evaluate(on_page) == 250
    bare.close()


def test_every_countermodel_is_a_table_that_says_what_its_line_says(
    browser: Any, folio_run: FolioRun
) -> None:
    """Real FOLIO v2 countermodels at 1,000 px: one set of tables per evidence line, each cell
    the line's own truth value, every item opened at once without a sideways scroll bar."""
    from refinery.prove.model_table import read

    expected: dict[str, list[list[str]]] = {}
    for o in folio_run.outcomes:
        tables = [t for t in map(read, o.evidence.splitlines()) if t is not None]
        if tables:
            # each model's one-place rows (the predicate, a cell per element), then each grid's
            # rows (the first argument, a cell per second argument)
            expected[o.id] = [
                [
                    *(c for r in t.unary for c in (r.name, *r.cells)),
                    *(
                        c
                        for g in t.binary
                        for e, row in zip(t.elements, g.cells, strict=True)
                        for c in (e, *row)
                    ),
                ]
                for t in tables
            ]
    assert len(expected) >= 10, "FOLIO v2 validation has countermodels to show"
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(folio_run.report.as_uri())
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    shown = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('section.item')]
            .filter(s => s.querySelector('ul.evidence table.model'))
            .map(s => [s.dataset.id, [...s.querySelectorAll('ul.evidence div.model')].map(m =>
                [...m.querySelectorAll('tr.unary > *, table.grid tbody tr > *')].map(c => c.textContent.trim()))]))"""
    )
    assert shown == expected
    overflow = page.evaluate("() => document.documentElement.scrollWidth > innerWidth + 1")
    assert overflow is False
    context.close()
