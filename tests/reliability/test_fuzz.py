"""Fuzzing the whole path: hostile JSONL files through load, lint, check and repair.

Each example is a file of a few lines: FOLIO rows whose formulas are nested, garbled or plain
random text, whose labels and ids are of the wrong type or absurd, and lines that are no row at
all (random text, deep arrays, JSON of the wrong shape). Whatever the file, no exception
escapes: every line is an item or a load error naming its line, every item gets a check row
with a category and an outcome with a status, and a file with no item is one clear error.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from refinery.check import CATEGORIES, check_items
from refinery.datasets import load_any
from refinery.errors import DataError
from refinery.logic.lint import lint
from refinery.logic.parse import Parsed, try_parse
from refinery.outcomes import Status
from refinery.prove.verdict import Budget
from refinery.repair import RepairConfig
from refinery.repair.batches import repair_items
from vampire.registry import build_provers

BUDGET = Budget(seconds=0.5, rlimit=200_000)  # small: the point is the path, not the proofs
_OPENERS = ["¬", "∀x ", "∃y ", "(", "P(x) → ", "f(", "Q(a) ∧ ", "R(a) ⊕ "]


@st.composite
def nested(draw: st.DrawFn) -> str:
    """Nesting of every kind, well formed or not, past the parser's depth limit at times."""
    ops = draw(st.lists(st.sampled_from(_OPENERS), max_size=160))
    closers = "".join(")" for op in reversed(ops) if op.endswith("("))
    cut = draw(st.integers(0, len(closers)))  # dropping some leaves parentheses unbalanced
    inner = "g(a" if ops and ops[-1] == "f(" else "P(x)"
    return "".join(ops) + inner + closers[cut:]


formula_texts = st.one_of(
    nested(),
    st.text(alphabet="∀∃¬∧∨→↔⊕()xyabPQR, =~&|!", max_size=40),
    st.text(max_size=30),  # anything at all, control characters and surrogates included
    st.just("∀x (Dog(x) → Bark(x))"),
)
labels = st.sampled_from(["True", "False", "Uncertain"])
odd_values = st.one_of(
    st.none(), st.integers(), st.floats(), st.booleans(), st.lists(st.integers(), max_size=3)
)


@st.composite
def mostly(
    draw: st.DrawFn, usual: st.SearchStrategy[object], odd: st.SearchStrategy[object]
) -> object:
    """`usual` seven times in eight: a file of hostile rows only would stop at the loader."""
    return draw(odd if draw(st.integers(0, 7)) == 0 else usual)


@st.composite
def folio_rows(draw: st.DrawFn) -> str:
    premises = draw(st.lists(formula_texts, min_size=1, max_size=3))
    sentences = "\n".join(f"Sentence {i}." for i in range(len(premises)))
    row = {
        "story_id": draw(mostly(st.integers(0, 3), st.text(max_size=5))),
        "premises": draw(mostly(st.just(sentences), st.text(max_size=40))),
        "premises-FOL": "\n".join(premises),
        "conclusion": draw(mostly(st.just("Rex barks."), st.text(max_size=20))),
        "conclusion-FOL": draw(mostly(formula_texts, odd_values)),
        "label": draw(mostly(labels, odd_values)),
        "example_id": draw(mostly(st.integers(), st.integers(10**300, 10**301) | st.text())),
    }
    if draw(st.integers(0, 9)) == 0:  # a field missing
        row.pop(draw(st.sampled_from(sorted(row))))
    return json.dumps(row, ensure_ascii=draw(st.booleans()))


garbage_lines = st.one_of(
    st.text(max_size=40).map(lambda t: t.replace("\n", " ").replace("\r", " ")),
    st.integers(1, 200_000).map(lambda n: "[" * n + "]" * n),
    st.sampled_from(["{}", "null", "[1, 2]", '"row"', "{", '{"premises": 3}']),
)
files = st.lists(st.one_of(folio_rows(), folio_rows(), garbage_lines), min_size=1, max_size=6)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(lines=files)
def test_no_hostile_file_escapes_load_lint_check_and_repair(
    lines: list[str], tmp_path: Path
) -> None:
    source = tmp_path / "hostile.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    try:
        loaded = load_any(source)
    except DataError as exc:  # no item at all: one error naming the file
        assert str(source) in str(exc)
        event("no item")
        return
    event(f"{len(loaded.items)} items, {len(loaded.errors)} load errors")
    rows_in_file = sum(1 for line in lines if line.strip())
    assert loaded.items, "a source without items must raise DataError"
    assert len(loaded.items) + len(loaded.errors) <= rows_in_file
    for error in loaded.errors:
        assert 1 <= error.line <= len(lines) and error.reason

    for item in loaded.items:
        fields = [*item.premises_fol, item.conclusion_fol or ""]
        parsed = [
            (f"f{i}", r.formula)
            for i, t in enumerate(fields)
            if isinstance(r := try_parse(t), Parsed)
        ]
        lint(parsed)  # must not raise, whatever parsed

    rows = check_items(
        loaded.items, prover_factory=build_provers, prover_names=["z3"], budget=BUDGET
    )
    assert [r.id for r in rows] == [it.id for it in loaded.items]
    assert all(r.category in CATEGORIES for r in rows)

    outcomes = repair_items(
        loaded.items,
        rows,
        prover_factory=build_provers,
        prover_names=["z3"],
        budget=BUDGET,
        config=RepairConfig(agents=("rules",), item_seconds=5),
    )
    assert [o.id for o in outcomes] == [it.id for it in loaded.items]
    assert all(isinstance(o.status, Status) for o in outcomes)
