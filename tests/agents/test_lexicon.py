"""WordNet 3.0 read from its database files (`refinery.agents.reading.lexicon`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery.agents.reading.lexicon import Lexicon

LEXICON = Lexicon.find()
needs_wordnet = pytest.mark.skipif(
    LEXICON is None,
    reason="WordNet not installed (Debian's wordnet-base; `make test` installs it as root)",
)


@needs_wordnet
def test_a_bee_is_an_animal_through_its_hypernyms() -> None:
    assert LEXICON is not None
    chain = LEXICON.kind_of("bees", "animal")  # a plural is read as its lemma
    assert chain[0] == "bee" and chain[-1] == "animal" and "insect" in chain


@needs_wordnet
def test_an_instance_and_a_phrase_are_kinds_too() -> None:
    assert LEXICON is not None
    assert LEXICON.kind_of("Georgia", "state")[-1] == "state"  # an instance of
    assert LEXICON.kind_of("planet", "celestial body") == ("planet", "celestial body")


@needs_wordnet
def test_unrelated_words_and_unknown_words_are_no_kind_of_each_other() -> None:
    assert LEXICON is not None
    assert LEXICON.kind_of("dog", "cat") == ()
    assert LEXICON.kind_of("animal", "bee") == ()  # not downwards
    assert LEXICON.kind_of("zzzq", "animal") == ()


@needs_wordnet
def test_opposites_are_antonyms_directly_or_through_a_cluster_head() -> None:
    assert LEXICON is not None
    assert LEXICON.opposite("dead", "alive") and LEXICON.opposite("alive", "dead")
    assert not LEXICON.opposite("dead", "red")


def test_a_folder_without_the_files_is_no_lexicon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFINERY_WORDNET", str(tmp_path))
    assert Lexicon.find() is None
