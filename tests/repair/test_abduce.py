"""Background knowledge by abduction (`refinery.repair.abduce`), through the cause of an item."""

from __future__ import annotations

import pytest
from blaming import CHECKER, mismatch_cause

from refinery.agents.critique import item_context
from refinery.agents.reading.lexicon import Lexicon
from refinery.logic.parse import parse
from refinery.outcomes import Cause
from refinery.repair.abduce import Candidate, abduce, candidates, fewest
from refinery.repair.blame import Blame

from fakes import make_item

LEXICON = Lexicon.find()
needs_wordnet = pytest.mark.skipif(
    LEXICON is None,
    reason="WordNet not installed (Debian's wordnet-base; `make test` installs it as root)",
)


def _blame(premises: list[tuple[str, str]], conclusion: tuple[str, str], gold: str) -> Blame:
    return mismatch_cause(premises, conclusion, gold, lexicon=LEXICON)


@needs_wordnet
def test_a_bee_is_an_animal_closes_the_proof_as_a_missing_fact() -> None:
    found = _blame(
        [
            ("All animals are mortal.", "∀x (Animal(x) → Mortal(x))"),
            ("Harry is a bee.", "Bee(harry)"),
        ],
        ("Harry is mortal.", "Mortal(harry)"),
        "True",
    )
    assert found.cause is Cause.KNOWLEDGE and not found.clean
    assert found.background is not None
    assert found.background.texts == ("∀x (Bee(x) → Animal(x))",)
    assert "WordNet: bee →" in found.evidence and "prove the gold True" in found.evidence
    assert found.background.calls >= 3  # a countermodel, then Z3, then every prover


def test_a_name_that_holds_another_is_a_kind_of_it_by_its_words() -> None:
    found = _blame(
        [
            ("All cars have wheels.", "∀x (Car(x) → HasWheels(x))"),
            ("Rex is a red car.", "RedCar(rex)"),
        ],
        ("Rex has wheels.", "HasWheels(rex)"),
        "True",
    )
    assert found.background is not None
    assert found.background.texts == ("∀x (RedCar(x) → Car(x))",)
    assert "the words: a red car is a car" in found.evidence


def test_two_names_are_two_things_when_nothing_else_closes_the_proof() -> None:
    found = _blame(
        [("Every winner is Ann.", "∀x (Winner(x) → x = ann)")],
        ("Bob is not a winner.", "¬Winner(bob)"),
        "True",
    )
    assert found.background is not None
    assert found.background.texts == ("ann ≠ bob",)


def test_no_bridge_for_what_no_word_supports_and_the_search_is_still_counted() -> None:
    found = _blame(
        [
            ("All elephants are mammals.", "∀x (Elephant(x) → Mammal(x))"),
            ("Jumbo is an elephant.", "Elephant(jumbo)"),
        ],
        ("Jumbo is sleepy.", "Sleepy(jumbo)"),
        "True",
    )
    # a failure to prove is no evidence against the label; with no fact found, what is left
    # is surmised to be a defect no check names
    assert (found.cause, found.clean, found.surmised) == (Cause.STRUCTURE, False, True)
    assert found.background is not None and found.background.axioms == ()
    assert found.background.calls >= 1


@needs_wordnet
def test_a_superlative_names_at_most_one_thing() -> None:
    found = _blame(
        [
            (
                "The derby was held on the smallest race track.",
                "∃x (SmallestRaceTrack(x) ∧ HeldOn(derby, x))",
            ),
            ("Islip is the smallest race track.", "SmallestRaceTrack(islip)"),
        ],
        ("The derby was held on Islip.", "HeldOn(derby, islip)"),
        "True",
    )
    assert found.cause is Cause.KNOWLEDGE
    assert found.background is not None
    assert found.background.texts == (
        "∀x ∀y (SmallestRaceTrack(x) ∧ SmallestRaceTrack(y) → x = y)",
    )
    assert "a superlative: at most one thing is the smallest race track" in found.evidence


@needs_wordnet
@pytest.mark.parametrize(
    ("word", "base"),
    [("smallest", "small"), ("best", "good"), ("largest", "large"), ("forest", ""),
     ("interest", ""), ("honest", ""), ("x", ""), ("st", "")],
)  # fmt: skip
def test_a_superlative_is_read_by_its_adjective(word: str, base: str) -> None:
    assert LEXICON is not None and LEXICON.superlative(word) == base


@needs_wordnet
def test_no_uniqueness_for_a_name_without_a_superlative() -> None:
    item = make_item(1, ["RaceTrack(islip)", "Forest(f)"], "RaceTrack(f)", "True")
    (row,) = CHECKER.check_story([item])
    texts = [c.text for c in candidates(item_context(item, row), LEXICON)]
    assert not any("=" in t and "∀" in t for t in texts)


def test_only_supported_rules_are_candidates() -> None:
    item = make_item(1, ["Kid(tom)", "Toy(ball)"], "Young(tom)", "True")
    (row,) = CHECKER.check_story([item])
    texts = [c.text for c in candidates(item_context(item, row), None)]
    # no word relates Kid, Toy and Young: only the two names
    assert texts == ["ball ≠ tom"]


def test_a_gold_uncertain_label_is_not_searched() -> None:
    item = make_item(1, ["Bee(harry)"], "Mortal(harry)", "Uncertain")
    (row,) = CHECKER.check_story([item])
    assert abduce(item, item_context(item, row), CHECKER, LEXICON) is None


def test_an_axiom_no_proof_uses_is_dropped_from_the_bridge() -> None:
    # two names, two things was kept from a first countermodel; the words' rule alone proves it
    item = make_item(
        1, ["∀x (Car(x) → HasWheels(x))", "RedCar(rex)", "Bike(tim)"], "HasWheels(rex)", "True"
    )
    (row,) = CHECKER.check_story([item])
    names, rule = "rex ≠ tim", "∀x (RedCar(x) → Car(x))"
    axioms = (Candidate(parse(names), "two names", 2), Candidate(parse(rule), "the words", 0))
    bridge = fewest(item, item_context(item, row), CHECKER, axioms, calls=5)
    assert bridge.texts == (rule,)
    assert (
        bridge.proof
        == "proves the conclusion: premises[0], premises[1], background[0] (eprover, z3)"
    )
    assert bridge.calls == 5 + 3  # the proof, then the smaller bridge confirmed and proved
