"""The Refine run's steps as plain functions, so flow tasks stay thin wrappers.

`RefineSettings` carries every option of a run (it is the flow's one parameter); the functions
below load, repair (`refinery.repair`, per item), write the refined split and review queue, write
the report and summarise. Nothing here imports Prefect.

The run folder is built aside (`refinery.runs.building`, around the writing steps) and appears
under its name only when `finish_run` renames it into place after the report and the comparison
with the previous run: a run that fails removes its staging folder, and one killed half-way
leaves only that hidden folder, which later runs and `publish` never take for a run.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from refinery import config, runs
from refinery.agents.endpoint import LLMEndpoint
from refinery.check import CheckRow, ProverFactory
from refinery.datasets.records import Item, LoadResult
from refinery.errors import LLMTransportError
from refinery.outcomes import Outcome, edit_rows, outcome_counts, summary_table
from refinery.parallel import TaskRunnerSpec, check_task_runner, parse_task_runner
from refinery.progress import Stage, no_progress
from refinery.prove.verdict import Budget
from refinery.repair import RepairConfig, check_agents, repair_items
from refinery.runs.refined import check_input_columns, refined_rows

if TYPE_CHECKING:
    from refinery.runs.changes import Changes

#: Run ids this process has handed out, so two ids from one process never collide.
_issued: set[str] = set()


def new_run_id(now: dt.datetime | None = None) -> str:
    """A unique run id that sorts by start time, e.g. 20261122-011530-3f9a.

    The random suffix keeps runs started in the same second apart (in other processes too:
    there, `refinery.runs.claim` turns the rare clash into an error, never an overwrite).
    """
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%d-%H%M%S")
    while (run_id := f"{stamp}-{secrets.token_hex(2)}") in _issued:
        pass
    _issued.add(run_id)
    return run_id


class RefineSettings(BaseModel):
    """Every option of one Refine run (the flow's parameter)."""

    model_config = ConfigDict(frozen=True)

    source: str
    out_dir: str | None = None  # default: <runs_dir>/<dataset>/<split>/<run_id>
    runs_dir: str | None = None  # parent of the per-split run folders; default: data/refined
    review_path: str | None = None  # default: review/<dataset>-<split>.csv
    # the rules carry the product; the LLM critic is opt-in (`--agents rules,llm`)
    agents: Annotated[tuple[str, ...], AfterValidator(check_agents)] = ("rules",)
    llm: str = ""  # the llm agent's endpoint: a base URL, "embedded", or "" for OPENAI_BASE_URL
    max_rounds: int = Field(default=3, ge=1, le=10)
    llm_rounds: int = Field(default=1, ge=0, le=10)
    # wall-clock seconds one item's repair may take; past it the item goes to review
    repair_seconds: float = Field(
        default=config.DEFAULT_REPAIR_SECONDS, gt=0, le=config.MAX_SECONDS
    )
    provers: tuple[str, ...] = ("z3", "eprover")
    workers: int = Field(default_factory=config.default_workers, ge=1)
    # local | dask | dask://HOST:PORT | ray | ray://HOST:PORT (refinery.parallel.parse_task_runner)
    task_runner: Annotated[str, AfterValidator(check_task_runner)] = "local"
    # LLM requests at once across every worker (a Prefect global concurrency limit on clusters)
    llm_concurrency: int | None = Field(default=None, ge=1)
    budget_seconds: float = Field(
        default=config.DEFAULT_BUDGET_SECONDS, gt=0, le=config.MAX_SECONDS
    )
    rlimit: int = config.DEFAULT_RLIMIT
    state_dir: str = Field(default_factory=lambda: str(config.state_dir()))
    run_id: str = Field(default_factory=new_run_id)
    use_cache: bool = True
    # end the flow Failed when an item needs review that the previous run did not flag
    # (refinery.runs.changes); scheduled deployments set it, interactive runs keep exiting 0
    fail_on_new_conflicts: bool = False
    endpoint: LLMEndpoint | None = None

    def budget(self) -> Budget:
        return Budget(seconds=self.budget_seconds, rlimit=self.rlimit or None)

    def cache_path(self) -> Path | None:
        return Path(self.state_dir) / "cache" / "verdicts.sqlite" if self.use_cache else None

    def outcome_cache_path(self) -> Path | None:
        return Path(self.state_dir) / "cache" / "outcomes.sqlite" if self.use_cache else None

    def validation_cache_path(self) -> Path | None:
        return Path(self.state_dir) / "cache" / "validations.sqlite" if self.use_cache else None

    def llm_cache_path(self) -> Path | None:
        return Path(self.state_dir) / "cache" / "llm.sqlite" if self.use_cache else None

    def runner(self) -> TaskRunnerSpec:
        return parse_task_runner(self.task_runner)

    def repair_workers(self) -> int:
        """Local repair processes: `--llm-concurrency` caps them when the LLM agent is on."""
        if "llm" in self.agents and self.llm_concurrency:
            return min(self.workers, self.llm_concurrency)
        return self.workers

    def with_endpoint(self, endpoint: LLMEndpoint | None) -> RefineSettings:
        return self.model_copy(update={"endpoint": endpoint})

    def repair_config(self) -> RepairConfig:
        return RepairConfig(
            agents=self.agents,
            max_rounds=self.max_rounds,
            llm_rounds=self.llm_rounds,
            llm=self.endpoint,
            item_seconds=self.repair_seconds,
        )


def load_checked(
    load: Callable[[str], LoadResult], source: str, say: Callable[[str], None] = print
) -> LoadResult:
    """Load `source`, saying each malformed row (file, line, reason); the rest goes on."""
    result = load(source)
    for err in result.errors:
        say(f"skipped row: {err}")
    return result


def resolve_outputs(settings: RefineSettings, loaded: LoadResult) -> RefineSettings:
    """Fill in the default output folder and review queue path from the dataset and split.

    Raises `RefineryError` before any work when the run folder already holds a run (an
    explicit `--out` is never mixed with another run's files) or another run is building it,
    and `DataError` when the refined split could not keep a source column (`check_input_columns`).
    """
    check_input_columns(loaded.items, settings.source)
    runs_dir = Path(settings.runs_dir or config.DEFAULT_RUNS_DIR)
    out = settings.out_dir or str(runs_dir / loaded.dataset / loaded.split / settings.run_id)
    runs.check_free(Path(out))
    review = settings.review_path or str(Path("review") / f"{loaded.dataset}-{loaded.split}.csv")
    return settings.model_copy(update={"out_dir": out, "review_path": review})


def building(settings: RefineSettings) -> AbstractContextManager[Path]:
    """Around the steps that write the run folder, up to `finish_run`: claims it, and if a step
    fails removes its staging folder (`refinery.runs.building`)."""
    assert settings.out_dir, "call resolve_outputs first"
    return runs.building(Path(settings.out_dir))


def staging_dir(settings: RefineSettings) -> Path:
    """Where the run folder is built until `finish_run` renames it to `settings.out_dir`."""
    assert settings.out_dir, "call resolve_outputs first"
    return runs.staging_path(Path(settings.out_dir))


def check(
    items: Sequence[Item],
    settings: RefineSettings,
    factory: ProverFactory,
    on_progress: Callable[[int], None] | None = None,
) -> list[CheckRow]:
    """Check every item on this machine's pool (`refinery.check.check_items`)."""
    from refinery.check import check_items

    return check_items(
        items,
        prover_factory=factory,
        prover_names=settings.provers,
        budget=settings.budget(),
        workers=settings.workers,
        cache_path=settings.cache_path(),
        on_progress=on_progress,
    )


def repair(
    items: Sequence[Item],
    rows: Sequence[CheckRow],
    settings: RefineSettings,
    factory: ProverFactory,
    on_progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Run the repair loop over every item (verified items pass straight through)."""
    outcomes = repair_items(
        items,
        rows,
        prover_factory=factory,
        prover_names=settings.provers,
        budget=settings.budget(),
        config=settings.repair_config(),
        workers=settings.repair_workers(),
        cache_path=settings.cache_path(),
        outcome_cache=settings.outcome_cache_path(),
        on_progress=on_progress,
    )
    return [o.replace(run_id=settings.run_id) for o in outcomes]


class Steps(Protocol):
    """The refine run's steps, as one caller runs them: in this process (`LocalSteps`), or as
    Prefect tasks (`flows.refine`). `run_refine` calls them in their one order."""

    def load(self, source: str) -> LoadResult: ...

    def validate_input(self, items: list[Item], cache: Path | None) -> dict[str, Any]: ...

    def check(self, items: list[Item], settings: RefineSettings) -> list[CheckRow]: ...

    def repair(
        self, items: list[Item], rows: list[CheckRow], settings: RefineSettings
    ) -> list[Outcome]: ...

    def write_outputs(
        self, items: list[Item], outcomes: list[Outcome], settings: RefineSettings
    ) -> dict[str, Any]: ...

    def validate_output(self, outcomes: list[Outcome], cache: Path | None) -> dict[str, Any]: ...

    def write_report(
        self, outcomes: list[Outcome], validations: dict[str, Any], settings: RefineSettings
    ) -> dict[str, str]: ...

    def compare(
        self, outcomes: list[Outcome], rows: list[CheckRow], settings: RefineSettings
    ) -> Changes: ...

    def finish(self, settings: RefineSettings, outcomes: list[Outcome]) -> dict[str, int]: ...


@dataclass(frozen=True)
class Finished:
    """What a refine run made: its settings (outputs resolved), rows, outcomes, files and, when
    the run compared itself with the previous one, the changes."""

    settings: RefineSettings
    rows: list[CheckRow]
    outcomes: list[Outcome]
    written: dict[str, Any]
    report: dict[str, str]
    changes: Changes | None

    def summary(self) -> dict[str, Any]:
        changes = self.changes.to_dict() if self.changes is not None else None
        return run_summary(self.outcomes, self.settings, self.written, self.report, changes)

    def failure(self) -> str | None:
        """Why the run fails (`fail_on_new_conflicts`), or None."""
        if self.changes is None:
            return None
        return self.changes.failure_message(
            fail_on_new_conflicts=self.settings.fail_on_new_conflicts
        )


def run_refine(
    settings: RefineSettings,
    steps: Steps,
    *,
    endpoint: LLMEndpoint | None = None,
    validate: bool = True,
    compare: bool = True,
) -> Finished:
    """Every step of a refine run, in its one order: load, validate the input, check, repair,
    then, in the run folder built aside, write the refined split and review queue, validate the
    output, write the report, compare with the previous run, and rename the folder into place.

    The LLM endpoint is opened around the repair (`endpoint`: one already open). Without
    `validate` no suite runs (the report shows none); without `compare` the run is not compared
    with the previous one (benchmarks and tests that measure check and repair alone).
    """
    from refinery.agents.endpoint import llm_endpoint

    loaded = steps.load(settings.source)
    settings = resolve_outputs(settings, loaded)
    items = list(loaded.items)
    cache = settings.validation_cache_path()
    validations: dict[str, Any] = {}
    if validate:
        validations["input"] = steps.validate_input(items, cache)
    rows = steps.check(items, settings)
    if endpoint is not None:
        settings = settings.with_endpoint(endpoint)
        outcomes = steps.repair(items, rows, settings)
    else:
        choice, llm_cache = settings.llm, settings.llm_cache_path()
        with llm_endpoint(settings.agents, cache_path=llm_cache, choice=choice) as opened:
            settings = settings.with_endpoint(opened)  # the run's files name the model
            outcomes = steps.repair(items, rows, settings)
    changes = None
    with building(settings):  # a failed step leaves no staging folder
        written = steps.write_outputs(items, outcomes, settings)
        if validate:
            validations["output"] = steps.validate_output(written["outcomes"], cache)
        report = steps.write_report(written["outcomes"], validations, settings)
        if compare:
            changes = steps.compare(written["outcomes"], rows, settings)
        written["queue"] = steps.finish(settings, outcomes)
    return Finished(settings, rows, list(written["outcomes"]), written, report, changes)


@dataclass(frozen=True)
class LocalSteps:
    """The steps in this process, without Prefect: `refinery refine --no-prefect`, benchmarks."""

    factory: ProverFactory
    stage: Stage = no_progress

    def load(self, source: str) -> LoadResult:
        from refinery.datasets import load_any

        return load_checked(load_any, source)

    def validate_input(self, items: list[Item], cache: Path | None) -> dict[str, Any]:
        from refinery.validation import validate_input

        return validate_input(items, cache)

    def check(self, items: list[Item], settings: RefineSettings) -> list[CheckRow]:
        return check(items, settings, self.factory, self.stage("check", len(items)))

    def repair(
        self, items: list[Item], rows: list[CheckRow], settings: RefineSettings
    ) -> list[Outcome]:
        return repair(items, rows, settings, self.factory, self.stage("repair", len(items)))

    def write_outputs(
        self, items: list[Item], outcomes: list[Outcome], settings: RefineSettings
    ) -> dict[str, Any]:
        return write_outputs(items, outcomes, settings, self.factory)

    def validate_output(self, outcomes: list[Outcome], cache: Path | None) -> dict[str, Any]:
        from refinery.validation import validate_output

        return validate_output(outcomes, cache)

    def write_report(
        self, outcomes: list[Outcome], validations: dict[str, Any], settings: RefineSettings
    ) -> dict[str, str]:
        return write_run_report(outcomes, validations, settings)

    def compare(
        self, outcomes: list[Outcome], rows: list[CheckRow], settings: RefineSettings
    ) -> Changes:
        return write_run_changes(outcomes, rows, settings)

    def finish(self, settings: RefineSettings, outcomes: list[Outcome]) -> dict[str, int]:
        return finish_run(settings, outcomes)


def refine_here(
    settings: RefineSettings, factory: ProverFactory, stage: Stage = no_progress
) -> tuple[dict[str, Any], str | None]:
    """The whole run in this process, without Prefect (`refinery refine --no-prefect`).

    Returns the run summary and, with `fail_on_new_conflicts`, why the run fails (else None).
    Validation summaries are cached by content (`refinery.validation`), so an unchanged re-run
    imports neither great-expectations nor pandas.
    """
    finished = run_refine(settings, LocalSteps(factory, stage))
    return finished.summary(), finished.failure()


def run_plain(
    settings: RefineSettings, factory: ProverFactory, endpoint: LLMEndpoint | None = None
) -> dict[str, Any]:
    """Refine's core steps, without Prefect, validation or the comparison with earlier runs.

    For benchmarks and tests that measure the check and repair themselves; returns what
    `write_outputs` returns. `refine_here` is the whole run.
    """
    steps = LocalSteps(factory)
    finished = run_refine(settings, steps, endpoint=endpoint, validate=False, compare=False)
    return finished.written


def write_outputs(
    items: Sequence[Item],
    outcomes: Sequence[Outcome],
    settings: RefineSettings,
    factory: ProverFactory,
) -> dict[str, Any]:
    """Write the refined split and the audit trail; return paths and counts.

    The decisions the review queue holds on an item's current content are carried into the run
    (`refinery.review.apply.carry_decisions`, the decided FOL checked with `factory`'s
    provers), so a later run of the split keeps what people decided. Writes into the run's
    staging folder (claimed by `refinery.runs.building`); the paths returned name the files as
    they will be once `finish_run` has renamed the folder into place. The queue itself is
    merged only then: a run that fails on the way leaves it as it was.
    """
    from refinery.review.apply import carry_decisions
    from refinery.review.feedback import FeedbackEngine
    from refinery.review.seal import queue_key

    assert settings.out_dir and settings.review_path, "call resolve_outputs first"
    stage = staging_dir(settings)
    queue = Path(settings.review_path)
    rows = refined_rows(items, outcomes, settings.run_id)
    outcomes, rows, carried = carry_decisions(
        queue,
        outcomes,
        rows,
        lambda: FeedbackEngine(factory(settings.provers), settings.budget(), settings.cache_path()),
        queue_key(settings.state_dir),
    )
    meta = {**run_meta(settings, items, outcomes), "decisions": carried.to_dict()}
    files = runs.write_run(stage, rows, outcomes, meta)
    return {
        "outcomes": list(outcomes),
        "files": _final_paths(files, settings),
        "review_path": settings.review_path,
        "queue": {},  # the merge `finish_run` makes
        "decisions": carried.to_dict(),
    }


def run_meta(
    settings: RefineSettings, items: Sequence[Item], outcomes: Sequence[Outcome]
) -> dict[str, Any]:
    """run.json of a Refine run (`refinery.runs.refine_meta`)."""
    first = items[0] if items else None
    return runs.refine_meta(
        run_id=settings.run_id,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        source=settings.source,
        dataset=first.dataset if first else "",
        split=first.split if first else "",
        outcomes=outcomes,
        settings=settings.model_dump(mode="json", exclude={"endpoint", "state_dir"}),
        llm=settings.endpoint.model if settings.endpoint else "",
    )


def write_run_report(
    outcomes: Sequence[Outcome], validations: Mapping[str, Any], settings: RefineSettings
) -> dict[str, str]:
    """Write report.md / report.html / PNGs into the run folder (still staged, see `write_outputs`)."""
    from refinery.report import run_history, write_report

    assert settings.out_dir
    stage = staging_dir(settings)
    meta = {
        "run_id": settings.run_id,
        "source": settings.source,
        "agents": ",".join(settings.agents),
        "max_rounds": settings.max_rounds,
        "repair_seconds": settings.repair_seconds,
        "llm_rounds": settings.llm_rounds,
        "provers": ",".join(settings.provers),
        "llm": settings.endpoint.model if settings.endpoint else "",
    }
    paths = write_report(
        stage,
        outcomes=outcomes,
        edits=edit_rows(outcomes),
        validations=validations,
        meta=meta,
        history=run_history(Path(settings.out_dir), before=settings.run_id),
    )
    # kept beside the outcomes so a review round can regenerate the same report later
    runs.update_meta(stage, validations=validations, report_meta=meta)
    return _final_paths(paths, settings)


def write_run_changes(
    outcomes: Sequence[Outcome], rows: Sequence[CheckRow], settings: RefineSettings
) -> Changes:
    """Compare the run with the previous run of its split; changes.md/.json in the run folder."""
    from refinery.runs.changes import cache_reuse, changes_since_previous, write_changes

    assert settings.out_dir, "call resolve_outputs first"
    # the baseline is looked up beside the folder's final name, which orders it among the runs
    changes = changes_since_previous(
        Path(settings.out_dir), outcomes, run_id=settings.run_id, cache=cache_reuse(rows)
    )
    decisions = runs.load_meta(staging_dir(settings)).get("decisions", {})
    changes = replace(
        changes,
        carried=tuple(decisions.get("carried", ())),
        second_look=tuple(decisions.get("second_look", ())),
    )
    write_changes(staging_dir(settings), changes)
    return changes


def finish_run(settings: RefineSettings, outcomes: Sequence[Outcome]) -> dict[str, int]:
    """Rename the complete run folder into place (`refinery.runs.finish`), then merge the items
    `outcomes` leave for review into the queue (sealed, keeping every decision:
    `refinery.review.sheet.write_queue`); return the merge's counts. Only a run in place reaches
    the queue: one that failed on the way (a full disk, a kill) leaves it as it was."""
    from refinery.review.queue import queue_rows
    from refinery.review.seal import queue_key
    from refinery.review.sheet import write_queue

    assert settings.out_dir and settings.review_path, "call resolve_outputs first"
    runs.finish(Path(settings.out_dir))
    rows = queue_rows([o for o in outcomes if o.queued])
    key = queue_key(settings.state_dir, create=True)
    merge = write_queue(Path(settings.review_path), rows, key=key)
    return dataclasses.asdict(merge)


def _final_paths(paths: Mapping[str, Path], settings: RefineSettings) -> dict[str, str]:
    """Staged file paths as they will read once the run folder is in place."""
    assert settings.out_dir
    stage, out = staging_dir(settings), Path(settings.out_dir)
    return {name: str(out / path.relative_to(stage)) for name, path in paths.items()}


def run_summary(
    outcomes: Sequence[Outcome],
    settings: RefineSettings,
    written: Mapping[str, Any],
    report: Mapping[str, str],
    changes: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a run produced: counts, files, the queue merge, and `changes` when given.

    `changes` is `refinery.runs.changes.Changes.to_dict()`: what changed since the previous run.
    """
    summary = {
        "run_id": settings.run_id,
        "items": len(outcomes),
        "counts": outcome_counts(outcomes),
        "table": summary_table(outcomes),
        "out_dir": settings.out_dir,
        "review_path": settings.review_path,
        "queue": written["queue"],
        "decisions": written.get("decisions", {}),
        "files": {**written["files"], **report},
    }
    return summary if changes is None else {**summary, "changes": dict(changes)}


def headline(summary: Mapping[str, Any]) -> str:
    """The run in one line: items and how many ended in each status.

    >>> headline({"run_id": "r1", "items": 3, "counts": {"verified": 2, "needs_review": 1}})
    'run r1: 3 items: verified 2, needs_review 1'
    """
    counts = ", ".join(f"{k} {v}" for k, v in summary["counts"].items() if v)
    return f"run {summary['run_id']}: {summary['items']} items: {counts}"


def format_summary(summary: Mapping[str, Any]) -> str:
    """Plain-text summary for logs and the terminal."""
    lines = [f"run {summary['run_id']}: {summary['items']} items"]
    lines += [f"  {row['outcome']:<36} {row['items']:>6}" for row in summary["table"]]
    lines.append(f"  refined split and report: {summary['out_dir']}")
    lines.append(f"  review queue: {summary['review_path']}")
    decisions = summary.get("decisions") or {}
    if any(decisions.values()):
        lines.append(
            f"  review decisions carried: {len(decisions.get('carried', []))}; decided on "
            f"content that changed since (a second look): {len(decisions.get('second_look', []))}"
            f"; refused: {len(decisions.get('refused', []))}"
        )
    if "changes" in summary:  # refinery.runs.changes.Changes.to_dict()
        lines.append(f"  changes: {summary['changes']['headline']}")
    return "\n".join(lines)


def artifact_key(kind: str, outcomes: Sequence[Outcome]) -> str:
    """`refine-<kind>-<dataset>-<split>`: two schedules of other splits never share an artifact
    (Prefect keys allow lowercase letters, digits and dashes only).

    >>> from refinery.outcomes import Status
    >>> one = Outcome(id="folio-v2/validation/1", status=Status.VERIFIED, dataset="folio-v2",
    ...               split="validation")
    >>> artifact_key("changes", [one])
    'refine-changes-folio-v2-validation'
    """
    first = outcomes[0] if outcomes else None
    where = f"{first.dataset}-{first.split}" if first else "empty"
    return re.sub(r"[^a-z0-9-]+", "-", f"refine-{kind}-{where}".lower()).strip("-")


def retry_on_llm_transport(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect retry condition: retry only when an LLM transport error escaped (never on bad data)."""
    try:
        state.result()
    except LLMTransportError:
        return True
    except Exception:  # noqa: BLE001 - anything else is not the endpoint's fault: no retry
        return False
    return False
