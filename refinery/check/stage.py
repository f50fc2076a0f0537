"""The check stage's work on one story: parse, lint, ask every prover three questions, decide.

Work is done per story, because the items of a story share their premises: the consistency of a
premise set is asked once, and only where the directions leave the label open
(`refinery.prove.decide.needs_consistency`); identical questions are asked once (the negation of
a conclusion ``¬φ`` is asked as ``φ``, so "X" and "not X" share their two questions), and the Z3
backend answers all of a story's questions on one solver. Each prover's verdicts go through the
content-hash cache, so an unchanged item costs a lookup.

Every row says why (`refinery.prove.evidence`): the premises each prover's proof used, and for
an item whose provers say Uncertain against a gold True or False, a small countermodel from the
first model finder among the provers (Vampire's finite model builder, else Z3), asked once per
item and cached like any verdict.

`Checker.check_story` returns one `CheckRow` per item with its `Category`; for datasets with
their own reasoning semantics (ProofWriter: forward chaining) `apply_dataset_semantics` then
adds that semantics' label and refines the category. Provers are built by an injected, picklable
`prover_factory(names) -> list[Prover]`, which keeps this core free of the backends' packages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from refinery.addresses import CONCLUSION, premise
from refinery.check.row import CheckRow, ProverColumns
from refinery.datasets import dataset_labels
from refinery.datasets.records import Item
from refinery.labels import Label
from refinery.logic.analysis import negation
from refinery.logic.diagnostics import Issue
from refinery.logic.errors import SyntaxProblem
from refinery.logic.lint import lint
from refinery.logic.parse import Parsed, try_parse
from refinery.logic.syntax import Formula
from refinery.outcomes import Category
from refinery.prove.cache import VerdictCache, problem_key, problem_keys
from refinery.prove.decide import Agreement, combine, decide, needs_consistency
from refinery.prove.evidence import ModelVerdict, evidence_detail, evidence_lines, wanted_models
from refinery.prove.verdict import Budget, ModelFinder, Problem, Prover, Status, Verdict

#: Item categories, in the order they are tested: the first that applies wins.
CATEGORIES: tuple[Category, ...] = tuple(Category)

#: The categories only `dataset_category` gives (items whose dataset has its own semantics).
DATASET_CATEGORIES: tuple[Category, ...] = tuple(c for c in Category if c.of_dataset)

ProverFactory = Callable[[Sequence[str]], list[Prover]]

#: Model finders in order of preference: Vampire's finite model builder, then Z3's search.
MODEL_FINDERS = ("vampire", "z3")


@dataclass(frozen=True, slots=True)
class ParsedItem:
    """An item's formulas after parsing; None where a formula did not parse."""

    item: Item
    premises: tuple[Formula | None, ...]
    conclusion: Formula | None
    problems: tuple[SyntaxProblem, ...]
    notation: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def parse_item(item: Item) -> ParsedItem:
    """Parse every premise and the conclusion, naming fields `premises[i]` and `conclusion`."""
    problems: list[SyntaxProblem] = []
    notation: list[str] = []
    if not item.premises_fol:
        problems.append(SyntaxProblem("premises", 1, 1, "end of formula", (), "empty", ""))
    results: list[Formula | None] = []
    for where, text in item.formulas().items():
        res = try_parse(text, field=where)
        if isinstance(res, Parsed):
            results.append(res.formula)
            notation.extend(f"{where}:{n}" for n in res.notation)
        else:
            results.append(None)
            problems.append(res)
    premises = results[:-1]
    return ParsedItem(item, tuple(premises), results[-1], tuple(problems), tuple(notation))


def lint_item(p: ParsedItem) -> list[Issue]:
    """Lint issues of a parsed item (none when some formula did not parse)."""
    if not p.ok:
        return []
    formulas = [(premise(i), f) for i, f in enumerate(p.premises) if f is not None]
    assert p.conclusion is not None
    formulas.append((CONCLUSION, p.conclusion))
    return lint(
        formulas,
        nl_premises=len(p.item.premises),
        fol_premises=len(p.item.premises_fol),
        item_id=p.item.id,
    )


@dataclass
class Checker:
    """Answers the three questions for every item of a story with each prover, through a cache."""

    provers: list[Prover]
    budget: Budget
    cache: VerdictCache = field(default_factory=lambda: VerdictCache(None))
    #: say why (cores, countermodels, the `evidence` column); off, only the labels are decided
    evidence: bool = True

    @property
    def model_finders(self) -> list[ModelFinder]:
        """Our provers that find countermodels, in the order of `MODEL_FINDERS`."""
        finders = {p.name: p for p in self.provers if isinstance(p, ModelFinder)}
        return [finders[n] for n in MODEL_FINDERS if n in finders]

    def _models(self, p: ParsedItem, label: Label | None) -> list[ModelVerdict]:
        """Countermodels for the directions `wanted_models` names, through the cache.

        Each direction asks the finders in turn until one shows a model (Vampire's builder
        sometimes settles a problem in preprocessing and prints no model).
        """
        wanted = wanted_models(label, p.item.label) if self.evidence else ()
        if not wanted or p.conclusion is None:
            return []
        axioms = tuple(f for f in p.premises if f is not None)
        found = []
        for direction in wanted:
            goal = p.conclusion if direction == "pos" else negation(p.conclusion)
            problem = Problem(axioms, goal)
            for finder in self.model_finders:
                key = problem_key(f"{finder.name}:model", finder.version(), self.budget, problem)
                verdict = self.cache.get(key)
                if verdict is None:
                    verdict = finder.find_model(problem, self.budget)
                    self.cache.put(key, verdict)
                found.append(ModelVerdict(direction, verdict))
                if verdict.countermodel is not None:
                    break
        return found

    def _ask(
        self, prover: Prover, axioms: tuple[Formula, ...], goals: list[Formula | None]
    ) -> list[Verdict]:
        version = prover.version()
        # verdicts with and without evidence are different answers: key them apart
        name = prover.name if self.evidence else f"{prover.name}:labels"
        keys = problem_keys(name, version, self.budget, axioms, goals)
        out: list[Verdict | None] = [self.cache.get(k) for k in keys]
        missing = [i for i, v in enumerate(out) if v is None]
        if missing:
            many = getattr(prover, "check_many", None)
            if many is not None:
                # the raw models are not rendered: the evidence is `_models`' small countermodel
                asked = [goals[i] for i in missing]
                fresh = many(axioms, asked, self.budget, cores=self.evidence, models=False)
            else:
                fresh = [prover.check(Problem(axioms, goals[i]), self.budget) for i in missing]
            for i, verdict in zip(missing, fresh, strict=True):
                out[i] = verdict
            self.cache.put_many(zip((keys[i] for i in missing), fresh, strict=True))
        return [v for v in out if v is not None]

    def _asks_consistency(self, pos: Status, neg: Status) -> bool:
        """Ask whether the premises are consistent only where the answer can matter: where
        the directions leave the label open, or (with evidence) to show a contradiction
        between the premises alone, which explains an inconsistent item best."""
        if needs_consistency(pos, neg):
            return True
        return self.evidence and decide(Status.NOT_ASKED, pos, neg) is Label.INCONSISTENT

    def check_story(self, items: Sequence[Item]) -> list[CheckRow]:
        """One row per item, in the given order."""
        started = time.perf_counter()
        parsed = [parse_item(it) for it in items]
        # items of a story usually, but not always, share the exact same premises
        groups: dict[tuple[Formula, ...], list[ParsedItem]] = {}
        for p in parsed:
            if p.ok:
                groups.setdefault(tuple(f for f in p.premises if f is not None), []).append(p)
        verdicts: dict[str, dict[str, tuple[Verdict, Verdict, Verdict]]] = {}
        sharing: dict[str, int] = {}  # how many items share the item's consistency question
        for axioms, members in groups.items():
            sharing.update((m.item.id, len(members)) for m in members)
            conclusions = [m.conclusion for m in members if m.conclusion is not None]
            goals: list[Formula | None] = []
            for c in conclusions:
                goals += [c, negation(c)]
            unique = list(dict.fromkeys(goals))
            for prover in self.provers:
                answers = dict(zip(unique, self._ask(prover, axioms, unique), strict=True))
                directions = [(answers[c], answers[negation(c)]) for c in conclusions]
                if any(self._asks_consistency(pos.status, neg.status) for pos, neg in directions):
                    consistency = self._ask(prover, axioms, [None])[0]
                else:
                    consistency = _not_asked(prover)
                for m, (pos, neg) in zip(members, directions, strict=True):
                    verdicts.setdefault(m.item.id, {})[prover.name] = (consistency, pos, neg)
        elapsed = (time.perf_counter() - started) / max(1, len(items))
        return [
            self._row(p, verdicts.get(p.item.id, {}), sharing.get(p.item.id, 1), elapsed)
            for p in parsed
        ]

    def _row(
        self,
        p: ParsedItem,
        per_prover: dict[str, tuple[Verdict, Verdict, Verdict]],
        sharing: int,
        seconds: float,
    ) -> CheckRow:
        item = p.item
        found = lint_item(p)
        issues = [
            f"{sp.field}:{sp.line}:{sp.column}: error: syntax: {sp.message}" for sp in p.problems
        ]
        issues += [i.render() for i in found]
        lint_errors = sum(1 for i in found if i.severity == "error")
        labels: dict[str, Label] = {}
        columns: list[ProverColumns] = []
        detail: dict[str, dict[str, dict[str, object]]] = {}
        prover_seconds = 0.0
        all_cached = bool(per_prover)
        for prover in self.provers:
            trio = per_prover.get(prover.name)
            if trio is None:
                columns.append(ProverColumns(prover.name))
                continue
            axioms, pos, neg = trio
            label = decide(axioms.status, pos.status, neg.status)
            labels[prover.name] = label
            status = "/".join(v.status.value for v in trio)
            columns.append(
                ProverColumns(prover.name, label.value, status, round(pos.elapsed + neg.elapsed, 6))
            )
            fresh = [0.0 if v.cached else v.elapsed for v in trio]
            prover_seconds += fresh[0] / sharing + fresh[1] + fresh[2]
            all_cached = all_cached and all(v.cached for v in trio)
            detail[prover.name] = {
                q: _answer(v, (v.model or "")[:1000])
                for q, v in zip(("axioms", "pos", "neg"), trio, strict=True)
            }
        agreed, agreement = combine(labels) if labels else (None, Agreement.UNDECIDED)
        models = self._models(p, agreed) if p.ok and lint_errors == 0 else []
        for m in models:
            detail.setdefault(m.verdict.prover, {})[f"model:{m.direction}"] = _answer(m.verdict, "")
            prover_seconds += 0.0 if m.verdict.cached else m.verdict.elapsed
        lines = evidence_lines(agreed, per_prover, models, p.conclusion) if self.evidence else []
        return CheckRow(
            id=item.id,
            dataset=item.dataset,
            split=item.split,
            story_id=item.story_id,
            example_id=item.example_id,
            gold_label=item.label.value if item.label else "",
            provers=tuple(columns),
            label=agreed.value if agreed else "",
            agreement=agreement.value if labels else "",
            category=categorise(p.ok, lint_errors > 0, agreed, agreement, item.label),
            issues="\n".join(issues),
            n_issues=len(issues),
            notation="\n".join(p.notation),
            evidence="\n".join(lines),
            content_hash=item.content_hash,
            cached=all_cached,
            prover_seconds=round(prover_seconds, 6),
            seconds=round(seconds, 6),
            verdicts=detail,
            evidence_detail=evidence_detail(per_prover, models) if self.evidence else {},
        )


def _answer(verdict: Verdict, model: str) -> dict[str, object]:
    """One question's answer as the row's `verdicts` keep it."""
    return {
        "status": verdict.status.value,
        "raw": verdict.raw,
        "seconds": round(verdict.elapsed, 6),
        "version": verdict.version,
        "model": model,
    }


def _not_asked(prover: Prover) -> Verdict:
    """The verdict of a skipped consistency question: no work done, so it counts as cached."""
    return Verdict(prover.name, Status.NOT_ASKED, 0.0, version=prover.version(), cached=True)


def categorise(
    parsed: bool, lint_error: bool, label: Label | None, agreement: Agreement, gold: Label | None
) -> Category:
    """The item's category from the provers: the first rule of `Category` that applies.

    The two dataset-semantics categories are never returned here; `dataset_category` derives
    them afterwards for datasets with their own semantics.
    """
    if not parsed:
        return Category.PARSE_ERROR
    if lint_error:
        return Category.LINT_ERROR
    if agreement is Agreement.DISAGREE:
        return Category.PROVER_DISAGREEMENT
    if label is None:
        return Category.UNDECIDED
    if label is Label.INCONSISTENT:
        return Category.INCONSISTENT
    if label is Label.UNKNOWN:  # pragma: no cover - combine never agrees on Unknown
        return Category.UNDECIDED
    return Category.VERIFIED if label == gold else Category.LABEL_MISMATCH


def dataset_category(
    category: Category, label: Label | None, gold: Label | None, dataset_label: Label
) -> Category:
    """Refine a category with the label of the dataset's own semantics (see `Category`).

    Parse and lint errors stay; otherwise a dataset label other than the gold label makes a
    `label_error_candidate`, and a `label_mismatch` where gold and dataset say Uncertain but the
    provers agree on True/False becomes a `semantics_mismatch`. Anything else is unchanged.

    >>> dataset_category(Category.LABEL_MISMATCH, Label.FALSE, Label.UNCERTAIN, Label.UNCERTAIN)
    <Category.SEMANTICS_MISMATCH: 'semantics_mismatch'>
    >>> dataset_category(Category.VERIFIED, Label.TRUE, Label.TRUE, Label.UNCERTAIN)
    <Category.LABEL_ERROR_CANDIDATE: 'label_error_candidate'>
    """
    if category in (Category.PARSE_ERROR, Category.LINT_ERROR) or gold is None:
        return category
    if dataset_label != gold:
        return Category.LABEL_ERROR_CANDIDATE
    if (
        category is Category.LABEL_MISMATCH
        and gold is Label.UNCERTAIN
        and label in (Label.TRUE, Label.FALSE)
    ):
        return Category.SEMANTICS_MISMATCH
    return category


def apply_dataset_semantics(rows: Sequence[CheckRow], items: Sequence[Item]) -> list[CheckRow]:
    """Set `label_dataset` and refine `category` with `dataset_category`.

    Only when some item's dataset has its own semantics (`refinery.datasets.dataset_labels`);
    then items without one get `label_dataset` "" and keep their category. Otherwise the rows
    come back unchanged, so FOLIO output has no such column.
    """
    labels = dataset_labels(items)
    if not labels:
        return list(rows)
    gold = {it.id: it.label for it in items}
    out = []
    for row in rows:
        ours = labels.get(row.id)
        if ours is None:
            out.append(row.replace(label_dataset=""))
            continue
        agreed = Label(row.label) if row.label else None
        category = dataset_category(row.category, agreed, gold[row.id], ours)
        out.append(row.replace(label_dataset=ours.value, category=category))
    return out
