"""`restore_conjunct`: put back a word of a list the formula dropped ("loyal and friendly").

From a `word_unsymbolised` finding whose predicate takes one argument: the predicate is added
beside the atom of the word's neighbour, with the same argument — across "and" / "or" (`Loyal(x)`
becomes `Loyal(x) ∧ Friendly(x)` for "loyal and friendly", `∨` for "or"), or right beside it
(`Noninvasive(x) ∧ NeuroimagingTechnique(x)` for "noninvasive neuroimaging technique").
"""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.cues import read_sentence
from refinery.agents.reading.words import content, name_words, same_word
from refinery.agents.repairs.edits import Candidate, RuleTag
from refinery.agents.repairs.located import item_texts, name_uses
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.rewrite import Path, nodes
from refinery.logic.syntax import And, Formula, Or, Pred

TAG = RuleTag("restore_conjunct", ErrorClass.NL_MISMATCH)


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate per list neighbour of each dropped word.

    >>> import dataclasses
    >>> from refinery.agents.alignment import align
    >>> fol = {"premises[0]": "∀x (Retriever(x) → Loyal(x))", "conclusion": "Friendly(max)"}
    >>> nl = {"premises[0]": "All retrievers are loyal and friendly.", "conclusion": "Max is friendly."}
    >>> f = dataclasses.replace(ItemContext("i", "s", fol, nl, None), alignment=align(fol, nl).findings)
    >>> [c[0].after for c in propose(f)]
    ['∀x (Retriever(x) → Loyal(x) ∧ Friendly(x))']
    """
    arity = {u.name: u.arity for t in item_texts(findings) for u in name_uses(t)}
    out: list[Candidate] = []
    for finding, text, formula in flagged(findings, FindingKind.WORD_UNSYMBOLISED):
        (predicate,) = finding.symbols[:1]
        if arity.get(predicate) != 1:
            continue  # a one-place predicate takes its neighbour's argument; others are guesses
        words = read_sentence(findings.nl.get(finding.where, "")).words
        changes = _beside_neighbours(formula, predicate, finding.words, words)
        out += node_edits(TAG, finding, text, formula, changes)
    return best(out)


def _beside_neighbours(
    formula: Formula, predicate: str, phrase: tuple[str, ...], words: tuple[str, ...]
) -> list[tuple[Path, Formula, list[tuple[int, int, str]]]]:
    """The new atom next to each atom whose word neighbours the dropped phrase: across "and" /
    "or" ("loyal and friendly"), or right beside it ("noninvasive neuroimaging technique")."""
    changes: list[tuple[Path, Formula, list[tuple[int, int, str]]]] = []
    n = len(phrase)
    for i in range(len(words) - n + 1):
        if not all(same_word(w, p) for w, p in zip(words[i : i + n], phrase, strict=True)):
            continue
        end = i + n - 1
        neighbours: list[tuple[int, type[And] | type[Or]]] = [(i - 1, And), (end + 1, And)]
        for j, between in ((i - 2, i - 1), (end + 2, end + 1)):
            if 0 <= between < len(words) and words[between] in ("and", "or"):
                neighbours.append((j, And if words[between] == "and" else Or))
        for j, joiner in neighbours:
            if not 0 <= j < len(words):
                continue
            for path, node in nodes(formula):
                if not isinstance(node, Pred) or len(node.args) != 1:
                    continue
                if any(same_word(words[j], w) for w in content(name_words(node.name))):
                    added = Pred(predicate, node.args)
                    pair = (node, added) if j < i else (added, node)
                    changes.append((path, joiner(pair), []))
    return changes
