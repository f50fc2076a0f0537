"""The check stage: parse, lint, ask every prover three questions, decide, categorise.

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

`check_items` runs stories in worker processes and returns one row per item (input order) with
the columns documented in `CATEGORIES` and `check_items`. Its steps are public for runs on a
cluster: `plan_check` (the driver answers unchanged stories from its cache), `check_batch` (a
worker checks whole stories, writing no cache) and `CheckPlan.add` / `finish` (the driver, the
only writer, stores each batch's rows and verdicts). For datasets with their own reasoning
semantics (ProofWriter: forward chaining) it then adds that semantics' label and refines the
category (`apply_dataset_semantics`). Provers are built inside each worker by an injected,
picklable `prover_factory(names) -> list[Prover]`, which keeps this core free of the backends'
packages.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from refinery.datasets import dataset_labels
from refinery.datasets.records import Item
from refinery.labels import Label
from refinery.logic.analysis import negation
from refinery.logic.diagnostics import Issue
from refinery.logic.errors import SyntaxProblem
from refinery.logic.lint import lint
from refinery.logic.parse import Parsed, try_parse
from refinery.logic.syntax import Formula
from refinery.parallel import code_hash, from_cache, in_input_order, run_stories
from refinery.prove.cache import TABLE as VERDICT_TABLE
from refinery.prove.cache import VerdictCache, problem_key, problem_keys
from refinery.prove.decide import Agreement, combine, decide, needs_consistency
from refinery.prove.evidence import ModelVerdict, evidence_detail, evidence_lines, wanted_models
from refinery.prove.verdict import Budget, ModelFinder, Problem, Prover, Status, Verdict
from refinery.store import JsonStore, this_host, worker_view

#: Item categories, in the order they are tested: the first that applies wins.
CATEGORIES = (
    "parse_error",  # some premise or the conclusion does not parse: no prover was run
    "lint_error",  # parses, but a lint error (arity clash, free variable …) makes the FOL ill-formed
    # dataset semantics only (ProofWriter): the dataset's own reasoning contradicts the gold label
    "label_error_candidate",
    "prover_disagreement",  # two provers reached different definite labels
    "undecided",  # some prover timed out, gave up or failed, so no label counts
    "inconsistent",  # both provers: the premises contradict each other
    "verified",  # both provers derive the gold label
    # dataset semantics only: gold Uncertain, which the dataset's own reasoning reproduces, but
    # both provers decide True/False (classical logic decides more, e.g. by contraposition)
    "semantics_mismatch",
    "label_mismatch",  # both provers agree on a label that differs from the gold label
)

#: The categories only `dataset_category` gives (items whose dataset has its own semantics).
DATASET_CATEGORIES = ("label_error_candidate", "semantics_mismatch")

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
    premises: list[Formula | None] = []
    problems: list[SyntaxProblem] = []
    notation: list[str] = []
    fields = [(f"premises[{i}]", text) for i, text in enumerate(item.premises_fol)]
    fields.append(("conclusion", item.conclusion_fol or ""))
    if not item.premises_fol:
        problems.append(SyntaxProblem("premises", 1, 1, "end of formula", (), "empty", ""))
    results: list[Formula | None] = []
    for where, text in fields:
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
    formulas = [(f"premises[{i}]", f) for i, f in enumerate(p.premises) if f is not None]
    assert p.conclusion is not None
    formulas.append(("conclusion", p.conclusion))
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

    def check_story(self, items: Sequence[Item]) -> list[dict[str, Any]]:
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
    ) -> dict[str, Any]:
        item = p.item
        found = lint_item(p)
        issues = [
            f"{sp.field}:{sp.line}:{sp.column}: error: syntax: {sp.message}" for sp in p.problems
        ]
        issues += [i.render() for i in found]
        lint_errors = sum(1 for i in found if i.severity == "error")
        labels: dict[str, Label] = {}
        row: dict[str, Any] = {
            "id": item.id,
            "dataset": item.dataset,
            "split": item.split,
            "story_id": item.story_id,
            "example_id": item.example_id,
            "gold_label": item.label.value if item.label else "",
        }
        detail: dict[str, Any] = {}
        prover_seconds = 0.0
        all_cached = bool(per_prover)
        for prover in self.provers:
            trio = per_prover.get(prover.name)
            if trio is None:
                row[f"label_{prover.name}"] = ""
                row[f"status_{prover.name}"] = ""
                row[f"seconds_{prover.name}"] = 0.0
                continue
            axioms, pos, neg = trio
            label = decide(axioms.status, pos.status, neg.status)
            labels[prover.name] = label
            row[f"label_{prover.name}"] = label.value
            row[f"status_{prover.name}"] = "/".join(v.status.value for v in trio)
            row[f"seconds_{prover.name}"] = round(pos.elapsed + neg.elapsed, 6)
            fresh = [0.0 if v.cached else v.elapsed for v in trio]
            prover_seconds += fresh[0] / sharing + fresh[1] + fresh[2]
            all_cached = all_cached and all(v.cached for v in trio)
            detail[prover.name] = {
                q: {
                    "status": v.status.value,
                    "raw": v.raw,
                    "seconds": round(v.elapsed, 6),
                    "version": v.version,
                    "model": (v.model or "")[:1000],
                }
                for q, v in zip(("axioms", "pos", "neg"), trio, strict=True)
            }
        agreed, agreement = combine(labels) if labels else (None, Agreement.UNDECIDED)
        models = self._models(p, agreed) if p.ok and lint_errors == 0 else []
        for m in models:
            detail.setdefault(m.verdict.prover, {})[f"model:{m.direction}"] = {
                "status": m.verdict.status.value,
                "raw": m.verdict.raw,
                "seconds": round(m.verdict.elapsed, 6),
                "version": m.verdict.version,
                "model": "",
            }
            prover_seconds += 0.0 if m.verdict.cached else m.verdict.elapsed
        row["label"] = agreed.value if agreed else ""
        row["agreement"] = agreement.value if labels else ""
        row["category"] = categorise(p.ok, lint_errors > 0, agreed, agreement, item.label)
        row["issues"] = "\n".join(issues)
        row["n_issues"] = len(issues)
        row["notation"] = "\n".join(p.notation)
        lines = evidence_lines(agreed, per_prover, models, p.conclusion) if self.evidence else []
        row["evidence"] = "\n".join(lines)
        row["content_hash"] = item.content_hash
        row["cached"] = all_cached
        row["prover_seconds"] = round(prover_seconds, 6)
        row["seconds"] = round(seconds, 6)
        row["verdicts"] = json.dumps(detail, ensure_ascii=False)
        why = evidence_detail(per_prover, models) if self.evidence else {}
        row["evidence_detail"] = json.dumps(why, ensure_ascii=False)
        return row


def _not_asked(prover: Prover) -> Verdict:
    """The verdict of a skipped consistency question: no work done, so it counts as cached."""
    return Verdict(prover.name, Status.NOT_ASKED, 0.0, version=prover.version(), cached=True)


def categorise(
    parsed: bool, lint_error: bool, label: Label | None, agreement: Agreement, gold: Label | None
) -> str:
    """The item's category from the provers: the first rule of `CATEGORIES` that applies.

    The two dataset-semantics categories are never returned here; `dataset_category` derives
    them afterwards for datasets with their own semantics.
    """
    if not parsed:
        return "parse_error"
    if lint_error:
        return "lint_error"
    if agreement is Agreement.DISAGREE:
        return "prover_disagreement"
    if label is None:
        return "undecided"
    if label is Label.INCONSISTENT:
        return "inconsistent"
    if label is Label.UNKNOWN:  # pragma: no cover - combine never agrees on Unknown
        return "undecided"
    return "verified" if label == gold else "label_mismatch"


def dataset_category(
    category: str, label: Label | None, gold: Label | None, dataset_label: Label
) -> str:
    """Refine a category with the label of the dataset's own semantics (see `CATEGORIES`).

    Parse and lint errors stay; otherwise a dataset label other than the gold label makes a
    `label_error_candidate`, and a `label_mismatch` where gold and dataset say Uncertain but the
    provers agree on True/False becomes a `semantics_mismatch`. Anything else is unchanged.

    >>> dataset_category("label_mismatch", Label.FALSE, Label.UNCERTAIN, Label.UNCERTAIN)
    'semantics_mismatch'
    >>> dataset_category("verified", Label.TRUE, Label.TRUE, Label.UNCERTAIN)
    'label_error_candidate'
    """
    if category in ("parse_error", "lint_error") or gold is None:
        return category
    if dataset_label != gold:
        return "label_error_candidate"
    if (
        category == "label_mismatch"
        and gold is Label.UNCERTAIN
        and label in (Label.TRUE, Label.FALSE)
    ):
        return "semantics_mismatch"
    return category


def apply_dataset_semantics(
    rows: Sequence[dict[str, Any]], items: Sequence[Item]
) -> list[dict[str, Any]]:
    """Add `label_dataset` (after `agreement`) and refine `category` with `dataset_category`.

    Only when some item's dataset has its own semantics (`refinery.datasets.dataset_labels`);
    then items without one get `label_dataset` "" and keep their category. Otherwise the rows
    come back unchanged, so FOLIO output has no new column.
    """
    labels = dataset_labels(items)
    if not labels:
        return list(rows)
    gold = {it.id: it.label for it in items}
    out = []
    for row in rows:
        ours = labels.get(row["id"])
        new: dict[str, Any] = {}
        for key, value in row.items():
            new[key] = value
            if key == "agreement":
                new["label_dataset"] = ours.value if ours else ""
        if ours is not None:
            agreed = Label(row["label"]) if row["label"] else None
            new["category"] = dataset_category(row["category"], agreed, gold[row["id"]], ours)
        out.append(new)
    return out


# -- driver and batches ----------------------------------------------------------------------------


def group_stories(items: Iterable[Item]) -> list[list[Item]]:
    """Items grouped by story id, largest story first (better load balance across workers)."""
    stories: dict[tuple[str, str, str], list[Item]] = {}
    for it in items:
        stories.setdefault((it.dataset, it.split, it.story_id), []).append(it)
    return sorted(stories.values(), key=len, reverse=True)


@dataclass(frozen=True, slots=True)
class CheckJob:
    """What a check batch needs besides its stories; picklable, it travels to every worker.

    `cache_path` is the driver's verdict cache: a worker on the driver's `host` reads it, a
    worker elsewhere proves afresh, and none writes it (`refinery.store.worker_view`).
    `evidence` is `Checker.evidence`.
    """

    prover_factory: ProverFactory
    prover_names: tuple[str, ...]
    budget: Budget
    cache_path: Path | None = None
    host: str = field(default_factory=this_host)
    evidence: bool = True


@dataclass(frozen=True, slots=True)
class CheckBatch:
    """A batch's rows and the verdicts it proved, which the driver stores."""

    rows: list[dict[str, Any]]
    verdicts: list[tuple[str, str]]


@lru_cache(maxsize=8)
def worker_provers(factory: ProverFactory, names: tuple[str, ...], thread: int) -> list[Prover]:
    """The provers of one worker thread, built once (the E and Z3 versions are asked once)."""
    return factory(names)


def check_batch(stories: Sequence[Sequence[Item]], job: CheckJob) -> CheckBatch:
    """Check whole stories on a worker; never writes a cache (see `CheckJob`)."""
    cache = VerdictCache(None, store=worker_view(job.cache_path, VERDICT_TABLE, job.host))
    provers = worker_provers(job.prover_factory, job.prover_names, threading.get_ident())
    checker = Checker(provers, job.budget, cache, job.evidence)
    rows = [row for story in stories for row in checker.check_story(story)]
    cache.close()
    return CheckBatch(rows, cache.recorded())


@dataclass
class CheckPlan:
    """A check run as the driver sees it: cached rows, the stories to check, and the one writer.

    `plan_check` answers unchanged stories from the row cache; each finished batch goes to
    `add`, which stores its rows and verdicts at once; `finish` returns every row.
    """

    items: Sequence[Item]
    job: CheckJob
    keys: dict[str, str]
    pending: list[list[Item]]
    rows: list[dict[str, Any]]
    row_store: JsonStore
    verdicts: VerdictCache
    on_progress: Callable[[int], None] | None = None

    def add(self, batch: CheckBatch) -> None:
        """Keep a batch's rows; store its verdicts and its rows (a row with a prover error is
        not kept: the error may be transient)."""
        self.verdicts.put_raw(batch.verdicts)
        self.row_store.put_many(
            (self.keys[row["id"]], row)
            for row in batch.rows
            if '"status": "Error"' not in row["verdicts"]
        )
        self.rows += batch.rows
        if self.on_progress:
            self.on_progress(len(batch.rows))

    def finish(self) -> list[dict[str, Any]]:
        """Every row in input order, with the dataset's own semantics (`apply_dataset_semantics`)."""
        self.row_store.close()
        self.verdicts.close()
        rows = in_input_order(self.rows, [it.id for it in self.items])
        return apply_dataset_semantics(rows, self.items)


def plan_check(
    items: Sequence[Item],
    *,
    prover_factory: ProverFactory,
    prover_names: Sequence[str],
    budget: Budget,
    cache_path: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
    evidence: bool = True,
) -> CheckPlan:
    """Answer unchanged stories from the row cache; the rest become `pending` stories."""
    verdicts = VerdictCache(cache_path)
    verdicts.prepare()
    row_store = JsonStore(cache_path.with_name("rows.sqlite") if cache_path else None, "rows")
    row_store.prepare()
    keys = {it.id: row_key(it, prover_names, budget, evidence) for it in items}
    cached, pending = from_cache(
        group_stories(items), row_store, lambda it, _: keys[it.id], on_progress
    )
    job = CheckJob(prover_factory, tuple(prover_names), budget, cache_path, evidence=evidence)
    return CheckPlan(
        items,
        job,
        keys,
        [[it for it, _ in story] for story in pending],
        [{**r, "cached": True} for r in cached],
        row_store,
        verdicts,
        on_progress,
    )


def check_items(
    items: Sequence[Item],
    *,
    prover_factory: ProverFactory,
    prover_names: Sequence[str],
    budget: Budget,
    workers: int = 1,
    cache_path: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
    evidence: bool = True,
) -> list[dict[str, Any]]:
    """Check every item on this machine; rows come back in input order.

    The steps a cluster run takes one by one (`plan_check`, `check_batch` per batch,
    `CheckPlan.add`, `CheckPlan.finish`), with a story per batch on a local pool.

    Parameters
    ----------
    items:
        Loaded items (any mix of datasets and splits).
    prover_factory, prover_names:
        `prover_factory(prover_names)` builds the provers inside each worker.
    budget:
        Per-question limits.
    workers:
        Worker processes; 1 runs in this process.
    cache_path:
        SQLite verdict cache file; None disables caching.
    on_progress:
        Called with the number of items finished after each story.
    evidence:
        Say why (see `Checker.evidence`); off, `evidence` is empty and checking is cheaper.

    Returns
    -------
    list[dict]
        One row per item: `id, dataset, split, story_id, example_id, gold_label`;
        per prover `label_<p>` (decided label), `status_<p>` (axioms/pos/neg SZS statuses) and
        `seconds_<p>`; `label` (agreed label or ""), `agreement`, `label_dataset` (only when
        some item's dataset has its own semantics, see `apply_dataset_semantics`: that label,
        "" for other items), `category` (see `CATEGORIES`),
        `issues` (one rendered issue per line), `n_issues`, `notation` (normalisations applied),
        `evidence` (why: one line per proof or countermodel, see `refinery.prove.evidence`),
        `content_hash`, `cached` (every verdict came from the cache), `prover_seconds` (fresh
        prover time for the item, the shared consistency question split across its items),
        `seconds` (wall time share), `verdicts` (JSON with every raw answer) and
        `evidence_detail` (JSON: every core per prover and question, every countermodel).
    """
    plan = plan_check(
        items,
        prover_factory=prover_factory,
        prover_names=prover_names,
        budget=budget,
        cache_path=cache_path,
        on_progress=on_progress,
        evidence=evidence,
    )
    for batch in run_stories(plan.pending, partial(check_batch, job=plan.job), workers=workers):
        plan.add(batch)
    return plan.finish()


@lru_cache(maxsize=1)
def check_code_version() -> str:
    """A hash of the code that decides a check row (logic, provers, datasets, this module)."""
    root = Path(__file__).resolve().parent
    return code_hash(root, ("logic", "prove", "datasets"), ("check.py",), (".py", ".lark"))


def row_key(item: Item, prover_names: Sequence[str], budget: Budget, evidence: bool = True) -> str:
    """What a check row depends on: the item's identity and content, the provers, the budget."""
    payload = [
        check_code_version(),
        item.id,
        item.content_hash,
        list(prover_names),
        budget.seconds,
        budget.rlimit,
        evidence,
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()
