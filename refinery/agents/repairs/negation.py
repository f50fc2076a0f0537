"""`fix_negation`: restore a ¬ the sentence states and the formula lost, or drop one it never said.

From a `negation_missing` finding: negate the atom the negation cue governs (the first atom whose
predicate names a word after "not" / "no" / "never" in the sentence), or a conjunction,
disjunction or ∃ around it ("not both A and B"), else the consequent of the formula's rule, else
the whole formula or its body. Several of these may prove the gold label; the gate then leaves
the choice to a person. From `negation_extra`: drop one ¬ (never a `≠`).
"""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.alignment.checks.negation import NEITHER
from refinery.agents.alignment.checks.negation_scope import EACH_PART
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.cues import read_sentence
from refinery.agents.reading.words import content, name_words, same_word
from refinery.agents.repairs.edits import Candidate, RuleTag
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.analysis import children, subformulas
from refinery.logic.rewrite import Path, nodes
from refinery.logic.syntax import And, Eq, Exists, Forall, Formula, Implies, Not, Or, Pred, Xor

TAG = RuleTag("fix_negation", ErrorClass.WRONG_NEGATION)


def propose(findings: ItemContext) -> list[Candidate]:
    """Candidates for each blaming negation finding, likeliest first.

    >>> f = ItemContext("i", "s", {"premises[0]": "∀x (Bird(x) → Fly(x))", "conclusion": "Bird(a)"},
    ...              {"premises[0]": "Birds cannot fly."}, None)
    >>> from refinery.agents.alignment import align
    >>> import dataclasses
    >>> f = dataclasses.replace(f, alignment=align(f.fol, f.nl).findings)
    >>> [c[0].after for c in propose(f)][:2]
    ['∀x (Bird(x) → ¬Fly(x))', '¬∀x (Bird(x) → Fly(x))']
    """
    out: list[Candidate] = []
    for finding, text, formula in flagged(findings, FindingKind.NEGATION_MISSING):
        if finding.message == EACH_PART:  # "not A and not B" as ¬(A ∧ B): ¬A ∧ ¬B
            out += node_edits(TAG, finding, text, formula, _each_part(formula, finding.symbols))
            continue
        nor = _neither(formula) if finding.message == NEITHER else []
        if nor:  # "neither A nor B" as ¬(A ⊕ B) or ¬(A ∧ B): ¬(A ∨ B), never ¬(¬A ⊕ B)
            out += node_edits(TAG, finding, text, formula, nor)
            continue
        sentence = findings.nl.get(finding.where, "")
        named, guesses = _negations(formula, sentence, finding.words)
        out += node_edits(TAG, finding, text, formula, named)
        out += node_edits(TAG, finding, text, formula, guesses, guess=True)
    for finding, text, formula in flagged(findings, FindingKind.NEGATION_EXTRA):
        out += node_edits(TAG, finding, text, formula, _removals(text, formula))
    return best(out)


Change = tuple[Path, Formula, list[tuple[int, int, str]]]


def _negations(
    formula: Formula, sentence: str, cue_words: tuple[str, ...] = ()
) -> tuple[list[Change], list[Change]]:
    """(changes at the atoms the cue names, and around them; guesses: the rule's consequent,
    the whole formula, its body). A negative prefix ("unsanctioned") names its atom."""
    s = read_sentence(sentence)
    after_cue = [w for i in s.negations for w in content(list(s.words[i + 1 : i + 5]))]
    for word in cue_words:  # "unsanctioned" → "sanctioned"
        for prefix in ("un", "non", "dis", "in", "im", "il", "ir"):
            if word.startswith(prefix) and len(word) - len(prefix) >= 4:
                after_cue.insert(0, word[len(prefix) :])
    atoms = [
        (path, node)
        for path, node in nodes(formula)
        if isinstance(node, Pred) and node.span is not None
    ]
    governed = sorted(
        (
            min(
                (
                    k
                    for k, w in enumerate(after_cue)
                    if any(same_word(w, n) for n in name_words(a.name))
                ),
                default=len(after_cue),
            ),
            path,
            a,
        )
        for path, a in atoms
    )
    changes: list[Change] = []
    for rank, path, atom in governed:
        if rank < len(after_cue) and atom.span is not None:
            changes.append((path, Not(atom), [(atom.span.start, atom.span.start, "¬")]))
    # "not both A and B", "not directed by someone from X": the cue governs a compound
    named = {path for rank, path, _ in governed if rank < len(after_cue)}
    compounds: list[Change] = []
    both: list[Change] = []  # "is not both A and B" is ¬(A ∧ B), never ¬A ∧ B
    for path, node in nodes(formula):
        inside = any(p[: len(path)] == path for p in named)
        if (path or s.denies_both) and isinstance(node, And | Or | Exists) and inside:
            compounds.append((path, Not(node), []))
            if s.denies_both and isinstance(node, And):
                both.append(compounds[-1])
    if s.denies_both and not both:
        # "if X is not both A and B, then …" with no word of A or B after the cue: the
        # conjunction a rule's condition states
        for path, node in nodes(formula):
            if isinstance(node, Implies) and isinstance(node.left, And):
                both.append(((*path, 0), Not(node.left), []))
    changes = both or [*changes, *compounds]
    guesses: list[Change] = []
    for path, node in nodes(formula):
        if isinstance(node, Implies) and not isinstance(node.right, Not):
            guesses.append(((*path, 1), Not(node.right), []))
            break
    body_path: Path = ()
    body = formula
    while isinstance(body, Forall | Exists):
        body_path, body = (*body_path, 0), body.body
    if formula.span is not None and not isinstance(formula, Not):
        start = formula.span.start
        guesses.append(((), Not(formula), [(start, start, "¬")]))
    if body_path and not isinstance(body, Not | Implies):  # ∀x ¬(A → B) says "everything is an A"
        guesses.append((body_path, Not(body), []))
    return changes, guesses


def _each_part(formula: Formula, names: tuple[str, ...]) -> list[Change]:
    """Each ¬ over an "and" of `names`' atoms, moved onto every part (De Morgan's slip)."""
    return [
        (path, And(tuple(Not(a) for a in node.body.args)), [])
        for path, node in nodes(formula)
        if isinstance(node, Not)
        and isinstance(node.body, And)
        and {g.name for g in subformulas(node.body) if isinstance(g, Pred)} <= set(names)
    ]


def _neither(formula: Formula) -> list[Change]:
    """Each ¬ over an ⊕ or an ∧, made a ¬ over their ∨: "neither A nor B" as FOLIO writes it."""
    return [
        (path, Not(Or(children(node.body))), [])
        for path, node in nodes(formula)
        if isinstance(node, Not) and isinstance(node.body, Xor | And)
    ]


def _removals(
    text: str, formula: Formula
) -> list[tuple[Path, Formula, list[tuple[int, int, str]]]]:
    changes: list[tuple[Path, Formula, list[tuple[int, int, str]]]] = []
    for path, node in nodes(formula):
        if isinstance(node, Not) and not isinstance(node.body, Eq) and node.span is not None:
            start = node.span.start
            surgery = [(start, start + 1, "")] if text[start : start + 1] in "¬~!" else []
            changes.append((path, node.body, surgery))
    return changes
