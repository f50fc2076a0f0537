"""`argument_order`: `R(b, a)` where the sentence reads "a … R … b" (and is not passive).

`reads_swapped` is the same reading for the story-wide check (`alignment.sorts`): the tie-break
for a story that puts a constant in both places.
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import Story, position
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Atom, Shape
from refinery.agents.reading.cues import Sentence, read_sentence
from refinery.agents.reading.words import name_words

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.ARGUMENT_ORDER,)
#: The words before a noun that say whose it is ("its orbit", "Europa's orbit").
_POSSESSIVE = frozenset([("its",), ("his",), ("her",), ("their",), ("s",)])


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """Two-place atoms whose arguments the sentence names in the other order."""
    out = []
    for atom in f.atoms:
        if len(atom.args) != 2 or atom.args[0] == atom.args[1]:
            continue
        first, second = (_term_position(s, f, arg) for arg in atom.args)
        if first is None or second is None:
            continue
        if name_words(atom.name)[-1:] == ["by"]:
            # `AnnouncedBy(weTab, neofonie)`: "WeTab was announced by Neofonie" puts the first
            # argument before "by", the second after; the active "Neofonie announced WeTab"
            # turns it, so only a sentence with "by" between them is read
            if second < first and "by" in s.words[second:first]:
                out.append(_order(s, atom, first, second))
            continue
        if second >= first:
            continue
        before, after = s.words[second - 1 : second], s.words[second + 1 : second + 2]
        if "by" in s.words[second:first] or before in (("of",), ("by",)) or after == ("s",):
            continue  # passive ("made by b"), "the son of b, a", "b's album a"
        verb = position(s, atom.name)
        if (
            verb
            and name_words(atom.name)[-1:] == ["of"]
            and s.words[verb - 1 : verb] in _POSSESSIVE
        ):
            continue  # "its orbit" is `OrbitOf(orbit, it)`: the owner is said first, put last
        # "the lead single of b is a": the predicate's word before both names says nothing
        if verb is not None and not second < verb < first:
            continue
        if verb is not None or all(a in f.constants for a in atom.args):
            out.append(_order(s, atom, first, second))
    return out


def _order(s: Sentence, atom: Atom, first: int, second: int) -> Finding:
    return Finding(
        FindingKind.ARGUMENT_ORDER,
        0.5,
        (s.words[second], s.words[first]),
        (atom.name,),
        f"{atom.name}({', '.join(atom.args)}): the sentence puts {atom.args[1]} before "
        f"{atom.args[0]}",
    )


def reads_swapped(sentence: str, formula_shape: Shape, predicate: str) -> bool:
    """Whether the sentence's word order alone says an atom of `predicate` has its arguments
    the wrong way round: the tie-break for a story that puts a constant in both places."""
    found = check(read_sentence(sentence), formula_shape, Story(predicates={}, constants=()))
    return any(m.symbols == (predicate,) for m in found)


def _term_position(s: Sentence, f: Shape, term: str) -> int | None:
    """Where the sentence names a term: a constant by its words; a variable by the words of the
    one-place predicates the formula applies to it ("writers" for `x` in `Writer(x)`), or, for
    the formula's outermost variable, by the quantifier cue that opens the sentence ("if
    someone", "some people")."""
    if term in f.constants:
        return position(s, term)
    found = [position(s, a.name) for a in f.atoms if a.args == (term,)]
    if term == f.subject:
        cues = [i for i in (*s.universal, *s.existential, *s.conditional) if i <= 1]
        found += cues[:1]
    return min((p for p in found if p is not None), default=None)
