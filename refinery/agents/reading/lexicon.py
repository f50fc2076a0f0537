"""WordNet 3.0, read from its own database files: whether a word names a kind of what another
names ("a bee is an animal"), and whether two adjectives are opposites ("dead", "alive").

The files are Debian's `wordnet-base` (`/usr/share/wordnet`; `REFINERY_WORDNET` names another
folder). An index file maps a lemma to its synsets' byte offsets in the matching data file; a
data line lists a synset's words and its pointers (`@` hypernym, `@i` instance hypernym, `!`
antonym, `&` similar to). Only what the background search asks is read, line by line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from lemminflect import getInflection, getLemma

DEFAULT_FOLDER = Path("/usr/share/wordnet")
#: The pointers followed up from a noun: to its kind, and from an instance to its kind.
_UP = ("@", "@i")
#: Superlatives WordNet also lists as nouns ("do your best").
_NOUN_SUPERLATIVES = frozenset({"best", "worst", "most", "least"})
#: How far up a hypernym chain is followed (WordNet's deepest nouns sit about 20 levels down).
_DEPTH = 24


@dataclass
class Lexicon:
    """WordNet's nouns and adjectives in `folder` (see the module doc)."""

    folder: Path
    _index: dict[str, dict[str, tuple[int, ...]]] = field(default_factory=dict, repr=False)

    @classmethod
    def find(cls) -> Lexicon | None:
        """The installed WordNet, or None where its files are missing."""
        folder = Path(os.environ.get("REFINERY_WORDNET") or DEFAULT_FOLDER)
        needed = ("index.noun", "data.noun", "index.adj", "data.adj")
        return cls(folder) if all((folder / n).is_file() for n in needed) else None

    def kind_of(self, word: str, other: str) -> tuple[str, ...]:
        """The chain of nouns from `word` up to `other` when some sense of `word` is a kind (or
        an instance) of some sense of `other` (`bee`, `insect`, …, `animal`); () otherwise."""
        targets = set(self._synsets(other, "noun"))
        if not targets:
            return ()
        for start in self._synsets(word, "noun"):
            chain = self._up_to(start, targets)
            if chain:
                return (self._lemma(word, "noun"), *chain)
        return ()

    def opposite(self, word: str, other: str) -> bool:
        """Whether some sense of adjective `word` is WordNet's antonym of some sense of `other`,
        directly or through the head adjective of its cluster."""
        mine, theirs = set(self._synsets(word, "adj")), set(self._synsets(other, "adj"))
        if not mine or not theirs:
            return False
        return any(self._pointers(s, "adj", ("!",)) & theirs for s in self._heads(mine)) or any(
            self._pointers(s, "adj", ("!",)) & mine for s in self._heads(theirs)
        )

    def superlative(self, word: str) -> str:
        """The adjective `word` is the superlative of ("smallest" → "small"), or "" where it is
        none: WordNet knows the adjective, and not `word` as a noun ("forest" is no "fore"-est)."""
        text = word.lower()
        if not (text.isalpha() and text.endswith("st")):
            return ""
        adjectives, nouns = self._load("adj"), self._load("noun")
        if text in nouns and text not in _NOUN_SUPERLATIVES:
            return ""
        for base in getLemma(text, upos="ADJ"):
            # a base WordNet knows first: lemminflect's rules fail on some unknown words
            if base != text and base in adjectives and text in getInflection(base, tag="JJS"):
                return str(base)
        return ""

    # -- the files -----------------------------------------------------------------------------

    def _up_to(self, start: int, targets: set[int]) -> tuple[str, ...]:
        """Breadth first up the hypernyms from `start` to one of `targets`: the names on the way."""
        parents: dict[int, int | None] = {start: None}
        frontier = [start]
        for _ in range(_DEPTH):
            found = next((s for s in frontier if s in targets and s != start), None)
            if found is not None:
                chain = []
                while found is not None and found != start:
                    chain.append(self._name(found, "noun"))
                    found = parents[found]
                return tuple(reversed(chain))
            nxt = []
            for s in frontier:
                for p in sorted(self._pointers(s, "noun", _UP)):
                    if p not in parents:
                        parents[p] = s
                        nxt.append(p)
            frontier = nxt
        return ()

    def _heads(self, synsets: set[int]) -> set[int]:
        """The synsets and the head adjectives they are similar to (`&`)."""
        return synsets | {h for s in synsets for h in self._pointers(s, "adj", ("&",))}

    def _synsets(self, word: str, pos: str) -> tuple[int, ...]:
        index = self._load(pos)
        lemma = self._lemma(word, pos)
        return index.get(lemma) or index.get(word.lower().replace(" ", "_"), ())

    def _lemma(self, word: str, pos: str) -> str:
        text = word.lower().replace(" ", "_")
        if text in self._load(pos) or "_" in text:
            return text
        base = getLemma(text, upos="NOUN" if pos == "noun" else "ADJ")
        return base[0] if base else text

    def _load(self, pos: str) -> dict[str, tuple[int, ...]]:
        if pos not in self._index:
            table: dict[str, tuple[int, ...]] = {}
            with open(self.folder / f"index.{pos}", encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith(" "):
                        continue  # the licence at the top
                    parts = line.split()
                    count, pointers = int(parts[2]), int(parts[3])
                    table[parts[0]] = tuple(
                        int(o) for o in parts[6 + pointers : 6 + pointers + count]
                    )
            self._index[pos] = table
        return self._index[pos]

    def _pointers(self, synset: int, pos: str, symbols: tuple[str, ...]) -> set[int]:
        return {o for s, o in _line(self.folder, pos, synset).pointers if s in symbols}

    def _name(self, synset: int, pos: str) -> str:
        return _line(self.folder, pos, synset).words[0].replace("_", " ")


@dataclass(frozen=True, slots=True)
class _Synset:
    words: tuple[str, ...]
    pointers: tuple[tuple[str, int], ...]


@lru_cache(maxsize=65536)
def _line(folder: Path, pos: str, offset: int) -> _Synset:
    """The synset at byte `offset` of `data.<pos>`: its words and its (symbol, offset) pointers to
    synsets of the same part of speech."""
    with open(folder / f"data.{pos}", "rb") as handle:
        handle.seek(offset)
        parts = handle.readline().decode("utf-8").split()
    count = int(parts[3], 16)
    words = tuple(parts[4 : 4 + 2 * count : 2])
    at = 4 + 2 * count
    pointers = []
    for i in range(int(parts[at])):
        symbol, target, part = parts[at + 1 + 4 * i : at + 4 + 4 * i]
        if part[0] == pos[0] or (pos == "adj" and part == "s"):
            pointers.append((symbol, int(target)))
    return _Synset(words, tuple(pointers))
