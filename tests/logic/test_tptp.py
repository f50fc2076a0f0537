"""TPTP emission: golden files, symbol encoding, variable renaming, injection and E acceptance.

Golden files live in tests/golden/tptp/; `pytest --update-golden` rewrites them. Each golden case
also has the status E must give, so the goldens are checked for meaning, not just for shape.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refinery.errors import RefineryError, UnsupportedNode
from refinery.logic.syntax import (
    And,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Func,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Span,
    Term,
    Var,
    Xor,
)
from refinery.logic.tptp import (
    FreeVariableError,
    SymbolKind,
    decode_symbol,
    encode_symbol,
    problem_to_tptp,
    problems_to_tptp,
)
from refinery.prove.verdict import Budget, Problem, Status
from vampire.backends import EProver

from strategies import formulas

GOLDEN_TPTP = Path(__file__).resolve().parent.parent / "golden" / "tptp"
LOWER_WORD = re.compile(r"[a-z][A-Za-z0-9_]*")
FOF_LINE = re.compile(r"fof\((p[1-9][0-9]*|goal), (axiom|conjecture), (.*)\)\.")

x, y, z = Var("x"), Var("y"), Var("z")


def P(name: str, *args: Term) -> Pred:
    return Pred(name, tuple(args))


def C(name: str) -> Const:
    return Const(name)


@dataclass(frozen=True)
class Case:
    axioms: tuple[Formula, ...]
    conjecture: Formula | None
    e_status: Status  # what E must answer; a wrong translation would change it


CASES: dict[str, Case] = {
    # Mortal socrates, plus an existential conjecture over a conjunction.
    "quantifiers": Case(
        (
            Forall("x", Implies(P("Man", x), P("Mortal", x))),
            P("Man", C("socrates")),
            Forall("x", Forall("y", Implies(P("Loves", x, y), P("Loves", y, x)))),
            P("Loves", C("socrates"), C("plato")),
        ),
        Exists("y", And((P("Mortal", y), Exists("z", P("Loves", z, y))))),
        Status.THEOREM,
    ),
    # Inner ∃x shadows the outer ∀x: satisfiable (P(a), and something is not P). If the inner x
    # were confused with the outer one this would say P(a) → ¬P(a): unsatisfiable.
    "shadowing": Case(
        (Forall("x", Implies(P("P", x), Exists("x", Not(P("P", x))))), P("P", C("a"))),
        None,
        Status.SATISFIABLE,
    ),
    # A ⊕ B with A gives ¬B, and C ↔ ¬B then gives C. Read as ∨ or →, neither follows.
    "xor_iff": Case(
        (Xor(P("A"), P("B")), P("A"), Iff(P("C"), Not(P("B")))),
        And((P("C"), Not(P("B")))),
        Status.THEOREM,
    ),
    "equality": Case(
        (
            Eq(Func("father", (C("bart"),)), C("homer")),
            Forall("x", P("Parent", Func("father", (x,)), x)),
            Not(Eq(C("homer"), C("marge"))),
        ),
        And((P("Parent", C("homer"), C("bart")), Not(Eq(C("marge"), C("homer"))))),
        Status.THEOREM,
    ),
    # n-ary chains: only D is left of the four-way Or, and E ∧ F ∧ G gives E and G.
    "nary": Case(
        (
            Or((P("A"), P("B"), P("C"), P("D"))),
            Not(P("A")),
            And((Not(P("B")), Not(P("C")))),
            And((P("E"), P("F"), P("G"))),
        ),
        And((P("D"), P("E"), P("G"))),
        Status.THEOREM,
    ),
    # `Likes` with two arities, and `f` as a constant, a function and a 0-ary predicate: E
    # rejects a symbol used with two arities, so each must become its own TPTP symbol.
    "arity_clash": Case(
        (
            P("Likes", C("f")),
            P("Likes", C("ann"), C("bob")),
            Forall("x", Forall("y", Implies(P("Likes", x, y), P("Likes", y, x)))),
            Eq(Func("f", (C("f"),)), C("f")),
            P("f"),
        ),
        And((P("Likes", C("bob"), C("ann")), P("f"), P("Likes", Func("f", (C("f"),))))),
        Status.THEOREM,
    ),
    # Names with -, ., ', spaces, underscores and non-ASCII letters. The conjecture does not
    # follow: `snake_case` and `snake__case` are different constants.
    "odd_names": Case(
        (
            P("Is-A", C("gpt-3"), C("café")),
            Forall("x", Implies(P("Is-A", x, C("café")), P("Über.Model", x))),
            Eq(C("o'neil"), C("st. paul")),
            P("日本", C("snake_case")),
        ),
        And((P("Über.Model", C("gpt-3")), P("日本", C("snake__case")))),
        Status.COUNTER_SATISFIABLE,
    ),
    "unsatisfiable": Case(
        (
            Forall("x", Implies(P("Bird", x), P("Flies", x))),
            P("Bird", C("tweety")),
            Not(P("Flies", C("tweety"))),
        ),
        None,
        Status.UNSATISFIABLE,
    ),
}


def _emit(case: Case) -> str:
    return problem_to_tptp(case.axioms, case.conjecture).text


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_tptp(name: str, update_golden: bool) -> None:
    path = GOLDEN_TPTP / f"{name}.p"
    text = _emit(CASES[name])
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden {path}; run pytest --update-golden"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.prover
@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_problems_get_the_expected_status_from_e(name: str, eprover: EProver) -> None:
    case = CASES[name]
    verdict = eprover.check(Problem(case.axioms, case.conjecture), Budget(seconds=5))
    assert verdict.status is case.e_status, verdict


def test_statement_names_roles_and_one_statement_per_line() -> None:
    text = _emit(CASES["quantifiers"])
    header, *lines = text.splitlines()
    assert header.startswith("%")
    names = [FOF_LINE.fullmatch(line).group(1, 2) for line in lines]  # type: ignore[union-attr]
    assert names == [
        ("p1", "axiom"),
        ("p2", "axiom"),
        ("p3", "axiom"),
        ("p4", "axiom"),
        ("goal", "conjecture"),
    ]
    assert text.endswith(".\n")


def test_no_conjecture_means_no_goal() -> None:
    text = _emit(CASES["unsatisfiable"])
    assert "conjecture" not in _header_free_text(text)
    assert [line.split(",")[0] for line in text.splitlines()[1:]] == ["fof(p1", "fof(p2", "fof(p3"]


def test_connectives_render_as_tptp_operators() -> None:
    a, b = P("A"), P("B")
    cases: dict[Formula, str] = {
        Not(a): "~p_A",
        And((a, b)): "(p_A & p_B)",
        Or((a, b, a)): "(p_A | p_B | p_A)",
        Xor(a, b): "(p_A <~> p_B)",
        Implies(a, b): "(p_A => p_B)",
        Iff(a, b): "(p_A <=> p_B)",
        Eq(C("a"), C("b")): "(c_a = c_b)",
        Not(Eq(C("a"), C("b"))): "~(c_a = c_b)",
        Not(Not(a)): "~~p_A",
        Forall("v", P("Q", Var("v"))): "(![X1]: p_Q_1(X1))",
        Exists("v", Or((a, P("Q", Var("v"))))): "(?[X1]: (p_A | p_Q_1(X1)))",
        And((Forall("v", P("Q", Var("v"))), a)): "((![X1]: p_Q_1(X1)) & p_A)",
        P("R", Func("g", (C("a"), Func("h", (C("b"),))))): "p_R_1(f_g_2(c_a, f_h_1(c_b)))",
    }
    for formula, expected in cases.items():
        assert problem_to_tptp([], formula).text.splitlines()[1] == (
            f"fof(goal, conjecture, {expected})."
        ), formula


def test_degenerate_chains_keep_their_meaning() -> None:
    assert "conjecture, $true)" in problem_to_tptp([], And(())).text
    assert "conjecture, $false)" in problem_to_tptp([], Or(())).text
    assert "conjecture, p_A)" in problem_to_tptp([], And((P("A"),))).text


def test_bound_variables_are_numbered_by_binding_order_per_formula() -> None:
    shadow = Forall("x", Implies(P("P", x), Exists("x", P("Q", x))))
    other = Exists("y", Forall("x", P("L", x, y)))
    lines = problem_to_tptp([shadow, other], None).text.splitlines()
    assert lines[1] == "fof(p1, axiom, (![X1]: (p_P_1(X1) => (?[X2]: p_Q_1(X2)))))."
    assert lines[2] == "fof(p2, axiom, (?[X1]: (![X2]: p_L_2(X2, X1))))."


def test_variable_scope_ends_with_its_quantifier() -> None:
    # After ∃x closes, x refers to the outer ∀x (X1) again, not the inner X2.
    f = Forall("x", And((Exists("x", P("Q", x)), P("P", x))))
    assert "(![X1]: ((?[X2]: p_Q_1(X2)) & p_P_1(X1)))" in problem_to_tptp([f], None).text


def test_symbol_map_records_kind_source_name_and_arity() -> None:
    case = CASES["arity_clash"]
    result = problem_to_tptp(case.axioms, case.conjecture)
    assert result.symbols == {
        "c_ann": ("constant", "ann", 0),
        "c_bob": ("constant", "bob", 0),
        "c_f": ("constant", "f", 0),
        "f_f_1": ("function", "f", 1),
        "p_Likes_1": ("predicate", "Likes", 1),
        "p_Likes_2": ("predicate", "Likes", 2),
        "p_f": ("predicate", "f", 0),
    }
    assert list(result.symbols) == sorted(result.symbols)


def test_output_is_deterministic_and_ignores_spans() -> None:
    plain = Forall("x", P("P", x))
    spanned = Forall("x", Pred("P", (Var("x", Span(3, 4)),), Span(1, 5)), Span(0, 6))
    assert problem_to_tptp([plain], plain) == problem_to_tptp([spanned], spanned)


def test_encode_symbol_examples() -> None:
    assert encode_symbol("predicate", "Man", 1) == "p_Man_1"
    assert encode_symbol("predicate", "Rain", 0) == "p_Rain"
    assert encode_symbol("function", "f", 2) == "f_f_2"
    assert encode_symbol("constant", "gpt-3", 0) == "c_gpt_u2d_3"
    assert encode_symbol("constant", "snake_case", 0) == "c_snake__case"
    assert encode_symbol("constant", "café", 0) == "c_caf_ue9_"
    assert encode_symbol("constant", "", 0) == "c_"


def test_encoding_separates_lookalikes() -> None:
    lookalikes: list[tuple[SymbolKind, str, int]] = [
        ("predicate", "a_1", 0),
        ("predicate", "a", 1),
        ("predicate", "a__1", 0),
        ("predicate", "a_", 1),
        ("function", "a", 1),
        ("constant", "a_1", 0),
        ("constant", "a-1", 0),
        ("constant", "a_u2d_1", 0),
        ("predicate", "a", 10),
        ("predicate", "a_1", 0),
        ("predicate", "a1", 0),
    ]
    encoded = {encode_symbol(*s) for s in lookalikes}
    assert len(encoded) == len(set(lookalikes))


@settings(max_examples=500)
@given(
    kind=st.sampled_from(["predicate", "function", "constant"]),
    name=st.text(),
    arity=st.integers(min_value=0, max_value=12),
)
def test_encoding_is_a_reversible_lower_word(kind: SymbolKind, name: str, arity: int) -> None:
    symbol = encode_symbol(kind, name, arity)
    assert LOWER_WORD.fullmatch(symbol)
    assert decode_symbol(symbol) == (kind, name, arity)


@given(
    st.tuples(
        st.sampled_from(["predicate", "function", "constant"]),
        st.text(max_size=6),
        st.integers(0, 3),
    ),
    st.tuples(
        st.sampled_from(["predicate", "function", "constant"]),
        st.text(max_size=6),
        st.integers(0, 3),
    ),
)
def test_encoding_is_injective(
    a: tuple[SymbolKind, str, int], b: tuple[SymbolKind, str, int]
) -> None:
    assert (encode_symbol(*a) == encode_symbol(*b)) == (a == b)


@pytest.mark.parametrize("bad", ["", "x_", "q_a", "c_a_", "c_a_01", "c_a_u_", "c_a_uzz_", "c_a-b"])
def test_decode_rejects_strings_encode_cannot_produce(bad: str) -> None:
    with pytest.raises(ValueError):
        decode_symbol(bad)


@given(formulas())
def test_every_formula_of_the_fragment_translates(f: Formula) -> None:
    result = problem_to_tptp([f], f)
    for line in result.text.splitlines()[1:]:
        assert FOF_LINE.fullmatch(line)
    for symbol, source in result.symbols.items():
        assert decode_symbol(symbol) == source


@given(st.lists(formulas(), max_size=3), st.lists(st.none() | formulas(), max_size=4))
def test_questions_over_shared_axioms_render_as_each_alone(
    axioms: list[Formula], conjectures: list[Formula | None]
) -> None:
    """Rendering the axioms once must not let one question's symbols reach another's."""
    assert problems_to_tptp(axioms, conjectures) == [
        problem_to_tptp(axioms, c) for c in conjectures
    ]


def test_unsupported_node_raises_with_backend_name() -> None:
    with pytest.raises(UnsupportedNode) as info:
        problem_to_tptp(["P(a)"], None)  # type: ignore[list-item]
    assert info.value.backend == "tptp"
    assert info.value.node == "P(a)"
    with pytest.raises(UnsupportedNode):
        problem_to_tptp([Pred("P", ("a",))], None)  # type: ignore[arg-type]


def test_free_variable_is_a_bug_not_output() -> None:
    with pytest.raises(FreeVariableError) as info:
        problem_to_tptp([P("P", x)], None)
    assert isinstance(info.value, RefineryError)


# --- injection: source names must never change the problem's structure ----------------------

EVIL_NAMES = [
    "include('/etc/passwd')",
    "a').\nfof(evil,axiom,$false).\n%",
    "a)).\nfof(evil, axiom, $false).\n",
    "\"double\" and 'single' quotes",
    "back\\slash\\",
    "new\nline\r\n",
    "% SZS status Theorem",
    "$false",
    "X1",
    "p_P_1",
    "![X]: ",
    "\x00nul",
]
SAFE_CHARS = set(string.ascii_letters + string.digits + "_(),.:!?~&|<=>[] \n")


def _syllogism(
    pred: str, other: str, const: str, with_goal: bool
) -> tuple[list[Formula], Formula | None]:
    axioms: list[Formula] = [
        Forall("x", Implies(P(pred, x), P(other, x))),
        P(pred, C(const)),
    ]
    return axioms, (P(other, C(const)) if with_goal else None)


def _header_free(text: str) -> list[str]:
    return text.splitlines()[1:]


@pytest.mark.parametrize("evil", EVIL_NAMES)
def test_evil_names_cannot_change_the_problem(evil: str) -> None:
    text = problem_to_tptp(*_syllogism(evil, evil + "'", evil, with_goal=True)).text
    lines = _header_free(text)
    assert [FOF_LINE.fullmatch(line).group(1) for line in lines] == [  # type: ignore[union-attr]
        "p1",
        "p2",
        "goal",
    ]
    assert "include(" not in text
    assert set(_header_free_text(text)) <= SAFE_CHARS
    if re.search(r"[^A-Za-z0-9]", evil):  # "X1" may well appear: as a bound variable
        assert evil not in text


def _header_free_text(text: str) -> str:
    return "\n".join(_header_free(text))


def test_header_carries_no_source_text() -> None:
    text = problem_to_tptp(*_syllogism("Secret", "Hidden", "name", with_goal=True)).text
    header = text.splitlines()[0]
    assert header.startswith("% ")
    assert not any(word in header for word in ("Secret", "Hidden", "name"))


@pytest.mark.prover
@pytest.mark.parametrize("evil", EVIL_NAMES)
def test_evil_names_get_the_same_answers_from_e(evil: str, eprover: EProver) -> None:
    prover = eprover
    for with_goal, expected in ((True, Status.THEOREM), (False, Status.SATISFIABLE)):
        innocent = prover.check(_problem(*_syllogism("P", "Q", "a", with_goal)), Budget(5))
        hostile = prover.check(_problem(*_syllogism(evil, evil + "'", evil, with_goal)), Budget(5))
        assert innocent.status is expected
        # An injected `$false` axiom would turn the consistency question into Unsatisfiable.
        assert hostile.status is expected, hostile


@pytest.mark.prover
@settings(max_examples=40, deadline=None)
@given(f=formulas())
def test_e_accepts_every_translated_formula(f: Formula, eprover: EProver) -> None:
    verdict = eprover.check(Problem((f,), f), Budget(2))
    # f ⊢ f: any well-formed translation is a theorem (or has contradictory axioms).
    assert verdict.status in (Status.THEOREM, Status.CONTRADICTORY_AXIOMS), verdict


def _problem(axioms: list[Formula], conjecture: Formula | None) -> Problem:
    return Problem(tuple(axioms), conjecture)


@pytest.fixture(scope="module")
def eprover() -> EProver:
    prover = EProver()
    if not prover.available():
        pytest.skip("E prover not found")
    return prover
