"""A sentence's words and a name's words: accents, tokens, camel case, lemmas, function words.

FOLIO names camel-case the words of their sentence (`StudentAt`, `roderickStrong`, `year2013`),
so a name's words can be matched against the sentence's once both are lemmatised ("flies" and
`Fly`, "novels" and `Novel`, "led" and `Leads`). Lemmas come from `lemminflect` (English, its data
in the wheel: no model download), imported on first use and cached per word.

A sentence is split two ways, because the two readers ask different questions of it:

- `tokens` reads what the sentence *says* (the alignment's cues): contractions spelled out
  ("can't" → can, not), a number kept whole ("1,000"), letters and digits apart ("LG34" → lg, 34);
- `runs` reads how the sentence *spells* names (the repair rules' `spelling.Words`): every run of
  letters and digits as written ("LG34" stays whole, as in the name `lG34`; "1,000" → 1, 000;
  "can't" → can, t), case kept so that acronyms show.

Both strip accents with the one `plain`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Iterable, Sequence
from functools import lru_cache
from typing import Generic, TypeVar

#: A name's camel-case words (`USInvention` → US, Invention; `year2013Final` → year, 2013, Final).
CAMEL_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?:[.,]\d+)*")

#: Words that carry no content of their own: they never ground a symbol.
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "it",
        "its",
        "they",
        "them",
        "their",
        "he",
        "him",
        "his",
        "she",
        "her",
        "we",
        "us",
        "our",
        "you",
        "your",
        "i",
        "me",
        "my",
        "one",
        "ones",
        "to",
        "of",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "as",
        "into",
        "onto",
        "about",
        "than",
        "then",
        "so",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "has",
        "have",
        "had",
        "having",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "and",
        "or",
        "nor",
        "but",
        "if",
        "when",
        "whenever",
        "while",
        "unless",
        "only",
        "either",
        "neither",
        "both",
        "not",
        "no",
        "never",
        "all",
        "every",
        "each",
        "any",
        "some",
        "such",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "where",
        "why",
        "how",
        "also",
        "very",
        "just",
        "too",
        "more",
        "most",
        "less",
        "least",
        "many",
        "much",
        "few",
        "several",
        "other",
        "another",
        "same",
        "own",
        "s",
    ]
)


def plain(text: str) -> str:
    """`text` without accents (Zoë → Zoe), so a sentence and an ASCII name compare.

    >>> plain("Zoë's café")
    "Zoe's cafe"
    """
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokens(sentence: str) -> list[str]:
    """The sentence's words, lowercased, with contracted negations spelled out.

    >>> tokens("Kiwi can't fly; it cannot. Bob's won't, 1,000 times.")
    ['kiwi', 'can', 'not', 'fly', 'it', 'can', 'not', 'bob', 's', 'will', 'not', '1,000', 'times']
    """
    out: list[str] = []
    for raw in _TOKEN.findall(plain(sentence).replace("’", "'")):
        word = raw.lower()
        if word.endswith("n't"):
            stem = word[:-3]
            out += [{"ca": "can", "wo": "will", "sha": "shall"}.get(stem, stem), "not"]
        elif word == "cannot":
            out += ["can", "not"]
        elif "'" in word:
            out += [part for part in word.split("'") if part]
        else:
            out.append(word)
    return out


def runs(sentence: str) -> list[str]:
    """The sentence's runs of letters and digits, as written (case kept, accents stripped).

    Unlike `tokens`, a run is how a name spells the words, not what they say: no contraction
    is spelled out and no number is read whole.

    >>> runs("Zoë plays LG34's ModelXX, 1,000 times; can't.")
    ['Zoe', 'plays', 'LG34', 's', 'ModelXX', '1', '000', 'times', 'can', 't']
    """
    return re.findall(r"[^\W_]+", plain(sentence))


def name_words(name: str) -> list[str]:
    """A name's words, lowercased: camel case, digits and underscores split.

    >>> name_words("StudentAt"), name_words("roderickStrong"), name_words("F1Visa"), name_words("in_US")
    (['student', 'at'], ['roderick', 'strong'], ['f', '1', 'visa'], ['in', 'us'])
    """
    return [
        w.lower() for part in re.split(r"[_\W]+", plain(name)) for w in CAMEL_WORDS.findall(part)
    ]


@lru_cache(maxsize=50_000)
def _known_lemmas(word: str) -> frozenset[str]:
    """Every lemma English gives `word` (lowercase), for any part of speech; empty if it is no
    word the lemmatiser knows."""
    from lemminflect import getAllLemmas  # 0.3 s to import: only where alignment runs

    return frozenset(form for forms in getAllLemmas(word).values() for form in forms)


def lemmas(word: str) -> frozenset[str]:
    """`word` (lowercase) and every lemma English gives it, for any part of speech.

    >>> sorted(lemmas("flies")), sorted(lemmas("led")), sorted(lemmas("lives"))
    (['flies', 'fly'], ['lead', 'led'], ['life', 'live', 'lives'])
    """
    return _known_lemmas(word) | {word}


def english(word: str) -> bool:
    """Whether `word` (lowercase) is an English word the lemmatiser knows: a capitalised word it
    does not know ("Xiufeng", "Paris") is a name even where it opens a sentence.

    >>> english("music"), english("tower"), english("xiufeng"), english("paris")
    (True, True, False, False)
    """
    return bool(_known_lemmas(word))


def content(words: list[str]) -> list[str]:
    """The words that can ground a symbol: no function words, no one-letter words.

    >>> content(["the", "kiwi", "can", "not", "fly", "s"])
    ['kiwi', 'fly']
    """
    return [w for w in words if w not in FUNCTION_WORDS and (len(w) > 1 or w.isdigit())]


def same_word(a: str, b: str) -> bool:
    """Whether two lowercase words share a lemma, or one is a prefix-stem of the other (≥ 5).

    FOLIO shortens and glues words (`Orgranic`, `Profession` for "professional"), so a shared
    stem of five letters or more counts too.

    >>> same_word("flies", "fly"), same_word("professional", "profession"), same_word("cat", "car")
    (True, True, False)
    """
    if a == b or not lemmas(a).isdisjoint(lemmas(b)):
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 5 and long.startswith(short)


def all_said(words: Iterable[str], said: Sequence[str]) -> bool:
    """Whether every one of `words` is some word of `said` (`same_word`).

    >>> all_said(["flies", "birds"], ["a", "bird", "can", "fly"]), all_said(["cat"], ["car"])
    (True, False)
    """
    return all(any(same_word(w, t) for t in said) for w in words)


def phrase_at(said: Sequence[str], words: Sequence[str]) -> bool:
    """Whether `said` has `words` one after another (`same_word`): "Peter Parker" in "Peter
    Parker wears a uniform"; not "home office" in "work in the office or from home".

    >>> phrase_at(["peter", "parker", "wears"], ["peter", "parker"])
    True
    >>> phrase_at(["the", "office", "or", "from", "home"], ["home", "office"])
    False
    """
    n = len(words)
    return any(
        all(same_word(w, t) for w, t in zip(words, said[i : i + n], strict=True))
        for i in range(len(said) - n + 1)
    )


Tag = TypeVar("Tag", bound=Hashable)


class WordIndex(Generic[Tag]):
    """Words with a tag each, looked up by `same_word` in time that does not grow with how
    many there are: by lemma, and by the five-letter-or-longer stems `same_word` accepts.

    >>> index = WordIndex([("flies", 0), ("profession", 1), ("car", 2)])
    >>> sorted(index.matches("fly")), sorted(index.matches("professional")), index.matches("cat")
    ([0], [1], set())
    >>> all(bool(index.matches(w)) == any(same_word(w, v) for v in ("flies", "profession", "car"))
    ...     for w in ("fly", "professional", "profess", "cars", "cat", "professions"))
    True
    """

    def __init__(self, entries: Iterable[tuple[str, Tag]]) -> None:
        self._by_lemma: dict[str, set[Tag]] = {}
        self._by_word: dict[str, set[Tag]] = {}
        self._by_stem: dict[str, set[Tag]] = {}  # every prefix of ≥ 5 letters
        for word, tag in entries:
            for lemma in lemmas(word):
                self._by_lemma.setdefault(lemma, set()).add(tag)
            self._by_word.setdefault(word, set()).add(tag)
            for k in range(5, len(word) + 1):
                self._by_stem.setdefault(word[:k], set()).add(tag)

    def matches(self, word: str) -> set[Tag]:
        """The tags of the words `same_word` pairs with `word`."""
        found: set[Tag] = set()
        for lemma in lemmas(word):
            found |= self._by_lemma.get(lemma, set())
        if len(word) >= 5:
            found |= self._by_stem.get(word, set())  # a word that starts with this one
        for k in range(5, len(word)):
            found |= self._by_word.get(word[:k], set())  # a word this one starts with
        return found


#: Numerals a name may spell out (`foursum` for "4Sum").
_NUMERALS = dict(
    zip(
        map(str, range(11)),
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
        strict=True,
    )
)


def spelled_by(said: Sequence[str], name: str, most: int = 4) -> bool:
    """Whether up to `most` words of `said` in a row, written as one, are `name`'s letters, a
    numeral read as it is or as its word (`joined` writes two as one).

    >>> spelled_by(["4", "sum", "is", "hard"], "foursum"), spelled_by(["2", "sum"], "foursum")
    (True, False)
    >>> spelled_by(["megan", "whalen", "turner", "wrote"], "meganWhalenTurner")
    True
    """
    target = name.lower()
    spelled = [_NUMERALS.get(w, w) for w in said]
    return any(
        "".join(words[i : i + n]) == target
        for words in (said, spelled)
        for n in range(1, most + 1)
        for i in range(len(said) - n + 1)
    )


def joined(words: Sequence[str]) -> list[str]:
    """`words`, and each two neighbours written as one ("sci fi" → "scifi", as `ScifiMovie`).

    >>> joined(["sci", "fi", "movies"])
    ['sci', 'fi', 'movies', 'scifi', 'fimovies']
    """
    return [*words, *(a + b for a, b in zip(words, words[1:], strict=False))]
