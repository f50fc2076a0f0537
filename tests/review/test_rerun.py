"""Re-running Refine into a queue that has decisions: every decision is kept, changed items are
flagged, items the new run settles are retained while a reviewer had written in them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest

from refinery.review import sheet
from refinery.review.queue import (
    CHANGED_SINCE_DECISION,
    CONTENT_COLUMNS,
    DECISION_COLUMNS,
    NOT_IN_LATEST_RUN,
    QueueRow,
)
from refinery.review.record import save_decision
from refinery.review.sheet import MergeReport, read_queue

from runs import SAMPLE, make_run

ID_203, ID_301, ID_1201, ID_1301 = (f"folio-sample/all/{n}" for n in (203, 301, 1201, 1301))
DECISIONS = {
    ID_203: {"decision": "accept_proposal", "reviewer": "ann"},
    ID_301: {
        "decision": "edit",
        "final_fol": "∀x (Train(x) ∧ Delayed(x) → MissConnection(x))\n"
        "Train(the815) ∧ Delayed(the815)\n"
        "∀x (MissConnection(x) → Compensated(x))\n"
        "Compensated(the815)",
        "final_label": "True",
        "reviewer": "bob",
        "note": "premise 3: ∀ passengers,\nnot a free x",
        "decided_at": "2026-01-02T03:04:05+00:00",
    },
    ID_1201: {"decision": "relabel", "final_label": "Uncertain", "reviewer": "ann"},
    ID_1301: {"decision": "keep_original", "note": "the NL says Max", "reviewer": "cy"},
}
NEW_CONCLUSION = "Max is a friendly dog."


def decided_queue(sample_run: Path, tmp_path: Path, ids: tuple[str, ...]) -> Path:
    """A copy of the sample run's queue with `ids` decided (each differently)."""
    path = tmp_path / "review.csv"
    base = sample_run.parent.parent.parent
    shutil.copyfile(base / "review.csv", path)
    # the queue's seals are under the state folder's key: a re-run keeps that folder
    (tmp_path / "state").mkdir(exist_ok=True)
    shutil.copyfile(base / "state" / "queue.key", tmp_path / "state" / "queue.key")
    for item_id in ids:
        save_decision(path, item_id, DECISIONS[item_id])
    return path


def modified_sample(tmp_path: Path, conclusions: dict[int, str], labels: dict[int, str]) -> Path:
    """The shipped sample with some conclusions and gold labels changed (same file name)."""
    lines = []
    for line in SAMPLE.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        n = record["example_id"]
        record["conclusion"] = conclusions.get(n, record["conclusion"])
        record["label"] = labels.get(n, record["label"])
        lines.append(json.dumps(record, ensure_ascii=False))
    source = tmp_path / "source" / SAMPLE.name
    source.parent.mkdir()
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return source


def rerun(
    source: Path, queue: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[MergeReport]:
    """Run Refine again into a new run folder with the same queue; return its queue merges."""
    reports: list[MergeReport] = []
    write_queue = sheet.write_queue

    def spy(
        path: Path, rows: Iterable[QueueRow], *, merge: bool = True, key: bytes | None = None
    ) -> MergeReport:
        report = write_queue(path, rows, merge=merge, key=key)
        reports.append(report)
        return report

    monkeypatch.setattr(sheet, "write_queue", spy)
    out = tmp_path / "folio-sample" / "all" / "20260102-000000"
    make_run(out, source=source, review_path=queue, state_dir=tmp_path / "state", run_id=out.name)
    return reports


def records(path: Path) -> dict[str, str]:
    """Each row's raw text (from its first physical line to the next row's)."""
    text = path.read_bytes().decode("utf-8-sig")
    starts = sorted(text.index("\r\n" + i + ",") + 2 for i in DECISIONS if "\r\n" + i in text)
    ends = [*starts[1:], len(text)]
    return {text[s:e].split(",", 1)[0]: text[s:e] for s, e in zip(starts, ends, strict=True)}


def new_hash(tmp_path: Path, item_id: str) -> str:
    run = tmp_path / "folio-sample" / "all" / "20260102-000000"
    for line in (run / "outcomes.jsonl").read_text(encoding="utf-8").splitlines():
        outcome = json.loads(line)
        if outcome["id"] == item_id:
            return str(outcome["content_hash"])
    raise AssertionError(f"{item_id} not in the re-run")


@pytest.mark.prover
def test_a_rerun_keeps_every_decision_and_flags_the_changed_item(
    sample_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = decided_queue(sample_run, tmp_path, tuple(DECISIONS))
    before_raw = records(queue)
    before = {r.id: r for r in read_queue(queue)}
    assert len(before_raw) == 4 and all(r.status == "decided" for r in before.values())

    source = modified_sample(tmp_path, {1301: NEW_CONCLUSION}, {})
    assert rerun(source, queue, tmp_path, monkeypatch) == [
        MergeReport(kept_decisions=3, flagged_changed=1)
    ]
    after_raw = records(queue)
    after = {r.id: r for r in read_queue(queue)}
    assert list(after) == [ID_203, ID_301, ID_1201, ID_1301]
    for item_id in (ID_203, ID_301, ID_1201):
        assert after_raw[item_id] == before_raw[item_id]  # byte for byte
    changed = after[ID_1301]
    assert changed.cells(DECISION_COLUMNS) == before[ID_1301].cells(DECISION_COLUMNS)
    assert changed.flag == CHANGED_SINCE_DECISION and changed.status == "decided"
    assert changed.conclusion == NEW_CONCLUSION
    assert changed.content_hash == new_hash(tmp_path, ID_1301)
    assert changed.content_hash != before[ID_1301].content_hash
    assert changed.row_hash != before[ID_1301].row_hash  # it fingerprints the new content
    assert changed.row_seal != before[ID_1301].row_seal  # and seals it
    new = {"conclusion", "content_hash", "row_hash", "row_seal"}
    unchanged = sorted(set(CONTENT_COLUMNS) - new)
    assert changed.cells(unchanged) == before[ID_1301].cells(unchanged)


@pytest.mark.prover
def test_a_decided_item_the_rerun_settles_is_retained_and_an_undecided_one_dropped(
    sample_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = decided_queue(sample_run, tmp_path, (ID_203, ID_301, ID_1301))  # 1201 left open
    before = {r.id: r for r in read_queue(queue)}
    # the fixed gold labels are what both provers derive: 203 and 1201 now verify
    source = modified_sample(tmp_path, {1301: NEW_CONCLUSION}, {203: "False", 1201: "Uncertain"})
    assert rerun(source, queue, tmp_path, monkeypatch) == [
        MergeReport(kept_decisions=1, flagged_changed=1, retained_missing=1, dropped=1)
    ]
    after = {r.id: r for r in read_queue(queue)}
    assert list(after) == [ID_203, ID_301, ID_1301]
    assert after[ID_203] == before[ID_203].replace(flag=NOT_IN_LATEST_RUN)
    assert after[ID_203].decision == "accept_proposal" and after[ID_203].status == "decided"
    assert after[ID_301] == before[ID_301]
    assert after[ID_1301].flag == CHANGED_SINCE_DECISION
    assert after[ID_1301].note == "the NL says Max"


@pytest.mark.prover
def test_a_rerun_of_the_same_source_changes_nothing(
    sample_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = decided_queue(sample_run, tmp_path, (ID_301, ID_1201))
    save_decision(queue, ID_203, {"note": "draft: check premise 2"})  # input, no decision
    before = queue.read_bytes()
    assert rerun(SAMPLE, queue, tmp_path, monkeypatch) == [
        MergeReport(kept_decisions=2, refreshed=2)
    ]
    assert queue.read_bytes() == before
