"""What the words of some sentences say about how a name is spelled.

FOLIO builds names by camel-casing the English words of the sentence ("Ann ran for the City
Council" → `ann`, `cityCouncil`; "a city in Spain" → `CityIn`, `spain`). So the words of an
item's sentences (`Words`) say where a name's words begin (and so where its capitals go), where a
predicate glued to its argument ends, and whether a constant belongs in a sentence.

A word here stands for itself or for its plural or singular by spelling alone (`-s`, `-es`,
`-ies`), not by `words.lemmas`: the pieces judged are parts of names (`lg34`, `oxfordst`,
`usinvention`), which the English lemmatiser does not know, and a lemma would also join words a
name keeps apart ("led" and `Lead`). The alignment, which reads whole English words, uses lemmas.
"""

from __future__ import annotations

from dataclasses import dataclass

from refinery.agents.reading.words import CAMEL_WORDS, runs


@dataclass(frozen=True, slots=True)
class Words:
    """The words of some sentences: lowercased, accents stripped; acronyms kept apart too."""

    words: frozenset[str] = frozenset()
    #: words with capitals inside ("LG34", "DI", "ModelXX"): their letters' case says nothing
    acronyms: frozenset[str] = frozenset()
    runs: tuple[str, ...] = ()  # the words in order, lowercased (`words.runs`)

    @classmethod
    def of(cls, *sentences: str) -> Words:
        """The words of `sentences`.

        >>> w = Words.of("Zoë plays LG34's ModelXX.")
        >>> sorted(w.words), sorted(w.acronyms)
        (['lg34', 'modelxx', 'plays', 's', 'zoe'], ['lg34', 'modelxx'])
        """
        written = [r for s in sentences for r in runs(s)]
        acronyms = {r.lower() for r in written if len(r) > 1 and r[1:] != r[1:].lower()}
        lower = tuple(r.lower() for r in written)
        return cls(frozenset(lower), frozenset(acronyms), lower)

    def known(self, word: str) -> bool:
        """Whether `word` (any case) is one of the words, allowing a plural either way.

        Words of one or two letters must match exactly.

        >>> w = Words.of("Cats feud with the ladies.")
        >>> w.known("Cat"), w.known("feuds"), w.known("lady"), w.known("dog")
        (True, True, True, False)
        """
        w = word.lower()
        if len(w) < 3:  # `a` is not the singular of `as`
            return w in self.words
        forms = {w, w + "s", w + "es"}
        if w.endswith("s"):
            forms.add(w[:-1])
        if w.endswith("es"):
            forms.add(w[:-2])
        if w.endswith("y"):
            forms.add(w[:-1] + "ies")
        if w.endswith("ies"):
            forms.add(w[:-3] + "y")
        return not forms.isdisjoint(self.words)

    def segment(self, text: str) -> list[tuple[int, int, bool]]:
        """Split lowercase `text` into the sentences' words (two letters or more) and digit runs.

        Returns `(start, end, known)` pieces covering `text`: the segmentation that covers the
        most characters with known pieces, then the one with the fewest pieces; characters no
        word covers are single unknown pieces.

        >>> Words.of("Ann is in the city council").segment("anncitycouncil2")
        [(0, 3, True), (3, 7, True), (7, 14, True), (14, 15, True)]
        >>> Words.of("Ann").segment("xann")
        [(0, 1, False), (1, 4, True)]
        """
        n = len(text)
        # best[i]: (covered characters, -pieces) for text[:i], and the last piece
        best: list[tuple[tuple[int, int], tuple[int, int, bool]] | None] = [None] * (n + 1)
        best[0] = ((0, 0), (0, 0, False))
        for i in range(n):
            entry = best[i]
            if entry is None:
                continue
            (covered, pieces), _ = entry
            steps = [(i + 1, text[i].isdigit())]
            steps += [(j, True) for j in range(i + 2, n + 1) if self._piece(text[i:j])]
            for j, known in steps:
                score = (covered + (j - i if known else 0), pieces - 1)
                current = best[j]
                if current is None or score > current[0]:
                    best[j] = (score, (i, j, known))
        out: list[tuple[int, int, bool]] = []
        j = n
        while j > 0:
            entry = best[j]
            assert entry is not None
            out.append(entry[1])
            j = entry[1][0]
        return out[::-1]

    def _piece(self, piece: str) -> bool:
        # a word, or the singular of one (names singularise: "cats" → `cat`), never a plural
        # of one: `oxfords` is not in "Oxford Street" (`oxfordSt`)
        if piece.isdigit() or piece in self.words:
            return True
        singular = {piece + "s", piece + "es"} | (
            {piece[:-1] + "ies"} if piece[-1:] == "y" else set()
        )
        return len(piece) >= 3 and not singular.isdisjoint(self.words)

    def spells(self, text: str) -> bool:
        """Whether lowercase `text` is entirely made of the sentences' words (and numbers).

        >>> w = Words.of("Bob's dinner party")
        >>> w.spells("bobparty"), w.spells("sparty"), w.spells("dinner2")
        (True, False, True)
        """
        return bool(text) and all(known for _, _, known in self.segment(text))

    def phrase(self, text: str) -> bool:
        """Whether lowercase `text` is some consecutive words of the sentences run together.

        A word may stand in its singular (names singularise: "U.S. inventions" → `usinvention`).

        >>> w = Words.of("A-2017 has U.S. inventions.")
        >>> w.phrase("a2017"), w.phrase("a20"), w.phrase("usinvention"), w.phrase("usinventions")
        (True, False, True, True)
        """

        def run_from(i: int, rest: str) -> bool:
            if not rest:
                return True
            if i == len(self.runs):
                return False
            return any(
                rest.startswith(form) and run_from(i + 1, rest[len(form) :])
                for form in _forms(self.runs[i])
                if form
            )

        return bool(text) and any(run_from(i, text) for i in range(len(self.runs)))

    def unknown(self, name: str) -> int:
        """How many camel-case words of `name` are no word of the sentences (a slip makes one).

        A name spelled entirely with the sentences' words has none, whatever its case (`pA`
        and `pa` for "PA"); see `case_errors` for the case. A plural and its singular count
        alike (`Gain`, `Gains`): which one the annotator chose is not in the sentence.

        >>> w = Words.of("Nothing has the Sun as its star; the students gain.")
        >>> [w.unknown(n) for n in ("SunAs", "SunA", "Studen", "Student", "Gain", "Gains")]
        [0, 1, 1, 0, 0, 0]
        """
        plain = "".join(ch for ch in name if ch.isalnum()).lower()
        if self.spells(plain) or self.phrase(plain):
            return 0
        return sum(1 for w in CAMEL_WORDS.findall(name) if not w.isdigit() and not self.known(w))

    def mention(self, constant: str) -> bool:
        """Whether the sentences mention `constant`: each of its words, and its numbers.

        FOLIO labels a number (`num1000` for "1,000", `yr2022`, `year1980`): a short word right
        before a number is its label, not a word of the sentence.

        >>> w = Words.of("More than 1,000 users work from home.")
        >>> w.mention("num1000"), w.mention("home"), w.mention("homeOffice"), w.mention("num2000")
        (True, True, False, False)
        """
        plain = "".join(ch for ch in constant if ch.isalnum()).lower()
        if self.spells(plain) or self.phrase(plain):
            return True
        parts = CAMEL_WORDS.findall(constant)
        for i, part in enumerate(parts):
            if part.isdigit():
                if not (self.phrase(part) or any(part in t for t in self.runs)):
                    return False
            elif not (
                self.known(part)
                or (len(part) <= 4 and parts[i + 1 : i + 2] and parts[i + 1].isdigit())
            ):
                return False
        return True

    def case_errors(self, name: str) -> int:
        """Capitals of `name` that do not fall on the words' boundaries, and boundaries without one.

        Only positions inside (or at the start of) a word of the sentences are judged; the
        name's first letter is left to the case convention, and acronyms ("LG34") to nobody.

        >>> w = Words.of("Ann won the 2013 final.")
        >>> [w.case_errors(n) for n in ("ann", "aNn", "year2013Final", "year2013final")]
        [0, 1, 0, 1]
        """
        alnum = [(i, ch) for i, ch in enumerate(name) if ch.isalnum()]
        plain = "".join(ch for _, ch in alnum)
        errors = 0
        for start, end, known in self.segment(plain.lower()):
            piece = plain[start:end]
            if not known or piece.isdigit() or piece.lower() in self.acronyms:
                continue
            for k in range(start, end):
                if k == 0 or not plain[k].isalpha():
                    continue
                errors += plain[k].isupper() != (k == start)
        return errors


def _forms(word: str) -> set[str]:
    """`word` and, for a plural, its singular."""
    forms = {word}
    if len(word) > 3 and word.endswith("s"):
        forms.add(word[:-1])
        if word.endswith("ies"):
            forms.add(word[:-3] + "y")
        elif word.endswith("es"):
            forms.add(word[:-2])
    return forms
