"""Slips a label mismatch may rest on, found in an item's FOL and sentences: names the
conclusion or one premise writes apart from the rest of the story, a constant in another
constant's place, a constant copied from another formula with its conjunct, a plural "some"
written as two distinct things.

Each detector only says what it saw (and, for some, how the FOL would read mended); whether the
slip is what blocks the gold label is for `refinery.repair.blame` to re-prove.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from refinery.addresses import CONCLUSION
from refinery.agents.alignment import FindingKind
from refinery.agents.alignment.drift import near
from refinery.agents.models import ItemContext
from refinery.agents.reading.words import (
    all_said,
    content,
    name_words,
    phrase_at,
    spelled_by,
    tokens,
)
from refinery.agents.repairs.located import atoms_of
from refinery.logic.analysis import occurrences, var_free_in
from refinery.logic.parse import parses
from refinery.logic.printer import to_text
from refinery.logic.syntax import And, Const, Eq, Exists, Not, Var


def symbols(texts: Iterable[str]) -> set[str]:
    """The predicate and constant names of the formulas that parse."""
    names: set[str] = set()
    for text in texts:
        f = parses(text)
        if f is not None:
            names |= {o.name for o in occurrences(f) if o.kind in ("predicate", "constant")}
    return names


def alike(name: str, others: Iterable[str]) -> str:
    """The name among `others` written most alike: the same letters in another case, or the most
    content words in common (`WonGame`, `WonAgainst`); "" for none."""
    words = _words(name)
    same = [other for other in sorted(others) if other.lower() == name.lower()]
    # the most words in common, then the fewest words of its own (`SoccerPlayer` is
    # `ProfessionalSoccerPlayer` rather than `NBAPlayer`)
    shared = sorted(
        (-len(words & _words(other)), len(_words(other) - words), other)
        for other in others
        if words & _words(other)
    )
    return (same or [o for *_, o in shared] or [""])[0]


def _words(name: str) -> set[str]:
    """A name's words that can ground it (`refinery.agents.reading.words.content`), of three
    letters or more ("in", "of" and single letters join too many names)."""
    return {w for w in content(name_words(name)) if len(w) >= 3}


#: Findings that a sentence names something the story has a symbol for, and its formula not.
_UNSYMBOLISED = frozenset({FindingKind.WORD_UNSYMBOLISED, FindingKind.ENTITY_UNSYMBOLISED})


def renamed(context: ItemContext, only_conclusion: set[str]) -> str:
    """Evidence that the conclusion names with a symbol of its own what the story names with
    another: its sentence says a story symbol its formula leaves out, or a premise's sentence
    says the conclusion's symbol and its formula uses another; "" for none."""
    if not only_conclusion:
        return ""
    for f in context.alignment:
        if f.kind not in _UNSYMBOLISED:
            continue
        if f.where == CONCLUSION:
            return (
                f"the conclusion's sentence names {', '.join(f.symbols) or ' '.join(f.words)}, "
                f"its formula uses {', '.join(sorted(only_conclusion))}, in no premise"
            )
        if set(f.symbols) & only_conclusion:
            return (
                f"{f.where}'s sentence names the conclusion's {f.symbols[0]}, its formula another"
            )
    return ""


def same_place(context: ItemContext, only_conclusion: set[str]) -> list[tuple[str, str, str]]:
    """(name, constant, other) where an atom of the conclusion's own predicate `name` has the
    `constant` in an object place (not the first: every predicate of a thing shares its
    subject) in which a premise atom of the predicate `other`, of the same arity, has it too:
    `From(x, crotonRiverWatershed)` beside `In(x, crotonRiverWatershed)`. One relation named two
    ways, or two relations: only re-proving tells (`_mismatch`)."""
    theirs = [a for w, t in context.fol.items() if w != CONCLUSION for a in atoms_of(t)]
    found: list[tuple[str, str, str]] = []
    for mine in atoms_of(context.fol.get(CONCLUSION, "")):
        if mine.name not in only_conclusion:
            continue
        for other in theirs:
            if other.name == mine.name or len(other.args) != len(mine.args):
                continue
            for a, b in list(zip(mine.args, other.args, strict=True))[1:]:
                if isinstance(a, Const) and a == b:
                    found.append((mine.name, a.name, other.name))
    return list(dict.fromkeys(found))


def orphan(context: ItemContext) -> tuple[str, str, str] | None:
    """(the formula, its name, the other name) where a premise uses a name no other formula
    uses while another formula has a name for the same words: the premise cannot link to the
    rest, as a conclusion-only name cannot; None for none. A predicate's partner has its
    arity, every word of the orphan, and its words are all said by the orphan's sentence
    (`Grow` in "grow … in their garden" beside `GrowIn`); a constant's partner is a near
    spelling (`homelessCharify`) or its initials (`usa`)."""
    uses: dict[tuple[str, str, int], set[str]] = {}
    for where, text in context.fol.items():
        f = parses(text)
        for o in occurrences(f) if f is not None else ():
            if o.kind in ("predicate", "constant"):
                uses.setdefault((o.kind, o.name, o.arity), set()).add(where)
    for (kind, name, arity), (home, *more) in sorted(uses.items()):
        if more or home == CONCLUSION:
            continue  # shared, or the conclusion's own (`alike` reads those)
        said = tokens(context.nl.get(home, ""))
        mine = content(name_words(name))
        for (kind2, other, arity2), places in sorted(uses.items()):
            if kind2 != kind or other == name or home in places:
                continue
            if kind == "predicate":
                theirs = content(name_words(other))
                if arity2 != arity or not mine or not theirs:
                    continue
                if not (all_said(mine, theirs) and all_said(theirs, said)):
                    continue
            elif not (near(name, other) or _initials(name, other)):
                continue
            return home, name, other
    return None


def shortened(context: ItemContext) -> tuple[str, str, str] | None:
    """(a formula, its constant, the full name) where a formula writes a constant whose words
    begin another constant's, while its sentence says the longer one's words as a phrase:
    `peter` for "Peter Parker" beside `peterParker`. One thing named two ways; None for none."""
    uses: dict[str, set[str]] = {}
    for where, text in context.fol.items():
        f = parses(text)
        for o in occurrences(f) if f is not None else ():
            if o.kind == "constant":
                uses.setdefault(o.name, set()).add(where)
    for name, places in sorted(uses.items()):
        mine = name_words(name)
        if not content(mine):
            continue  # `a` begins `aLotOfMoney`: no name of its own
        for full in sorted(uses):
            theirs = name_words(full)
            if len(theirs) <= len(mine) or theirs[: len(mine)] != mine or not uses[full] - places:
                continue
            for where in sorted(places - uses[full]):  # a formula with both tells them apart
                if phrase_at(tokens(context.nl.get(where, "")), theirs):
                    return where, name, full
    return None


#: Words that ask for more than one thing: "at least two", "both", "several" …
_MANY = frozenset({"two", "2", "least", "both", "several", "many", "multiple", "distinct",
                   "different", "pair", "couple", "more"})  # fmt: skip


def one_witness(context: ItemContext) -> str | None:
    """The conclusion `∃x ∃y (A(x) ∧ A(y) ∧ x ≠ y)` written `∃x A(x)` where its sentence asks
    for no number ("Some drugs are beneficial"): FOLIO writes a plural "some" as two distinct
    things, which premises that give one cannot prove. None unless the conclusion is that shape
    (the parts about `y` those about `x`, renamed)."""
    f = parses(context.fol.get(CONCLUSION, ""))
    if not (isinstance(f, Exists) and isinstance(f.body, Exists) and isinstance(f.body.body, And)):
        return None
    if not _MANY.isdisjoint(tokens(context.nl.get(CONCLUSION, ""))):
        return None
    x, y = Var(f.var), Var(f.body.var)
    parts = f.body.body.args
    apart = {Not(Eq(x, y)), Not(Eq(y, x))}
    mine = [p for p in parts if p not in apart and not var_free_in(p, y.name)]
    theirs = [p for p in parts if p not in apart and var_free_in(p, y.name)]
    if len(mine) + len(theirs) + 1 != len(parts) or not mine:
        return None
    renamed = {re.sub(rf"\b{x.name}\b", y.name, to_text(p)) for p in mine}
    if {to_text(p) for p in theirs} != renamed:
        return None
    one = Exists(x.name, mine[0] if len(mine) == 1 else And(tuple(mine)))
    return to_text(one)


def stray_arguments(context: ItemContext) -> list[tuple[str, str, str]]:
    """(where, the formula rewritten, what was seen) for each atom `P(…, c, …)` whose constant
    `c` sits in a place where every other formula's `P` of that arity has one other constant
    `d`, whose words the formula's sentence says: `Failed(james, james)` for "James failed the
    class" beside `Failed(x, theClass)`. The rewrite writes `d` there; only re-proving tells
    whether that was the slip."""
    uses: dict[tuple[str, int, int], dict[str, set[str]]] = {}
    for where, text in context.fol.items():
        for atom in atoms_of(text):
            for i, arg in enumerate(atom.args):
                held = arg.name if isinstance(arg, Const) else "?"
                uses.setdefault((atom.name, len(atom.args), i), {}).setdefault(held, set()).add(
                    where
                )
    found: list[tuple[str, str, str]] = []
    for where, text in context.fol.items():
        for atom in atoms_of(text):
            for i, (arg, span) in enumerate(zip(atom.args, atom.arg_spans, strict=True)):
                if not isinstance(arg, Const):
                    continue
                others = {
                    held
                    for held, places in uses[(atom.name, len(atom.args), i)].items()
                    if places - {where}
                }
                if len(others) != 1 or arg.name in others or "?" in others:
                    continue
                (other,) = others
                if where in uses[(atom.name, len(atom.args), i)].get(other, set()):
                    continue  # this formula writes the other constant there too
                if not all_said(_words(other), tokens(context.nl.get(where, ""))):
                    continue  # the sentence does not say the other constant's words
                after = text[: span[0]] + other + text[span[1] :]
                seen = (
                    f"{where} writes {atom.name} with {arg.name} where every other formula "
                    f"has {other}"
                )
                found.append((where, after, seen))
    return found


def copied_constants(context: ItemContext) -> list[tuple[str, str, str]]:
    """(where, the formula rewritten, what was seen) for each constant `b` of a formula whose
    sentence does not name it but names another constant `a` of that formula, where `b` is named
    by the sentence of another formula it occurs in and `a` and `b` stand in one place of some
    predicate: a conjunct copied from the other formula with its constant left as it was
    (`… ∧ LeetcodeProblems(twosum)` for "'4Sum' is …", beside "'2Sum' is …"). The rewrite
    writes `a` for `b` throughout the formula; only re-proving tells whether that was the slip."""
    spans: dict[str, dict[str, list[tuple[int, int]]]] = {}
    places: dict[str, set[tuple[str, int]]] = {}
    for where, text in context.fol.items():
        for atom in atoms_of(text):
            for i, (arg, span) in enumerate(zip(atom.args, atom.arg_spans, strict=True)):
                if isinstance(arg, Const):
                    spans.setdefault(where, {}).setdefault(arg.name, []).append(span)
                    places.setdefault(arg.name, set()).add((atom.name, i))
    named = {
        (where, name)
        for where, held in spans.items()
        for name in held
        if _names(context.nl.get(where, ""), name)
    }
    found: list[tuple[str, str, str]] = []
    for where, held in spans.items():
        text = context.fol[where]
        for b in sorted(held):
            homes = sorted(w for w in spans if w != where and (w, b) in named)
            subjects = [
                a for a in sorted(held) if a != b and (where, a) in named and places[a] & places[b]
            ]
            if (where, b) in named or not homes or len(subjects) != 1:
                continue
            (a,) = subjects
            after = text
            for start, end in sorted(held[b], reverse=True):
                after = after[:start] + a + after[end:]
            seen = (
                f"{where} writes {b}, which its sentence does not name, beside {a}, which it "
                f"does; {homes[0]} names {b}: a conjunct copied from there"
            )
            found.append((where, after, seen))
    return found


def _names(sentence: str, name: str) -> bool:
    """Whether `sentence` names the constant `name`: all its words said (`all_said`), or its
    letters spelled by a few words in a row (`spelled_by`: "4Sum" names `foursum`)."""
    said, words = tokens(sentence), _words(name)
    return (bool(words) and all_said(words, said)) or spelled_by(said, name)


def _initials(a: str, b: str) -> bool:
    """Whether the shorter name is the initials of the longer one's words (`usa`)."""
    short, long = sorted((a, b), key=len)
    words = content(name_words(long))
    return len(short) >= 2 and len(words) >= 2 and short.lower() == "".join(w[0] for w in words)
