"""Background knowledge by abduction (`refinery.repair.abduce`), through the cause of an item."""

from __future__ import annotations

import dataclasses

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


def test_a_comparison_holds_one_way() -> None:
    found = _blame(
        [("Real Madrid ranks higher than Barcelona.", "RankHigherThan(realMadrid, barcelona)")],
        ("Barcelona ranks higher than Real Madrid.", "RankHigherThan(barcelona, realMadrid)"),
        "False",
    )
    assert found.background is not None
    assert found.background.texts == ("∀x ∀y (RankHigherThan(x, y) → ¬RankHigherThan(y, x))",)
    assert "a comparison: 'rank higher than' holds one way" in found.evidence


def test_a_named_thing_is_of_the_kind_the_rules_ask_for() -> None:
    # the rules are about books; the story says of Hamlet what they ask of books
    found = _blame(
        [
            (
                "Tomas has read all books written by Tolkien.",
                "∀x (Book(x) ∧ WrittenBy(x, tolkien) → ReadBy(x, tomas))",
            ),
            ("Hamlet is written by Tolkien.", "WrittenBy(hamlet, tolkien)"),
        ],
        ("Tomas has read Hamlet.", "ReadBy(hamlet, tomas)"),
        "True",
    )
    assert found.background is not None
    assert found.background.texts == ("Book(hamlet)",)
    assert "the story's rules ask WrittenBy only of book things" in found.evidence


def test_a_thing_the_story_gives_a_kind_of_its_own_is_presumed_no_other() -> None:
    # the rule misreads "a show on a public radio station": its guard is on the host
    found = _blame(
        [
            ("Jason Kramer is a music supervisor.", "MusicSupervisor(jasonKramer)"),
            (
                "Anyone who hosts a show on a public radio station is a radio personality.",
                "∀x ∀y (HostShowOn(x, y) ∧ PublicRadioStation(x) → RadioPersonality(x))",
            ),
            ("Jason Kramer hosted a show on a station.", "HostShowOn(jasonKramer, kcrw)"),
        ],
        ("Jason Kramer is a radio personality.", "RadioPersonality(jasonKramer)"),
        "True",
    )
    assert found.background is not None
    assert "PublicRadioStation(jasonKramer)" not in found.background.texts


def test_what_a_rule_concludes_is_no_kind_to_presume() -> None:
    # Mary is late; taking her to have lost time would affirm the consequent
    found = _blame(
        [
            ("If you lose time, you will be late for work.", "∀x (LoseTime(x) → LateForWork(x))"),
            ("If you go by train, you will not lose time.", "∀x (GoByTrain(x) → ¬LoseTime(x))"),
            ("Mary is late for work.", "LateForWork(mary)"),
        ],
        ("Mary goes by train.", "GoByTrain(mary)"),
        "False",
    )
    assert found.background is not None and found.background.axioms == ()


def test_two_names_of_the_same_sort_are_tried_first() -> None:
    # "at least two": Minsky and McCarthy both won and both worked in AI; the countermodel
    # merges every name, and the pair that closes the proof is tried among the first
    awarded = ["knuth", "minsky", "hamming", "mccarthy"]
    found = _blame(
        [
            (
                "The award went to four people.",
                " ∧ ".join(f"AwardedTo(award, {p})" for p in awarded),
            ),
            ("Knuth worked on algorithms.", "ContributedTo(knuth, algorithms)"),
            ("Minsky worked on AI.", "ContributedTo(minsky, ai)"),
            ("Hamming worked on numerical methods.", "ContributedTo(hamming, numerics)"),
            ("McCarthy worked on AI.", "ContributedTo(mccarthy, ai)"),
        ],
        (
            "At least two winners worked on AI.",
            "∃x ∃y (¬(x=y) ∧ AwardedTo(award, x) ∧ AwardedTo(award, y) ∧ ContributedTo(x, ai) "
            "∧ ContributedTo(y, ai))",
        ),
        "True",
    )
    assert found.background is not None
    assert found.background.texts == ("mccarthy ≠ minsky",)


def test_no_bridge_for_what_no_word_supports_and_the_search_is_still_counted() -> None:
    found = _blame(
        [
            ("All elephants are mammals.", "∀x (Elephant(x) → Mammal(x))"),
            ("Jumbo is an elephant.", "Elephant(jumbo)"),
        ],
        ("Jumbo is sleepy.", "Sleepy(jumbo)"),
        "True",
    )
    # a failure to prove suggests no label; with no fact found, the label is surmised
    assert (found.cause, found.clean, found.surmised) == (Cause.LABEL, False, True)
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


@needs_wordnet
def test_a_fact_left_out_blocks_where_mending_a_misread_formula_leaves_the_gold_open() -> None:
    # the dropped "not" is a real defect, but the gold label needs "a bee is an animal"
    found = _blame(
        [
            ("All animals are mortal.", "∀x (Animal(x) → Mortal(x))"),
            ("Harry is a bee that does not sting.", "Bee(harry) ∧ Sting(harry)"),
        ],
        ("Harry is mortal.", "Mortal(harry)"),
        "True",
    )
    assert found.cause is Cause.KNOWLEDGE, found.evidence
    assert found.evidence.startswith("premises[1]: negation_missing:")
    assert (
        "but rewritten as the finding asks the gold True stays open; with ∀x (Bee(x) → Animal(x))"
        in found.evidence
    )


@needs_wordnet
def test_a_fact_that_is_the_conclusion_itself_is_no_bridge() -> None:
    found = _blame(
        [("Beethoven wrote the Ninth Symphony.", "Wrote(beethoven, ninthSymphony)")],
        ("Beethoven is a composer.", "Composer(beethoven)"),
        "True",
    )
    assert found.background is None or "Composer(beethoven)" not in found.background.texts
    assert found.cause is not Cause.KNOWLEDGE or "Composer(beethoven)" not in found.evidence


def test_a_possessive_written_as_two_fresh_somethings_names_one_thing() -> None:
    found = _blame(
        [
            ("Ann's bike is red.", "∃x (Owns(ann, x) ∧ Bike(x) ∧ Red(x))"),
            ("Ann's bike is fast.", "∃x (Owns(ann, x) ∧ Bike(x) ∧ Fast(x))"),
        ],
        ("Ann's bike is red and fast.", "∃x (Owns(ann, x) ∧ Red(x) ∧ Fast(x))"),
        "True",
    )
    assert found.cause is Cause.KNOWLEDGE
    assert found.background is not None
    assert found.background.texts == ("∀x ∀y (Owns(ann, x) ∧ Owns(ann, y) → x = y)",)
    assert 'a possessive: "Ann\'s bike is" names one thing' in found.evidence


@pytest.mark.parametrize(
    ("premises", "conclusion"),
    [
        # no possessive: "someone Ann owns" may be two things
        (["Ann owns a red bike.", "Ann owns a fast bike."], "Ann owns a red, fast bike."),
        # a possessive, but of another name than the relation's constant
        (["Bob's bike is red.", "Bob's bike is fast."], "Bob's bike is red and fast."),
    ],
)
def test_no_possessive_uniqueness_without_the_owners_possessive(
    premises: list[str], conclusion: str
) -> None:
    fol = ["∃x (Owns(ann, x) ∧ Red(x))", "∃x (Owns(ann, x) ∧ Fast(x))"]
    item = make_item(1, fol, "∃x (Owns(ann, x) ∧ Red(x) ∧ Fast(x))", "True")
    item = dataclasses.replace(item, premises=tuple(premises), conclusion=conclusion)
    (row,) = CHECKER.check_story([item])
    texts = [c.text for c in candidates(item_context(item, row), None)]
    assert not any("→ x = y" in t for t in texts)


def test_one_fresh_something_alone_is_no_possessive_to_unify() -> None:
    item = make_item(1, ["∃x (Owns(ann, x) ∧ Red(x))", "Fast(b)"], "Fast(ann)", "True")
    item = dataclasses.replace(item, premises=("Ann's bike is red.", "B is fast."))
    (row,) = CHECKER.check_story([item])
    texts = [c.text for c in candidates(item_context(item, row), None)]
    assert not any("→ x = y" in t for t in texts)
