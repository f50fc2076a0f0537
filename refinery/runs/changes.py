"""What changed since the previous run of a split: the change-only report of scheduled runs.

A scheduled Refine run mostly finds what the last one found; reviewers and alerts want only the
difference. `compare` matches a run's outcomes with the previous run's by item id and reports
items added, removed and changed (any of `COMPARED_FIELDS`), the **new conflicts**, and how much
of the run came from the verdict cache. The baseline is `previous_run`: the newest older
complete run (refine or review round) in the same split folder.

A new conflict is an item that needs review now and was not already a known conflict:

- it is absent from the previous run (a brand-new item that needs review is new), or
- it was ``verified`` or ``repaired`` before (a regression), or
- it needed review before for another reason (a different problem needs a different look; a
  repair that ran out of time, `repair_budget`, counts as the problem it left: its final
  category's reason), or
- it was ``reviewed`` before but its content changed since (the decision was about other content).

An item that needed review before for the same reason stays a known conflict even when its
content changed: it is already in the review queue, whose merge refreshes the row and keeps the
reviewer's notes; it is listed under *changed*. A ``reviewed`` item whose content is unchanged
is known too: the queue keeps its decision. The first run of a split has no baseline, so it has
no new conflicts ("first run"). A run that fails for new conflicts still leaves its folder, which
becomes the next run's baseline: each conflict is announced once.

Cache reuse is counted from the check rows (`cached`: every verdict of the item came from the
verdict cache). Outcomes read back from the outcome cache carry no flag of their own, so they are
not counted separately; on unchanged data both caches hit together.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refinery.outcomes import Category, Outcome, Reason, Status
from refinery.outputs import atomic_write_text
from refinery.runs.folder import previous_run

if TYPE_CHECKING:
    from refinery.check.row import CheckRow

#: Outcome fields whose change makes an item "changed".
COMPARED_FIELDS = ("status", "reason", "label", "prover_label", "content_hash")
CHANGES_MD = "changes.md"
CHANGES_JSON = "changes.json"
#: How many ids each markdown section lists before it says "and N more".
_SHOWN = 50


@dataclass(frozen=True)
class CacheReuse:
    """Items whose verdicts all came from the verdict cache, out of the items checked."""

    hits: int
    items: int

    @property
    def share(self) -> float:
        return self.hits / self.items if self.items else 0.0


@dataclass(frozen=True)
class ItemChange:
    """One item present in both runs whose compared fields differ (`before`/`after` hold only those)."""

    id: str
    before: dict[str, Any]
    after: dict[str, Any]

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.before)


@dataclass(frozen=True)
class Changes:
    """A run compared with the previous run of its split.

    `previous_run_id` is None on the first run; then nothing is added, removed, changed or new.
    `new_conflicts` lists ids by the rule in the module docstring, in the run's item order.
    """

    run_id: str
    previous_run_id: str | None
    items: int
    in_queue: int  # the items the review queue holds (settled ones that misread too)
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[ItemChange, ...] = ()
    new_conflicts: tuple[str, ...] = ()
    cache: CacheReuse | None = None
    #: items whose review decision the run carried over from the queue (content unchanged)
    carried: tuple[str, ...] = ()
    #: items decided on content that has changed since: the queue flags them for a second look
    second_look: tuple[str, ...] = ()

    @property
    def first_run(self) -> bool:
        return self.previous_run_id is None

    @property
    def no_changes(self) -> bool:
        """True when a previous run exists and no item was added, removed or changed."""
        return not self.first_run and not (self.added or self.removed or self.changed)

    def failure_message(self, *, fail_on_new_conflicts: bool) -> str | None:
        """Why the run should end Failed (None when it should not): new conflicts, if asked."""
        if not (fail_on_new_conflicts and self.new_conflicts):
            return None
        n = len(self.new_conflicts)
        shown = ", ".join(self.new_conflicts[:5]) + (" …" if n > 5 else "")
        return (
            f"{n} new conflict{'s' if n != 1 else ''} since run {self.previous_run_id}: {shown}"
            " (see changes.md and the review queue)"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (changes.json, the flow summary)."""
        data = asdict(self)
        for name in ("added", "removed", "changed", "new_conflicts", "carried", "second_look"):
            data[name] = list(data[name])  # JSON's shape, whether or not it went through JSON
        data["cache"] = {**asdict(self.cache), "share": self.cache.share} if self.cache else None
        data["first_run"] = self.first_run
        data["no_changes"] = self.no_changes
        data["headline"] = self.headline()
        return data

    def headline(self) -> str:
        """One line: first run, no changes, or the counts of each kind of change."""
        if self.first_run:
            return (
                "first run of this split (no previous run to compare with); "
                f"{self.in_queue} of {self.items} items are in the review queue"
            )
        if self.no_changes:
            return f"no changes since run {self.previous_run_id}"
        return (
            f"since run {self.previous_run_id}: {len(self.added)} added, "
            f"{len(self.removed)} removed, {len(self.changed)} changed, "
            f"{len(self.new_conflicts)} new conflicts"
        )

    def markdown(self) -> str:
        """changes.md: headline, cache reuse, then one section per kind of change."""
        headline = self.headline()
        lines = [f"# Changes in run {self.run_id}", "", headline[0].upper() + headline[1:] + "."]
        if self.cache is not None:
            lines += [
                "",
                f"Verdicts from cache: {self.cache.hits}/{self.cache.items} items "
                f"({self.cache.share:.0%}).",
            ]
        if self.carried or self.second_look:
            lines += [
                "",
                f"Review decisions carried over from the queue: {len(self.carried)}; decided on "
                f"content that changed since, for a second look: {len(self.second_look)}.",
            ]
        lines += _section(
            "Decided on content that changed since (flagged in the queue)", self.second_look
        )
        lines += _section("New conflicts (need review, not known before)", self.new_conflicts)
        lines += _section("Added", self.added)
        lines += _section("Removed", self.removed)
        if self.changed:
            lines += ["", "## Changed", "", "| id | field | before | after |", "|---|---|---|---|"]
            for change in self.changed[:_SHOWN]:
                for name in change.fields:
                    lines.append(
                        f"| {change.id} | {name} | {_cell(change.before[name])} "
                        f"| {_cell(change.after[name])} |"
                    )
            lines += _more(len(self.changed))
        return "\n".join(lines) + "\n"


def cache_reuse(rows: Iterable[CheckRow]) -> CacheReuse:
    """Count the check rows whose verdicts all came from the cache."""
    flags = [r.cached for r in rows]
    return CacheReuse(hits=sum(flags), items=len(flags))


def is_new_conflict(now: Outcome, before: Outcome | None) -> bool:
    """The new-conflict rule of the module docstring, for one item (`before` None: absent)."""
    if now.status is not Status.NEEDS_REVIEW:
        return False
    if before is None:
        return True
    if before.status is Status.NEEDS_REVIEW:
        return _problem(before) != _problem(now)
    if before.status is Status.REVIEWED:
        return before.content_hash != now.content_hash
    return True


def _problem(o: Outcome) -> Reason:
    """What an item in review is in review for: a repair that ran out of time is in review for
    what it left (its final category), not for the time it took."""
    if o.reason is Reason.REPAIR_BUDGET and o.final_category not in ("", Category.VERIFIED):
        return Category(o.final_category).reason
    return o.reason


def _value(o: Outcome, name: str) -> Any:
    """A compared field as JSON would write it."""
    value = getattr(o, name)
    return value.value if isinstance(value, Enum) else value


def compare(
    outcomes: Sequence[Outcome],
    previous: Sequence[Outcome] | None,
    *,
    run_id: str,
    previous_run_id: str | None,
    cache: CacheReuse | None = None,
) -> Changes:
    """Compare a run's outcomes with the previous run's (None: this is the split's first run).

    Parameters
    ----------
    outcomes, previous:
        The two runs' outcomes.
    run_id, previous_run_id:
        The two runs' ids, for the report.
    cache:
        Cache reuse of this run, reported as is.

    Returns
    -------
    Changes
        Ids in this run's item order; removed ids in the previous run's order.
    """
    in_queue = sum(o.queued for o in outcomes)  # the queue's count, as everywhere
    if previous is None:
        return Changes(run_id, None, len(outcomes), in_queue, cache=cache)
    old = {o.id: o for o in previous}
    ids = {o.id for o in outcomes}
    added: list[str] = []
    changed: list[ItemChange] = []
    new_conflicts: list[str] = []
    for o in outcomes:
        before = old.get(o.id)
        if is_new_conflict(o, before):
            new_conflicts.append(o.id)
        if before is None:
            added.append(o.id)
            continue
        diff = [f for f in COMPARED_FIELDS if _value(before, f) != _value(o, f)]
        if diff:
            changed.append(
                ItemChange(
                    o.id, {f: _value(before, f) for f in diff}, {f: _value(o, f) for f in diff}
                )
            )
    return Changes(
        run_id,
        previous_run_id,
        len(outcomes),
        in_queue,
        added=tuple(added),
        removed=tuple(o.id for o in previous if o.id not in ids),
        changed=tuple(changed),
        new_conflicts=tuple(new_conflicts),
        cache=cache,
    )


def changes_since_previous(
    run_folder: Path,
    outcomes: Sequence[Outcome],
    *,
    run_id: str,
    cache: CacheReuse | None = None,
) -> Changes:
    """Compare `outcomes` (the run in `run_folder`) with the previous run of the same dataset
    and split beside that folder."""
    splits = {(o.dataset, o.split) for o in outcomes}
    dataset, split = splits.pop() if len(splits) == 1 else (None, None)
    baseline = previous_run(run_folder, dataset=dataset, split=split)
    return compare(
        outcomes,
        baseline.outcomes if baseline else None,
        run_id=run_id,
        previous_run_id=baseline.run_id if baseline else None,
        cache=cache,
    )


def write_changes(run_folder: Path, changes: Changes) -> dict[str, Path]:
    """Write changes.md and changes.json into the run folder (atomically); return their paths."""
    md = atomic_write_text(run_folder / CHANGES_MD, changes.markdown())
    text = json.dumps(changes.to_dict(), ensure_ascii=False, indent=2, default=str) + "\n"
    return {"changes_md": md, "changes_json": atomic_write_text(run_folder / CHANGES_JSON, text)}


def _section(title: str, ids: Sequence[str]) -> list[str]:
    if not ids:
        return []
    return ["", f"## {title}", "", *(f"- {i}" for i in ids[:_SHOWN]), *_more(len(ids))]


def _more(n: int) -> list[str]:
    return [f"- … and {n - _SHOWN} more (see changes.json)"] if n > _SHOWN else []


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ") or "—"
