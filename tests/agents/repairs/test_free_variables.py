"""`close_free_variables` on hand-made findings.

Expected outputs are exact: the order of candidates is part of each rule's contract (the
refiner accepts the first candidate the gate passes).
"""

from __future__ import annotations

import pytest

from refinery.agents.models import ErrorClass
from refinery.agents.repairs import MAX_CANDIDATES, free_variables

from repair_helpers import afters, findings


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        # the formula is about robert, whom the item puts in that slot: name him first
        (
            ["Regret(robert, college)", "Regret(x, college) ∧ Sad(robert)"],
            [
                "Regret(robert, college) ∧ Sad(robert)",
                "∃x (Regret(x, college) ∧ Sad(robert))",
                "∀x (Regret(x, college) ∧ Sad(robert))",
            ],
        ),
        # a rule: ∀ first; the constant from elsewhere last
        (
            ["Dog(x) → Animal(x)", "Dog(rex)", "Animal(rex)"],
            ["∀x (Dog(x) → Animal(x))", "∃x (Dog(x) → Animal(x))", "Dog(rex) → Animal(rex)"],
        ),
        # a conjunction: ∃ first
        (
            ["Pet(x) ∧ Furry(x)", "Pet(rex)"],
            ["∃x (Pet(x) ∧ Furry(x))", "∀x (Pet(x) ∧ Furry(x))", "Pet(rex) ∧ Furry(rex)"],
        ),
        # inside another quantifier's scope: a lost nested ∃ before the group that uses it;
        # then among the leading quantifiers, in alphabetical place, ∃ first for a variable
        # used only in the conclusion's conjunction
        (
            ["∀x (Person(x) → (Knows(x, y) ∧ Friend(y)))", "Person(ann)"],
            [
                "∀x (Person(x) → ∃y (Knows(x, y) ∧ Friend(y)))",
                "∀x ∃y (Person(x) → (Knows(x, y) ∧ Friend(y)))",
                "∀x ∀y (Person(x) → (Knows(x, y) ∧ Friend(y)))",
            ],
        ),
    ],
)
def test_free_variable_candidates_in_order(fol: list[str], expected: list[str]) -> None:
    candidates = free_variables.propose(findings(fol))
    where = "premises[0]" if "x" in fol[0] else "conclusion"
    assert afters(candidates) == [[(where, after)] for after in expected]
    assert all(e.error_class is ErrorClass.FREE_VARIABLE for c in candidates for e in c)


@pytest.mark.parametrize(
    ("text", "sentence", "expected"),
    [
        # a lost leading binder goes back among the leading quantifiers (alphabetically), not
        # before the condition's group, which would scope over the conclusion too
        (
            "∀y ((Rapper(x) ∧ Released(x, y)) → RapAlbum(y))",
            "Rappers release rap albums.",
            "∀x ∀y ((Rapper(x) ∧ Released(x, y)) → RapAlbum(y))",
        ),
        # a twin of an ∃-bound variable ("two distinct cities") is ∃ too
        (
            "∃y ∀z (¬(x=z) ∧ ¬(x=y) ∧ City(x) ∧ City(y) ∧ City(z) → Visit(x) ∧ Visit(y) ∧ ¬Visit(z))",
            "Ann has been to two cities.",
            "∃x ∃y ∀z (¬(x=z) ∧ ¬(x=y) ∧ City(x) ∧ City(y) ∧ City(z) → Visit(x) ∧ Visit(y) ∧ ¬Visit(z))",
        ),
        # a variable used only in a rule's conclusion's conjunction is ∃, in its place
        (
            "∀x (Contractor(x) → Site(y) ∧ Oversee(x, y))",
            "A contractor oversees a site.",
            "∀x ∃y (Contractor(x) → Site(y) ∧ Oversee(x, y))",
        ),
        # FOLIO's "no one": ¬∃x (…)
        (
            "¬(Job(x) ∧ Have(ann, x)) ∧ ¬Work(ann)",
            "Ann has no job and does not work.",
            "¬∃x (Job(x) ∧ Have(ann, x)) ∧ ¬Work(ann)",
        ),
    ],
)
def test_a_lost_binder_goes_back_where_folio_puts_it(
    text: str, sentence: str, expected: str
) -> None:
    f = findings([text, "Q(b)"], nl={"premises[0]": sentence})
    assert afters(free_variables.propose(f))[0] == [("premises[0]", expected)]


@pytest.mark.parametrize(
    ("text", "sentence", "first"),
    [
        # "some" over a rule: ∃x (A → B) is as often a slip as ∀x (A → B) is meant — nothing
        ("Apply(x, visa) → Get(x, visa)", "Some of those who apply for a visa get it.", None),
        # "some" over a conjunction, "all" over a rule: the wording and the shape agree
        ("Day(x) ∧ Bad(x)", "Some days are bad.", "∃x (Day(x) ∧ Bad(x))"),
        ("Dog(x) → Animal(x)", "All dogs are animals.", "∀x (Dog(x) → Animal(x))"),
        # a conditional is universal even when it says "someone"
        ("Angry(x) → Yell(x)", "If someone is angry, they yell.", "∀x (Angry(x) → Yell(x))"),
        # a possibility is existential
        (
            "Occur(virus, x) ∧ Get(x, virus)",
            "When the virus occurs in a being, it may get it.",
            "∃x (Occur(virus, x) ∧ Get(x, virus))",
        ),
    ],
)
def test_the_sentence_says_which_quantifier(text: str, sentence: str, first: str | None) -> None:
    f = findings([text, "Q(b)"], nl={"premises[0]": sentence})
    candidates = afters(free_variables.propose(f))
    assert (candidates[0] if candidates else None) == (
        None if first is None else [("premises[0]", first)]
    )


def test_free_variables_in_two_formulas_are_closed_together_first() -> None:
    candidates = free_variables.propose(
        findings(["Dog(x) → Animal(x)", "Cat(y) → Animal(y)", "Animal(rex)"])
    )
    assert afters(candidates)[0] == [
        ("premises[0]", "∀x (Dog(x) → Animal(x))"),
        ("premises[1]", "∀y (Cat(y) → Animal(y))"),
    ]
    assert len(candidates) == MAX_CANDIDATES


def test_closed_formulas_get_no_candidates() -> None:
    assert free_variables.propose(findings(["∀x (Dog(x) → Animal(x))", "Animal(rex)"])) == []


@pytest.mark.parametrize(
    ("premises", "sentence", "expected"),
    [
        # "he" is Mike: name him, never "someone" or "everyone"
        (
            ["Apply(mike, cpt)", "WantToWorkIn(x, us) → Apply(mike, cpt)"],
            "Mike needs to apply for CPT if he wants to work in the US.",
            [
                ["WantToWorkIn(mike, us) → Apply(mike, cpt)"],
                ["WantToWorkIn(cpt, us) → Apply(mike, cpt)"],
            ],
        ),
        # "Tom" is named by the sentence alone; his constant is elsewhere in the item
        (
            ["Study(tom, us)", "¬Study(x, us) → Enrolled(x)"],
            "If Tom does not study in the US, he is enrolled.",
            [["¬Study(tom, us) → Enrolled(tom)"]],
        ),
        # train 1217: "it" beside a name the same formula uses is that thing, ModelXX first
        (
            [
                "Devices(modelXX) ∧ With(modelXX, logo)",
                "¬With(modelXX, logo) ∧ ¬Control(x, manager)",
            ],
            "ModelXX is not with the company logo, and managers do not control it.",
            [
                ["¬With(modelXX, logo) ∧ ¬Control(modelXX, manager)"],
                ["¬With(modelXX, logo) ∧ ¬Control(logo, manager)"],
            ],
        ),
    ],
)
def test_a_variable_that_stands_for_the_named_individual_becomes_its_constant(
    premises: list[str], sentence: str, expected: list[list[str]]
) -> None:
    f = findings([*premises, "Q(b)"], nl={"premises[1]": sentence})
    candidates = afters(free_variables.propose(f))
    assert [[after for _, after in c] for c in candidates] == expected
    assert not any("∃" in a or "∀" in a for c in candidates for _, a in c)


def test_a_named_individual_is_not_put_where_the_item_never_puts_it() -> None:
    # Oliver plays PlayIn's first argument, the player, never its second, the instrument:
    premises = [
        "PlayIn(peter, piano, concert)",
        "PlayIn(oliver, x, concert) → ¬PlayIn(peter, y, concert)",
    ]
    sentence = "Oliver plays a different musical instrument from Peter in the concert."
    f = findings([*premises, "Q(b)"], nl={"premises[1]": sentence})
    afters_ = [a for c in afters(free_variables.propose(f)) for _, a in c]
    assert not any("PlayIn(peter, oliver" in a or "PlayIn(peter, peter" in a for a in afters_)


def test_a_named_individual_already_in_the_variables_place_is_put_there() -> None:
    # "business analysis" is said too, and only ever WorkIn's second argument; but Leif is
    # WorkIn's first, the variable's own place, so the arguments are not swapped: x is Leif
    premises = [
        "EmployeeIn(leif, town) ∧ WorkIn(leif, softwareEngineering)",
        "¬(GoodAt(leif, math) ∧ WorkIn(leif, businessAnalysis)) → ¬WorkIn(x, softwareEngineering)",
    ]
    sentence = (
        "If Leif is not both good at math and in business analysis, then he is not working "
        "in software engineering."
    )
    f = findings([*premises, "Q(b)"], nl={"premises[1]": sentence})
    assert afters(free_variables.propose(f))[0] == [
        (
            "premises[1]",
            "¬(GoodAt(leif, math) ∧ WorkIn(leif, businessAnalysis)) → "
            "¬WorkIn(leif, softwareEngineering)",
        )
    ]


def test_a_name_the_sentence_writes_in_two_words_is_found() -> None:
    premises = ["Japanese(koeitecmo)", "Lead(x) → HoldingCompany(x)"]
    sentence = "If Hisashi Koinuma leads Koei Tecmo, she makes it a holding company."
    f = findings([*premises, "Q(b)"], nl={"premises[1]": sentence})
    assert afters(free_variables.propose(f))[0] == [
        ("premises[1]", "Lead(koeitecmo) → HoldingCompany(koeitecmo)")
    ]


def test_a_generic_sentence_names_no_one() -> None:
    # "Chile" is named, but the sentence is about people from Catalan: a binder comes first
    f = findings(
        ["Chilean(chile)", "Catalan(x) → ¬Chilean(x)", "Q(b)"],
        nl={"premises[1]": "People from Catalan are not from Chile."},
    )
    assert afters(free_variables.propose(f))[0] == [
        ("premises[1]", "∀x (Catalan(x) → ¬Chilean(x))")
    ]


def test_every_day_says_how_often_not_over_whom() -> None:
    sentence = "If Mike wears the same shirt every day, he is consistent."
    assert free_variables.may_name_an_individual(sentence, "Wear(x, shirt) → Consistent(mike)")
    f = findings(
        ["Old(mike)", "Wear(x, shirt) → Consistent(mike)", "Q(b)"], nl={"premises[1]": sentence}
    )
    assert afters(free_variables.propose(f))[0] == [
        ("premises[1]", "Wear(mike, shirt) → Consistent(mike)")
    ]
    # "every" over people still quantifies
    assert not free_variables.may_name_an_individual(
        "Every friend of Mike wears a shirt.", "Wear(x, shirt) ∧ Friend(x, mike)"
    )


def test_it_with_no_name_in_its_formula_stands_for_a_kind() -> None:
    # "if the fruit …, it …": a binder (beside a name its formula uses, "it" is that thing:
    # see the named-individual cases above)
    f = findings(
        ["Red(apple)", "Red(x) → Sweet(x)", "Q(b)"],
        nl={"premises[1]": "If the fruit is red, it is sweet."},
    )
    assert afters(free_variables.propose(f))[0] == [("premises[1]", "∀x (Red(x) → Sweet(x))")]


def test_a_binder_for_a_name_the_formula_also_binds_is_a_guess() -> None:
    # train 1253: y is free in the antecedent and bound in the consequent: one name, two things
    text = "∀x (Meal(x) ∧ Meal(y) → ∃y (¬(y = x) ∧ Talk(x, y)))"
    f = findings([text, "Meal(ann)", "Q(b)"])
    edits = [e for c in free_variables.propose(f) for e in c]
    assert edits and all(e.guess for e in edits if e.after.count("∀") + e.after.count("∃") > 2)
    # a free name bound nowhere else is no guess on that account
    f = findings(["∀x (Meal(x) → Talk(x, y))", "Meal(ann)", "Q(b)"])
    assert not any(e.guess for c in free_variables.propose(f) for e in c)


def test_a_constant_already_beside_the_variable_is_not_it_in_another_spelling() -> None:
    # validation 561: "It costs below US $300 to take the GRE test": x is the cost, not the
    # GRE, whose name the item also spells `gre`
    premises = ["Cost(gre, fee) ∧ Cheaper(fee, thousand)", "Cost(gRE, x) ∧ Cheaper(x, cap)"]
    sentence = "It costs below the cap to take the GRE test."
    f = findings([*premises, "Q(b)"], nl={"premises[1]": sentence})
    first = afters(free_variables.propose(f))[0]
    assert first == [("premises[1]", "∃x (Cost(gRE, x) ∧ Cheaper(x, cap))")]
