"""Parser: precedence, scope, notation variants, syntax errors, and robustness on fuzz."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refinery.logic.errors import FolSyntaxError, SyntaxProblem
from refinery.logic.parse import Parsed, parse, parse_formula, try_parse
from refinery.logic.printer import to_text
from refinery.logic.syntax import (
    And,
    Const,
    Eq,
    Exists,
    Forall,
    Func,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Var,
    Xor,
)

P = lambda *a: Pred("P", tuple(Const(x) for x in a))  # noqa: E731
A, B, C, D = (Pred(n, ()) for n in "ABCD")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("¬A ∧ B", And((Not(A), B))),  # ¬ binds tightest
        ("A ∧ B ∨ C", Or((And((A, B)), C))),  # ∧ over ∨
        ("A ∨ B ∧ C", Or((A, And((B, C))))),
        ("A ∨ B ⊕ C", Xor(Or((A, B)), C)),  # ∨ and ⊕ share a level, left-associative
        ("A ⊕ B ∨ C", Or((Xor(A, B), C))),
        ("A ⊕ B ⊕ C", Xor(Xor(A, B), C)),
        ("A ∧ B → C", Implies(And((A, B)), C)),  # ∧/∨ over →
        ("A → B → C", Implies(A, Implies(B, C))),  # → is right-associative
        ("A → B ↔ C", Iff(Implies(A, B), C)),  # → over ↔
        ("A ↔ B ↔ C", Iff(Iff(A, B), C)),
        ("A ∨ B ∨ C", Or((A, B, C))),  # one flat chain
        ("(A ∨ B) ∨ C", Or((Or((A, B)), C))),  # parentheses keep their shape
        ("A ∧ (B ∧ C)", And((A, And((B, C))))),
    ],
)
def test_precedence(text: str, expected: object) -> None:
    assert parse(text) == expected


def test_quantifier_body_extends_as_far_right_as_possible() -> None:
    x = Var("x")
    body = And((Pred("P", (x,)), Pred("Q", (x,))))
    assert parse("∀x P(x) ∧ Q(x)") == Forall("x", body)
    assert parse("A ∧ ∃x P(x) ∧ Q(x)") == And((A, Exists("x", body)))
    assert parse("¬∃x P(x) ∧ Q(x)") == Not(Exists("x", body))
    # parentheses end the scope: the trailing Q(x) is then a constant named x
    assert parse("(∀x P(x)) ∧ Q(x)") == And(
        (Forall("x", Pred("P", (x,))), Pred("Q", (Const("x"),)))
    )


def test_scope_resolution_and_shadowing() -> None:
    f = parse("∀x (P(x) → ∃x Q(x, a))")
    assert f == Forall(
        "x", Implies(Pred("P", (Var("x"),)), Exists("x", Pred("Q", (Var("x"), Const("a")))))
    )
    assert parse("P(x)") == Pred("P", (Const("x"),))  # unbound: a constant, flagged by lint


@pytest.mark.parametrize(
    ("text", "fol"),
    [
        # real FOLIO v2 formulas (validation/train), parsed as the annotators wrote them
        (
            "∀x (InThisClub(x) ∧ PerformOftenIn(x, schoolTalentShow) → Attend(x, schoolEvent) ∧ VeryEngagedWith(x, schoolEvent))",
            Forall(
                "x",
                Implies(
                    And(
                        (
                            Pred("InThisClub", (Var("x"),)),
                            Pred("PerformOftenIn", (Var("x"), Const("schoolTalentShow"))),
                        )
                    ),
                    And(
                        (
                            Pred("Attend", (Var("x"), Const("schoolEvent"))),
                            Pred("VeryEngagedWith", (Var("x"), Const("schoolEvent"))),
                        )
                    ),
                ),
            ),
        ),
        (
            "∀x (Orchestra(x) → (∃y Conductor(y) ∧ Lead(y, x)))",
            Forall(
                "x",
                Implies(
                    Pred("Orchestra", (Var("x"),)),
                    Exists(
                        "y",
                        And((Pred("Conductor", (Var("y"),)), Pred("Lead", (Var("y"), Var("x"))))),
                    ),
                ),
            ),
        ),
        (
            "∃x∃y (Car(x) ∧ Car(y) ∧ (x≠y) ∧ Owns(adam, x))",
            Exists(
                "x",
                Exists(
                    "y",
                    And(
                        (
                            Pred("Car", (Var("x"),)),
                            Pred("Car", (Var("y"),)),
                            Not(Eq(Var("x"), Var("y"))),
                            Pred("Owns", (Const("adam"), Var("x"))),
                        )
                    ),
                ),
            ),
        ),
        (
            "(Planet(pSOJ318.5-22) ∧ Orphan(pSOJ318.5-22)) ∨ ¬SunAs(pSOJ318.5-22, star)",
            Or(
                (
                    And(
                        (
                            Pred("Planet", (Const("pSOJ318.5-22"),)),
                            Pred("Orphan", (Const("pSOJ318.5-22"),)),
                        )
                    ),
                    Not(Pred("SunAs", (Const("pSOJ318.5-22"), Const("star")))),
                )
            ),
        ),
        (
            "Fruit(avocado) ∧ (SoldAt(avocado, localFarmersMarket) ∨ SoldAt(avocado, nica'sMarket))",
            And(
                (
                    Pred("Fruit", (Const("avocado"),)),
                    Or(
                        (
                            Pred("SoldAt", (Const("avocado"), Const("localFarmersMarket"))),
                            Pred("SoldAt", (Const("avocado"), Const("nica'sMarket"))),
                        )
                    ),
                )
            ),
        ),
        (
            "∀x ((Bag(x) ∧ Birkin(x)) → Hermès(x))",
            Forall(
                "x",
                Implies(
                    And((Pred("Bag", (Var("x"),)), Pred("Birkin", (Var("x"),)))),
                    Pred("Hermès", (Var("x"),)),
                ),
            ),
        ),
        (
            "¬(Dependent(rina) ∧ Student(rina)) → (Dependent(rina) ∧ Student(rina)) ⊕ ¬(Dependent(rina) ∨ Student(rina))",
            Implies(
                Not(And((Pred("Dependent", (Const("rina"),)), Pred("Student", (Const("rina"),))))),
                Xor(
                    And((Pred("Dependent", (Const("rina"),)), Pred("Student", (Const("rina"),)))),
                    Not(
                        Or((Pred("Dependent", (Const("rina"),)), Pred("Student", (Const("rina"),))))
                    ),
                ),
            ),
        ),
    ],
)
def test_real_folio_formulas(text: str, fol: object) -> None:
    assert parse(text) == fol


@pytest.mark.parametrize(
    ("variant", "canonical", "note"),
    [
        ("∀x ∀y (G(x) ∧ F(x, y) ⟷ B(y))", "∀x ∀y (G(x) ∧ F(x, y) ↔ B(y))", "'⟷' → '↔'"),
        ("(R(a) ∧ S(a)) —> V(a)", "(R(a) ∧ S(a)) → V(a)", "'—>' → '→'"),
        (
            "forall x (P(x) -> Q(x) & ~R(x) | S(x))",
            "∀x (P(x) → Q(x) ∧ ¬R(x) ∨ S(x))",
            "'forall' → '∀'",
        ),
        ("GraduateStudent(joe) ^ Student(joe)", "GraduateStudent(joe) ∧ Student(joe)", "'^' → '∧'"),
        ("LanguageModel(gpt-3).", "LanguageModel(gpt-3)", "trailing '.' removed"),
        ("a != b", "a ≠ b", "'!=' → '≠'"),
        ("A <-> B", "A ↔ B", "'<->' → '↔'"),
    ],
)
def test_notation_variants_are_normalised_and_recorded(
    variant: str, canonical: str, note: str
) -> None:
    parsed = parse_formula(variant)
    assert parsed.formula == parse(canonical)
    assert any(note in n for n in parsed.notation), parsed.notation
    assert parse_formula(canonical).notation == ()


def test_function_terms() -> None:
    assert parse("Likes(x, mother(y))") == Pred(
        "Likes", (Const("x"), Func("mother", (Const("y"),)))
    )


@pytest.mark.parametrize(
    ("text", "column", "token", "expected", "kind"),
    [
        ("∀x (P(x) ∧ Q(x ∧ R(x)))", 16, "∧", ("'('", "')'", "','"), "unexpected_token"),
        ("P(a) ∧", 7, "end of formula", None, "unexpected_end"),
        ("∀x (P(x) → Q(x)", 16, "end of formula", ("')'",), "unbalanced_parentheses"),
        ("P(a)) ∧ Q(b)", 5, ")", None, "unbalanced_parentheses"),
        ("Salinity(x, <0.5%)", 13, "<", None, "unknown_symbol"),
        ("", 1, "end of formula", (), "empty"),
    ],
)
def test_syntax_errors_point_at_the_problem(
    text: str, column: int, token: str, expected: tuple[str, ...] | None, kind: str
) -> None:
    result = try_parse(text, field="premises[6]")
    assert isinstance(result, SyntaxProblem)
    assert (result.field, result.column, result.token, result.kind) == (
        "premises[6]",
        column,
        token,
        kind,
    )
    if expected is not None:
        assert result.expected == expected
    rendered = result.render()
    assert rendered.startswith(f"premises[6]:1:{column}: ")
    source_line, caret_line = rendered.splitlines()[1:]
    assert source_line == "  " + text
    assert caret_line == " " * (column + 1) + "^"  # two-space indent, caret under the column


def test_parse_formula_raises_with_the_rendered_message() -> None:
    with pytest.raises(FolSyntaxError, match=r"conclusion:1:3: unexpected ','") as info:
        parse_formula("P(,a)", field="conclusion")
    assert isinstance(info.value, ValueError)  # also a builtin ValueError
    assert info.value.problem.caret().endswith("  ^")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="∀∃¬∧∨→↔⊕()=≠,. xyPQab-'\"&|~!<>^—⟷\n", max_size=40))
def test_fuzzed_text_never_raises_anything_but_a_result(text: str) -> None:
    result = try_parse(text)
    assert isinstance(result, Parsed | SyntaxProblem)
    if isinstance(result, SyntaxProblem):
        assert result.render()  # renders without error
    else:
        assert parse(to_text(result.formula)) == result.formula


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_unicode_never_escapes_as_an_exception(text: str) -> None:
    assert isinstance(try_parse(text), Parsed | SyntaxProblem)
