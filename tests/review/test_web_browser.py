"""The review page in a real browser: Debian's Chromium, headless, driven by Playwright.

Each test starts the real command (`refinery review serve`, real Z3 and E) on a copy of a queue
and drives the page with the keyboard as an annotator does. Nothing is downloaded: Playwright
launches /usr/bin/chromium (`make test` installs it with apt-get where it can); without it, or
without the playwright package, these tests skip and say why.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import launch

from refinery.review.queue import QueueRow, queue_rows
from refinery.review.record import read_conflicts
from refinery.review.sheet import read_queue, write_queue, write_rows

from fakes import queue_outcome
from review_workflow import (
    FIXED_1,
    ID_203,
    ID_301,
    ID_1201,
    ID_1301,
    NOTE_203,
    NOTE_1201,
    PREMISE_3,
    TYPO_3,
    WHY_203,
    assert_applied_exactly,
    assert_decided,
    copy_sample,
)

REFINERY = Path(sys.executable).with_name("refinery")
WAIT_MS = 60_000  # generous: two cores, provers on every edit; no assertion is about time
SCREENSHOT = os.environ.get("REFINERY_REVIEW_SCREENSHOT", "")

pytestmark = pytest.mark.prover


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch(WAIT_MS)


class Server:
    """`refinery review serve` in a subprocess, on a free port."""

    def __init__(self, queue: Path, reviewer: str) -> None:
        self.proc = subprocess.Popen(
            [str(REFINERY), "review", "serve", "--queue", str(queue), "--port", "0"]
            + ["--provers", "z3,eprover", "--reviewer", reviewer],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # "reviewing … at http://127.0.0.1:PORT/ …"
        if " at http://" not in line:
            self.stop()
            raise AssertionError(f"the server did not start: {line}{self.stderr()}")
        self.url = line.split(" at ", 1)[1].split()[0]

    def stderr(self) -> str:
        return self.proc.stderr.read() if self.proc.stderr and self.proc.poll() is not None else ""

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def serve() -> Iterator[Any]:
    started: list[Server] = []

    def start(queue: Path, reviewer: str = "carol") -> Server:
        started.append(Server(queue, reviewer))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def open_page(browser: Any, url: str, reviewer: str = "") -> Any:
    from playwright.sync_api import expect

    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(WAIT_MS)
    page.problems = []  # every dialog the page tried to open, every script error
    page.on("dialog", lambda d: (page.problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("pageerror", lambda e: page.problems.append(f"error: {e}"))
    page.goto(url)
    if reviewer:
        page.fill("#reviewer", reviewer)
        page.press("#reviewer", "Escape")  # leaves the box (and saves the name)
    expect(page.locator("#verdict")).not_to_have_text("checking…")
    return page


def checked(page: Any) -> str:
    """The verdict once the live check of the current boxes has answered."""
    from playwright.sync_api import expect

    expect(page.locator("#verdict")).not_to_have_text("checking…")
    return str(page.text_content("#verdict"))


def on_item(page: Any, item_id: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#item-id")).to_have_text(item_id)
    checked(page)


def confirm(page: Any, change: str, note: str) -> None:
    """The label-change dialog: it must show `change`; write the note, confirm."""
    from playwright.sync_api import expect

    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#confirm-change")).to_have_text(change)
    page.fill("#confirm-note", note)
    page.press("#confirm-note", "Control+Enter")


def test_an_annotator_session_in_the_browser_then_apply(
    browser: Any, serve: Any, sample_run: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    run, queue = copy_sample(sample_run, tmp_path)
    page = open_page(browser, serve(queue).url)

    # 203: the first open item, with why the provers say False (the queue's, then the live
    # check's); "a" accepts, and the label change is confirmed with a note
    on_item(page, ID_203)
    assert page.locator("#why li").all_text_contents() == [WHY_203]
    expect(page.locator("#evidence")).to_have_text(WHY_203)
    page.keyboard.press("a")
    confirm(page, "True → False", NOTE_203)

    # 301: the boxes start from the original, the proposal shown under it; "p" takes it in,
    # and a typo then shows a caret and cannot be saved
    on_item(page, ID_301)
    boxes = page.locator(".fol-input")
    original = [boxes.nth(i).input_value() for i in (0, 2)]
    assert original != [FIXED_1, PREMISE_3]
    page.keyboard.press("p")
    assert [boxes.nth(i).input_value() for i in (0, 2)] == [FIXED_1, PREMISE_3]
    expect(boxes.nth(2)).to_have_class(re.compile(r"\bbad\b"))  # checked live: a lint problem
    page.keyboard.press("e")  # focuses the first box with a problem: premises[2]
    expect(boxes.nth(2)).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    assert checked(page).startswith("syntax error")
    caret = page.locator('pre.caret[data-index="2"]')
    expect(caret).to_be_visible()
    source, marks = str(caret.text_content()).split("\n")
    assert source == TYPO_3 and marks.index("^") == len(TYPO_3)
    assert "unbalanced parentheses" in marks
    expect(page.locator("#save")).to_be_disabled()
    page.keyboard.press("Escape")
    page.keyboard.press("w")
    expect(page.locator("#message")).to_have_text("not saved: fix the FOL first (marked above)")
    assert read_queue(queue)[1].decision == ""
    # fixed in ASCII: both provers now derive the gold label
    started = time.monotonic()
    boxes.nth(2).fill("MissConnection(passengers) -> Compensated(passengers)")
    assert checked(page) == "both provers: True (eprover=True, z3=True)"
    latency = time.monotonic() - started
    expect(caret).to_be_hidden()
    expect(page.locator("#evidence")).to_contain_text("proves the conclusion: premises[")
    page.keyboard.press("Control+Enter")  # save from the box

    # 1201: the provers say Uncertain; why, as a table of its countermodel (in the queue's
    # evidence and in the live check's); "l" then "u" sets the label; saving asks to confirm
    # True → Uncertain
    on_item(page, ID_1201)
    for where in ("#why", "#evidence"):
        model = page.locator(f"{where} table.model")
        expect(model).to_have_count(1)
        assert model.locator("thead th").all_text_contents() == ["element", "centralAviary"]
        expect(model.locator("tr", has_text="Bird").locator("td")).to_have_text(["✓"])
    page.keyboard.press("l")
    expect(page.locator("#label-dialog")).to_be_visible()
    page.keyboard.press("u")
    expect(page.locator("#label-change")).to_have_text("True → Uncertain")
    assert "your label is Uncertain" not in checked(page)  # the provers say Uncertain too
    page.keyboard.press("w")
    confirm(page, "True → Uncertain", NOTE_1201)

    # reload: every decision is in the file, and the page shows it
    on_item(page, ID_1301)
    page.reload()
    on_item(page, ID_1301)
    expect(page.locator("#progress-text")).to_have_text("3 decided · 1 left")
    page.keyboard.press("b")
    on_item(page, ID_1201)
    expect(page.locator("#decided")).to_contain_text("relabel → Uncertain by carol")
    if SCREENSHOT:
        page.screenshot(path=SCREENSHOT, full_page=True)
    assert page.problems == []
    print(f"live check after an edit: {latency * 1000:.0f} ms")

    assert_decided(queue, "carol")
    final = {r.id: r for r in read_queue(queue)}[ID_301].final_fol
    assert "->" not in final  # ASCII typing is stored in the dataset's symbols
    assert_applied_exactly(run, queue, "carol")


def test_two_annotators_deciding_one_item_differently_is_a_merge_conflict(
    browser: Any, serve: Any, sample_run: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    _, queue = copy_sample(sample_run, tmp_path)
    url = serve(queue).url + "&id=" + ID_1201  # after the ?token= the server printed
    ann, bob = open_page(browser, url, "ann"), open_page(browser, url, "bob")

    ann.keyboard.press("l")
    expect(ann.locator("#label-dialog")).to_be_visible()
    ann.keyboard.press("u")
    expect(ann.locator("#label-change")).to_have_text("True → Uncertain")
    ann.keyboard.press("w")
    confirm(ann, "True → Uncertain", NOTE_1201)
    on_item(ann, ID_1301)

    bob.keyboard.press("s")  # bob still sees the item as open and skips it
    expect(bob.locator("#message")).to_contain_text(
        f"{ID_1201}: ann decided relabel while you were looking; your skip was not written"
    )
    row = {r.id: r for r in read_queue(queue)}[ID_1201]
    assert (row.decision, row.reviewer, row.flag) == ("relabel", "ann", "merge_conflict")
    [conflict] = read_conflicts(queue, ID_1201)
    assert conflict["refused"]["decision"] == "skip" and conflict["refused"]["reviewer"] == "bob"

    # bob reloads: both versions are on the page; deciding again settles it
    bob.reload()
    on_item(bob, ID_1201)
    expect(bob.locator("#conflict")).to_contain_text("not written: skip  by bob")
    expect(bob.locator("#conflict")).to_contain_text("kept relabel Uncertain by ann")
    bob.keyboard.press("k")
    dialog_title = bob.locator("#confirm-title")
    expect(dialog_title).to_have_text("A note is required")  # keep True against the provers
    bob.fill("#confirm-note", "The NL says no bird here flies: kiwi cannot fly, True.")
    bob.press("#confirm-note", "Control+Enter")
    on_item(bob, ID_1301)
    row = {r.id: r for r in read_queue(queue)}[ID_1201]
    assert (row.decision, row.reviewer, row.flag) == ("keep_original", "bob", "")
    assert ann.problems == [] and bob.problems == []


HOSTILE_NL = '"><img src=x onerror="window.__pwned=1">All dogs bark.'
HOSTILE_FOL = "Dog(rex) <script>window.__pwned=2</script>"
HOSTILE_CRITIQUE = "label: </script><script>window.__pwned=3</script><b onmouseover=x>"
FORMULA_CELL = '=HYPERLINK("http://evil.example","click")'


def test_hostile_strings_render_as_text_and_run_nothing(
    browser: Any, serve: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    queue = tmp_path / "hostile.csv"
    hostile = QueueRow.from_cells(
        {
            "id": "folio-v2/validation/1",
            "story_id": "<i>s</i>",
            "reason": 'label_mismatch"><script>window.__pwned=4</script>',
            "nl_premises": f"{HOSTILE_NL}\nRex is a dog.",
            "original_fol": f"∀x (Dog(x) → Bark(x))\n{HOSTILE_FOL}\nBark(rex)",
            "proposed_fol": "∀x (Dog(x) → Bark(x))\nDog(rex)\nBark(rex)",
            "conclusion": FORMULA_CELL,
            "gold_label": "True",
            "prover_labels": "z3=<svg onload=window.__pwned=5>",
            "critique": HOSTILE_CRITIQUE,
            "evidence": HOSTILE_NL,
        }
    )
    write_rows(queue, [hostile])
    assert b"'=HYPERLINK" in queue.read_bytes()  # neutralised in the file ...
    page = open_page(browser, serve(queue).url)
    on_item(page, "folio-v2/validation/1")

    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("img, svg, i, [onerror], [onload], [onmouseover]").count() == 0
    assert page.locator("script").count() == 2  # the JSON data block and review.js
    assert page.locator("td.nl").nth(0).text_content() == HOSTILE_NL
    assert page.locator("td.nl").nth(2).text_content() == FORMULA_CELL  # ... text on the page
    assert page.locator("#critique li").all_text_contents() == [HOSTILE_CRITIQUE]
    assert page.locator("#why li").all_text_contents() == [HOSTILE_NL]
    expect(page.locator(".chip.reason")).to_have_text(hostile.reason)
    # the draft is the (clean) proposal; put the hostile formula back: shown, never run
    box = page.locator(".fol-input").nth(1)
    box.fill(HOSTILE_FOL)
    assert checked(page).startswith("syntax error")
    caret = str(page.locator('pre.caret[data-index="1"]').text_content())
    assert caret.split("\n")[0] == HOSTILE_FOL
    assert page.evaluate("() => window.__pwned") is None
    # a decision whose note starts like a formula is stored neutralised and reads back as typed
    box.fill("Dog(rex)")
    checked(page)
    page.keyboard.press("Escape")
    with page.expect_navigation():  # saved: the only item, so the page comes back to it
        page.keyboard.press("s")
    on_item(page, "folio-v2/validation/1")
    page.keyboard.press("n")
    page.keyboard.type("=1+1 <script>window.__pwned=6</script>")
    page.keyboard.press("Escape")
    with page.expect_navigation():
        page.keyboard.press("s")
    expect(page.locator("#decided")).to_contain_text("skip")
    [row] = read_queue(queue)
    assert row.note == "=1+1 <script>window.__pwned=6</script>"
    assert b"'=1+1 <script>" in queue.read_bytes()
    page.reload()
    on_item(page, "folio-v2/validation/1")
    assert page.evaluate("() => window.__pwned") is None
    assert page.problems == []
    assert page.text_content("#decided-note") == row.note  # shown as text


#: A long premise, as FOLIO writes some: one line, far wider than any window.
LONG_PREMISE = "∀x (" + " ∧ ".join(f"Feature{i}(x)" for i in range(40)) + " → Dog(x))"


_OVERFLOWING = """() => [...document.querySelectorAll(".fol-input")]
    .map((b, i) => [i, b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 2])
    .filter(([, cut]) => cut).map(([i]) => i)"""


def _cut_off(page: Any) -> list[int]:
    """The formula boxes whose text overflows them (hidden on the right or below), once the
    page has laid them out: a busy machine may take a few frames after a resize."""
    from playwright.sync_api import TimeoutError as StillCut

    with contextlib.suppress(StillCut):  # still cut off after the wait: the assert says which
        page.wait_for_function(f"() => ({_OVERFLOWING})().length === 0", timeout=10_000)
    return list(page.evaluate(_OVERFLOWING))


@pytest.mark.parametrize("width", [1000, 1400])
def test_no_formula_is_cut_off_at_any_width(
    browser: Any, serve: Any, tmp_path: Path, width: int
) -> None:
    from playwright.sync_api import expect

    queue = tmp_path / "long.csv"
    row = QueueRow.from_cells(
        {
            "id": "folio-v2/validation/1",
            "reason": "label_mismatch",
            "nl_premises": "Every animal with these forty features is a dog.\nRex is a dog.",
            "original_fol": f"{LONG_PREMISE}\nDog(rex)\nDog(rex)",
            "conclusion": "Rex is a dog.",
            "gold_label": "True",
        }
    )
    write_rows(queue, [row])
    page = open_page(browser, serve(queue).url)
    page.set_viewport_size({"width": width, "height": 900})
    on_item(page, "folio-v2/validation/1")
    boxes = page.locator(".fol-input")
    assert boxes.nth(0).input_value() == LONG_PREMISE  # the whole formula, on several lines
    assert _cut_off(page) == []
    height = boxes.nth(0).evaluate("b => b.clientHeight")
    assert height > 2 * boxes.nth(1).evaluate("b => b.clientHeight")
    # an edit keeps it whole; Enter adds no line break (a formula is one line)
    boxes.nth(1).click()
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type(" ∧ " + " ∧ ".join(f"Bark{i}(rex)" for i in range(30)))
    assert "\n" not in boxes.nth(1).input_value()
    assert _cut_off(page) == []
    # a long formula that does not parse: its caret line scrolls in its cell, and the page
    # stays as wide as the window (27 of FOLIO v2 validation's 64 queued items were wider)
    boxes.nth(1).fill(LONG_PREMISE.removesuffix(")"))
    assert checked(page).startswith("syntax error")
    expect(page.locator('pre.caret[data-index="1"]')).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")
    assert _cut_off(page) == []
    if SCREENSHOT:
        page.screenshot(path=SCREENSHOT.replace(".png", f"-{width}.png"), full_page=True)
    assert page.problems == []


def test_a_premise_fixed_once_goes_to_the_storys_other_open_items(
    browser: Any, serve: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    queue = tmp_path / "story.csv"
    conclusions = {1: ("Bark(rex)", "False"), 2: ("¬Bark(rex)", "True"), 3: ("Bark(rex)", "True")}
    outcomes = [
        queue_outcome(n, story_id="s1", original_conclusion_fol=c, gold_label=g,
                      proposed_premises_fol=None)
        for n, (c, g) in conclusions.items()
    ]  # fmt: skip
    write_queue(queue, queue_rows(outcomes))
    first = outcomes[0].id
    page = open_page(browser, serve(queue).url + "&id=" + first)
    on_item(page, first)
    expect(page.locator("#story-fix")).to_contain_text("the story's 2 other open item(s)")
    box = page.locator(".fol-input").nth(0)
    box.fill("forall x (Dog(x) -> ~Bark(x))")
    checked(page)
    box.press("Escape")
    page.keyboard.press("f")
    expect(page.locator("#message")).to_contain_text(
        "story: 1 saved as edits (folio-v2/validation/2)"
    )
    expect(page.locator("#message")).to_contain_text(
        "1 left as drafts to confirm: folio-v2/validation/3 (final label True contradicts"
    )
    rows = {r.id: r for r in read_queue(queue)}
    assert rows[outcomes[1].id].decision == "edit"
    assert rows[outcomes[2].id].decision == "" and rows[outcomes[2].id].final_fol
    assert rows[first].decision == ""  # this item is saved on its own, with w
    assert page.problems == []


def test_a_saved_decision_shows_in_the_history_and_u_undoes_it(
    browser: Any, serve: Any, sample_run: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    _, queue = copy_sample(sample_run, tmp_path)
    url = serve(queue).url
    page = open_page(browser, url + "&id=" + ID_1301, "ann")
    on_item(page, ID_1301)
    expect(page.locator("#undo")).to_be_disabled()  # nothing saved yet
    page.keyboard.press("s")
    expect(page.locator("#item-id")).not_to_have_text(ID_1301)
    assert {r.id: r.decision for r in read_queue(queue)}[ID_1301] == "skip"

    page.goto(url.split("?")[0] + "?id=" + ID_1301)
    on_item(page, ID_1301)
    expect(page.locator("#history")).to_contain_text("history: 1 saved version(s)")
    page.locator("#history summary").click()
    expect(page.locator("#history li")).to_have_text(re.compile(r": skip by ann$"))
    page.keyboard.press("u")
    expect(page.locator("#history")).to_contain_text("history: 2 saved version(s)")
    assert {r.id: r.decision for r in read_queue(queue)}[ID_1301] == ""
    assert page.problems == []


def test_a_search_walks_only_the_items_that_hold_its_words(
    browser: Any, serve: Any, sample_run: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    _, queue = copy_sample(sample_run, tmp_path)
    page = open_page(browser, serve(queue).url)
    page.fill("#filter-q", "1301")
    page.press("#filter-q", "Enter")
    on_item(page, ID_1301)
    assert "q=1301" in page.url
    expect(page.locator("#filter-q")).to_have_value("1301")
    expect(page.locator("button[data-key=j]")).to_be_disabled()  # the only item found
    page.fill("#filter-q", "no such words anywhere")
    page.press("#filter-q", "Enter")
    expect(page.locator("p.empty")).to_contain_text("Nothing matches these filters (0 items)")
    assert page.problems == []
