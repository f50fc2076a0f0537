"""The fast reader against lark: the same trees, spans and notes, or no answer at all.

`refinery.logic.descent.read` is trusted only because it agrees with the lark grammar, so every
test here compares the two: on every formula of the public datasets, on generated formulas in
random spellings and spacing, and on token soup (mostly ill-formed), where the reader must never
accept what lark refuses.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refinery.logic import descent
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import _Build, _parser, lark_parse, try_parse
from refinery.logic.printer import to_text
from refinery.logic.syntax import Formula, Span
from tests.strategies import formulas

GRAMMAR = Path(descent.__file__).with_name("grammar.lark")


def _shape(node: Any) -> Any:
    """A node as nested tuples, spans included (`==` on formulas ignores spans)."""
    if isinstance(node, tuple):
        return tuple(_shape(n) for n in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, Span):
        fields = (getattr(node, f.name) for f in dataclasses.fields(node) if f.name != "span")
        return (type(node).__name__, node.span, *(_shape(f) for f in fields))
    return node


def _lark_tree(text: str) -> tuple[Formula, tuple[str, ...]] | None:
    """lark's unbound tree and notes, or None where lark refuses the text."""
    reference = lark_parse(text)
    if isinstance(reference, SyntaxProblem):
        return None
    return _Build().transform(_parser().parse(text)), reference.notation


def _agree(text: str) -> bool:
    """True when the reader reads `text`; fails the test if what it reads differs from lark."""
    fast, slow = descent.read(text), _lark_tree(text)
    if fast is None:
        return False
    assert slow is not None, f"the reader accepted what lark refuses: {text!r}"
    assert _shape(fast[0]) == _shape(slow[0]), text
    assert fast[1] == slow[1], text
    return True


def test_every_formula_of_the_public_datasets_reads_as_lark_reads_it(shared_data: Path) -> None:
    texts: set[str] = set()
    for name in (
        "folio_v2/reconstructed/folio_v2_train.jsonl",
        "folio_v2/reconstructed/folio_v2_validation.jsonl",
        "folio_v0/folio-train.jsonl",
        "folio_v0/folio-validation.jsonl",
    ):
        for line in (shared_data / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            fol = row["premises-FOL"]  # one string of lines (v2) or a list (v0)
            texts.update(fol.split("\n") if isinstance(fol, str) else fol)
            texts.add(row.get("conclusion-FOL", ""))  # FOLIO v0 train has none
    malls = json.loads((shared_data / "malls/MALLS-v0.1-test.json").read_text(encoding="utf-8"))
    texts.update(row["FOL"] for row in malls)
    read = refused = 0
    for text in sorted(texts):
        if _agree(text):
            read += 1
        else:
            refused += 1
            assert _lark_tree(text) is None, f"lark reads it, the fast reader does not: {text!r}"
    # the reader is the path nearly every real formula takes, and the broken ones are left to lark
    assert read > 4000 and refused > 20


SPELLINGS = {
    "¬": ["¬", "~", "!"],
    "∧": ["∧", "&", "&&", "^", "/\\"],
    "∨": ["∨", "|", "||", "\\/"],
    "⊕": ["⊕", "<+>"],
    "→": ["→", "->", "=>", "⇒", "⟶", "—>", "–>", "-->"],
    "↔": ["↔", "<->", "<=>", "⇔", "⟷", "⟺", "≡"],
    "=": ["=", "=="],
    "≠": ["≠", "!="],
    "∀": ["∀", "forall "],
    "∃": ["∃", "exists "],
}
_CANONICAL_OP = re.compile("|".join(map(re.escape, SPELLINGS)))
_SPACES = [" ", "", "  ", "\n", "\t", "\u00a0", "\n  "]


def _respell(text: str, rng: random.Random) -> str:
    """`text` with every operator in a random spelling and random space around the tokens."""
    text = _CANONICAL_OP.sub(lambda m: f" {rng.choice(SPELLINGS[m.group()])} ", text)
    text = re.sub(r"\s+", lambda _: rng.choice(_SPACES) or " ", text)
    text = re.sub(r"([(),])", lambda m: rng.choice(_SPACES) + m.group() + rng.choice(_SPACES), text)
    if rng.random() < 0.3:
        text = f"({text})"
    return text + rng.choice(["", "", ".", " .", "\n"])


@settings(max_examples=400, deadline=None)
@given(formulas(depth=3), st.integers(0, 2**32))
def test_generated_formulas_in_any_spelling_read_as_lark_reads_them(f: Formula, seed: int) -> None:
    text = _respell(to_text(f), random.Random(seed))
    if _lark_tree(text) is not None:  # a respelling can join two tokens ("forall" + name)
        assert _agree(text), f"lark reads it, the fast reader does not: {text!r}"
        assert try_parse(text) == lark_parse(text)


SOUP = [
    "P", "Q(", "R(a)", "x", "a", "gpt-3", '"s"', "(", ")", ",", "∀x", "∃y", "forall", "exists",
    "¬", "~", "!", "∧", "&", "&&", "∨", "|", "⊕", "<+>", "→", "->", "=>", "-->", "↔", "<->",
    "<=>", "=", "==", "!=", "≠", ".", "f(", "()", "\n", "é", "#", "forallx",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(SOUP), min_size=1, max_size=12), st.lists(st.booleans()))
def test_token_soup_is_never_read_where_lark_refuses_it(
    pieces: list[str], gaps: list[bool]
) -> None:
    text = "".join(p + (" " if i < len(gaps) and gaps[i] else "") for i, p in enumerate(pieces))
    _agree(text)  # None is always allowed; an answer must be lark's


@pytest.mark.parametrize(
    ("text", "too_deep"),
    [
        ("(" * 60 + "P(a)" + ")" * 60, False),  # nested deeper than the reader goes
        ("¬" * 45 + "P(a)", False),
        ("P(" * 45 + "a" + ")" * 45, False),
        ("(" * 5000 + "P(a)" + ")" * 5000, False),  # no recursion error on the way to lark
        ("¬" * 150 + "P(a)", True),
    ],
)
def test_deep_nesting_is_left_to_lark_and_its_depth_limit(text: str, too_deep: bool) -> None:
    assert descent.read(text) is None
    result = try_parse(text)
    assert isinstance(result, SyntaxProblem) == too_deep
    assert result == lark_parse(text)


def test_a_long_chain_the_reader_reads_is_still_held_to_the_depth_limit() -> None:
    text = "A ↔ " * 120 + "A"  # no nesting to read, but a left-folded tree 121 deep
    assert descent.read(text) is not None
    result = try_parse(text)
    assert isinstance(result, SyntaxProblem) and result.kind == "too_deep"


def test_the_readers_terminals_are_the_grammars() -> None:
    """A spelling added to the grammar and not to the reader (or the reverse) fails here."""
    ours = {kind: re.compile(pattern) for kind, pattern in descent.SPELLINGS.items()}
    theirs = {t.name: re.compile(t.pattern.to_regexp()) for t in _parser().terminals}
    theirs["WS"] = theirs.pop(next(n for n in theirs if n.startswith("__IGNORE")))
    assert ours.keys() == theirs.keys()
    probes = set(re.findall(r'"([^"]+)"', GRAMMAR.read_text())) | {
        "forall", "exists", "forallx", "a.b", "c++", "x_1", '"q"', " \t", "\u200b", "gpt-3",
    }  # fmt: skip
    probes = {p.replace("\\\\", "\\") for p in probes}
    for kind, pattern in ours.items():
        for probe in probes:
            mine, lark = pattern.match(probe), theirs[kind].match(probe)
            assert (mine and mine.group()) == (lark and lark.group()), (kind, probe)
