"""`switch_quantifier`: ∀ where the sentence says "some", ∃ where it says "all" or states a rule.

From a `quantifier` finding (or an `implication_missing` one on `∀x (A(x) ∧ B(x))`, which
may be a "some" read as ∀), switch a binder of the kind the finding names: the binder alone
(`∃x` → `∀x`), then the binder with its body's shape (FOLIO writes `∃x (A(x) ∧ B(x))` but
`∀x (A(x) → B(x))`, so the connective follows the quantifier). A `¬∀` read as "no" moves the
negation in: `¬∀x (A(x) → B(x))` ("not every A is B") becomes `∀x (A(x) → ¬B(x))` ("no A is B").
An `∃y (A → B)` whose B does not use y, in a sentence that states a rule, is the scope slip
`∃y A → B` read with ∃ over the whole rule: the ∃ narrows to the condition
(`(∃y A) → B`, "all things some people enjoy attract attention"). A rule stays a rule: where
the sentence quantifies over everything ("all", "every"), → is never turned into ∧.
"""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.cues import read_sentence
from refinery.agents.repairs.edits import Candidate, RuleTag
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.analysis import var_free_in
from refinery.logic.rewrite import Path, nodes
from refinery.logic.syntax import And, Exists, Forall, Formula, Implies, Not

TAG = RuleTag("switch_quantifier", ErrorClass.WRONG_QUANTIFIER)


def propose(findings: ItemContext) -> list[Candidate]:
    """Candidates for each blaming quantifier finding, likeliest first.

    >>> import dataclasses
    >>> from refinery.agents.alignment import align
    >>> f = ItemContext("i", "s", {"premises[0]": "∃x (Cat(x) ∧ Pet(x))", "conclusion": "Pet(tom)"},
    ...              {"premises[0]": "All cats are pets."}, None)
    >>> f = dataclasses.replace(f, alignment=align(f.fol, f.nl).findings)
    >>> [c[0].after for c in propose(f)]
    ['∀x (Cat(x) ∧ Pet(x))', '∀x (Cat(x) → Pet(x))']
    """
    out: list[Candidate] = []
    for finding, text, formula in flagged(
        findings, FindingKind.QUANTIFIER, FindingKind.IMPLICATION_MISSING
    ):
        if finding.kind == FindingKind.IMPLICATION_MISSING and finding.symbols != ("∧",):
            continue  # only ∀x (A ∧ B): "everything is an A" may be a "some" read as ∀
        wrong = Exists if "∃" in finding.symbols else Forall
        changes = _switches(text, formula, wrong)
        said = read_sentence(findings.nl.get(finding.where, ""))
        # not "if something …" nor "all things that some …": those are rules
        some = said.existential and not said.conditional and not said.universal
        if "→" in finding.symbols and not some:
            changes = _narrowed(formula) + changes
        if "→" in finding.symbols and some:  # ∃x (A → B): "some A are B" wants ∃x (A ∧ B)
            changes += [
                (path, Exists(node.var, And((node.body.left, node.body.right))), [])
                for path, node in nodes(formula)
                if isinstance(node, Exists) and isinstance(node.body, Implies)
            ]
        out += node_edits(TAG, finding, text, formula, changes)
    return best(out)


def _narrowed(formula: Formula) -> list[tuple[Path, Formula, list[tuple[int, int, str]]]]:
    """`∃y ∃z (A → B)` with y, z not in B narrowed to `(∃y ∃z A) → B`, for each outermost ∃ chain.

    >>> from refinery.logic.parse import parse
    >>> [(p, new.left) for p, new, _ in _narrowed(parse("∀x (∃y ∃z (E(y, z, x) → A(x)))"))]
    [((0,), Exists(var='y', body=Exists(var='z', body=Pred(name='E', args=(Var(name='y'), Var(name='z'), Var(name='x'))))))]
    """
    out: list[tuple[Path, Formula, list[tuple[int, int, str]]]] = []
    inner: set[Path] = set()
    for path, node in nodes(formula):
        if not isinstance(node, Exists) or path in inner:
            continue
        chain: list[str] = []
        body: Formula = node
        while isinstance(body, Exists):
            chain.append(body.var)
            body = body.body
        inner.update((*path, *(0,) * k) for k in range(1, len(chain)))
        if isinstance(body, Implies) and not any(var_free_in(body.right, v) for v in chain):
            left = body.left
            for var in reversed(chain):
                left = Exists(var, left)
            # the annotator's text with the ∃ chain and its condition bracketed, where known
            cut = body.left.span.end if body.left.span is not None else None
            surgery = (
                []
                if node.span is None or cut is None
                else [(node.span.start, node.span.start, "("), (cut, cut, ")")]
            )
            out.append((path, Implies(left, body.right), surgery))
    return out


def _switches(
    text: str, formula: Formula, wrong: type[Forall] | type[Exists]
) -> list[tuple[Path, Formula, list[tuple[int, int, str]]]]:
    right = Forall if wrong is Exists else Exists
    plain: list[tuple[Path, Formula, list[tuple[int, int, str]]]] = []
    reshaped: list[tuple[Path, Formula, list[tuple[int, int, str]]]] = []
    for path, node in nodes(formula):
        if not isinstance(node, wrong) or node.span is None:
            continue
        start = node.span.start
        symbol = "∀" if right is Forall else "∃"
        surgery = [(start, start + 1, symbol)] if text[start : start + 1] in "∀∃" else []
        plain.append((path, right(node.var, node.body), surgery))
        body = node.body
        if right is Forall and isinstance(body, And) and len(body.args) >= 2:
            condition = body.args[0] if len(body.args) == 2 else And(body.args[:-1])
            reshaped.append((path, Forall(node.var, Implies(condition, body.args[-1])), []))
        elif right is Exists and isinstance(body, Implies):
            reshaped.append((path, Exists(node.var, And((body.left, body.right))), []))
    if wrong is Exists:  # an effective ∃: ¬∀ where the sentence says "no"
        for path, node in nodes(formula):
            if isinstance(node, Not) and isinstance(node.body, Forall):
                inner = node.body
                body = inner.body
                moved: Formula = (
                    Implies(body.left, Not(body.right)) if isinstance(body, Implies) else Not(body)
                )
                reshaped.append((path, Forall(inner.var, moved), []))
    return plain + reshaped
