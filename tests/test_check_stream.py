"""Checking in bounded memory: chunks of stories on one pool, rows written as they come.

The streamed check must give `check_items`' rows, byte for byte but for timings; the streamed
table writer must give `write_table`'s files; the line reader must refuse what the whole-file
reader refuses, at the same line.
"""

from __future__ import annotations

import json
import os
import time
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from refinery.check import check_items
from refinery.check.stream import check_stream, chunks
from refinery.check.summary import all_agree, category_counts, prover_agreement, tally
from refinery.datasets import load_any, stream_any
from refinery.datasets.proofwriter import count_questions
from refinery.datasets.records import Item, read_text_file, text_lines
from refinery.errors import DataError
from refinery.labels import Label
from refinery.outputs import TableWriter, write_table
from refinery.parallel import StoryPool
from refinery.prove.verdict import Budget

#: What differs between two checks of the same items: how long things took, and the cache.
TIMINGS = ("cached", "prover_seconds", "seconds")


def _comparable(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k not in TIMINGS and not k.startswith("seconds_")}
    verdicts = json.loads(out.pop("verdicts"))
    for questions in verdicts.values():
        for answer in questions.values():
            answer.pop("seconds", None)
    return {**out, "verdicts": verdicts}


@pytest.mark.prover
@pytest.mark.data
def test_a_streamed_check_gives_the_rows_of_a_whole_one(
    slice_of_proofwriter: Path, tmp_path: Path
) -> None:
    from vampire.registry import build_provers

    items = list(load_any(slice_of_proofwriter).items)
    settings: dict[str, Any] = {
        "prover_factory": build_provers,
        "prover_names": ["z3", "eprover"],
        "budget": Budget(),
        "workers": 2,
    }
    whole = check_items(items, cache_path=tmp_path / "a" / "verdicts.sqlite", **settings)
    stream = stream_any(str(slice_of_proofwriter))
    assert stream.semantics and stream.expected == len(items) + 0  # the broken row asks nothing
    entries = list(stream.entries)
    assert [e for e in entries if not hasattr(e, "id")][0].line == 8  # the broken row, said
    done: list[int] = []
    streamed = list(
        check_stream(
            (e for e in entries if hasattr(e, "id")),
            cache_path=tmp_path / "b" / "verdicts.sqlite",
            on_progress=done.append,
            dataset_column=True,
            chunk_items=40,  # several chunks, each ending between theories
            **settings,
        )
    )
    assert len(list(chunks(items, 40))) > 3
    assert sum(done) == len(items)
    assert [_comparable(r.to_dict()) for r in streamed] == [_comparable(r.to_dict()) for r in whole]
    # the summaries a streamed check keeps as running counts are those of the rows
    counts = tally(streamed, ("z3", "eprover"))
    assert counts.category_counts() == category_counts(whole)
    agreement = counts.agreement("z3", "eprover")
    assert agreement == prover_agreement(whole, "z3", "eprover")
    assert (agreement.agree, agreement.both_decided) == all_agree(whole, ["z3", "eprover"])


def _twin(story: str) -> Item:
    return Item(
        dataset="twins", split="test", story_id=story, example_id=f"{story}-1",
        premises=(f"All cats of {story} purr.", "Tom is a cat."),
        premises_fol=("∀x (Cat(x) → Purr(x))", "Cat(tom)"),
        conclusion="Tom purrs.", conclusion_fol="Purr(tom)", label=Label.TRUE, raw_label="True",
        source="twins.jsonl", line=1, raw="{}",
    )  # fmt: skip


@pytest.mark.prover
def test_stories_that_ask_the_same_questions_are_proved_alike(tmp_path: Path) -> None:
    """Two stories whose formulas are the same ask the same questions. Which is answered from
    the cache must not depend on which batch the driver stored first: a run sees the cache as
    it was when the run was planned, so here neither is, and both twins prove the same."""
    from vampire.registry import build_provers

    cache = tmp_path / "verdicts.sqlite"
    settings: dict[str, Any] = {"prover_factory": build_provers, "prover_names": ["z3"],
                                "budget": Budget(), "cache_path": cache}  # fmt: skip
    rows = check_items([_twin("a"), _twin("b")], workers=1, **settings)  # one after the other
    assert [r.cached for r in rows] == [False, False]
    assert [r.label for r in rows] == ["True", "True"]
    # a later run's stories are answered from what the earlier one stored
    again = check_items([_twin("c")], workers=1, **settings)
    assert again[0].cached and again[0].label == "True"


@pytest.mark.prover
def test_twins_in_one_batch_are_proved_as_if_each_were_alone(tmp_path: Path) -> None:
    """A cluster batch holds many stories; a story must not read its twin's fresh verdicts, or
    the run's rows (cached, prover time) would depend on how the stories were batched."""
    from refinery.check.batches import CheckJob, check_batch
    from vampire.registry import build_provers

    job = CheckJob(build_provers, ("z3",), Budget(), tmp_path / "verdicts.sqlite")
    batch = check_batch([[_twin("a")], [_twin("b")]], job)
    assert [r.cached for r in batch.rows] == [False, False]
    assert [r.label for r in batch.rows] == ["True", "True"]
    # each story's verdicts go back to the driver, the twin's as well (the driver keeps the first)
    keys = [key for key, _ in batch.verdicts]
    assert len(keys) == 2 * len(set(keys)) > 0


@pytest.mark.prover
def test_a_resumed_check_counts_the_stories_it_did_not_redo(tmp_path: Path) -> None:
    """A run stopped after some chunks resumes from the row cache; `on_cached` counts what the
    second run answered from it (the progress bar shows it), `on_progress` every item."""
    from vampire.registry import build_provers

    settings: dict[str, Any] = {"prover_factory": build_provers, "prover_names": ["z3"],
                                "budget": Budget(), "cache_path": tmp_path / "verdicts.sqlite",
                                "chunk_items": 2}  # fmt: skip
    stories = [_twin(name) for name in "abcde"]
    first: list[int] = []
    assert len(list(check_stream(stories[:3], on_cached=first.append, **settings))) == 3
    assert first == []  # nothing cached yet, so nothing said
    done: list[int] = []
    cached: list[int] = []
    rows = list(check_stream(stories, on_progress=done.append, on_cached=cached.append, **settings))
    assert (sum(done), sum(cached)) == (5, 3)  # d and e were checked (their verdicts cached)
    assert [r.id for r in rows] == [s.id for s in stories] and {r.label for r in rows} == {"True"}


@pytest.mark.prover
@pytest.mark.parametrize("workers", [1, 2])
def test_a_chunk_reads_the_cache_as_it_was_before_the_chunk_ahead_of_it(
    tmp_path: Path, workers: int
) -> None:
    """The next chunk is planned before the one in flight is stored (the workers keep busy
    meanwhile), so twins in adjacent chunks both prove, and the third reads the first's
    verdicts: on any machine, at any speed."""
    from vampire.registry import build_provers

    rows = list(
        check_stream(
            [_twin(name) for name in "abc"], prover_factory=build_provers, prover_names=["z3"],
            budget=Budget(), cache_path=tmp_path / "verdicts.sqlite", workers=workers,
            chunk_items=1,
        )
    )  # fmt: skip
    assert [r.cached for r in rows] == [False, False, True]
    assert [r.label for r in rows] == ["True"] * 3


def test_the_next_chunk_is_planned_before_a_chunk_is_taken_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import refinery.check.stream as stream

    planned: list[int] = []
    real = stream.plan_check
    monkeypatch.setattr(
        stream, "plan_check", lambda chunk, **kw: planned.append(1) or real(chunk, **kw)
    )
    rows = check_stream(
        [_twin(name) for name in "abc"], prover_factory=lambda names: [], prover_names=[],
        budget=Budget(), workers=1, chunk_items=1,
    )  # fmt: skip
    next(rows)
    assert len(planned) == 2  # the first row comes out with the second chunk already planned
    assert len(list(rows)) == 2 and len(planned) == 3


def test_a_dispatch_gets_each_chunk_s_stories_before_the_chunk_ahead_is_taken_in() -> None:
    from refinery.check.batches import check_batch

    events: list[str] = []

    def results(stories: list[list[Item]], job: Any) -> Any:
        for story in stories:  # run here, lazily, as a cluster's results are awaited
            events.append("taken " + story[0].story_id)
            yield check_batch([story], job)

    def dispatch(stories: list[list[Item]], job: Any) -> Any:
        events.append("sent " + ",".join(it.story_id for story in stories for it in story))
        return results(stories, job)

    rows = check_stream(
        [_twin(name) for name in "abc"], prover_factory=lambda names: [], prover_names=[],
        budget=Budget(), workers=2, chunk_items=1, dispatch=dispatch,
    )  # fmt: skip
    assert [r.story_id for r in rows] == ["a", "b", "c"]
    # every story went to the dispatch (none to a pool), each sent before the one ahead of it
    # was taken in
    assert events == ["sent a", "sent b", "taken a", "sent c", "taken b", "taken c"]


def _mark(folder: Path, stories: list[int]) -> int:
    (folder / str(stories[0])).touch()
    return stories[0]


def test_started_stories_run_before_their_results_are_asked_for(tmp_path: Path) -> None:
    with StoryPool(2) as pool:
        results = pool.start([1, 2, 3], partial(_mark, tmp_path))
        deadline = time.monotonic() + 30
        while len(list(tmp_path.iterdir())) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["1", "2", "3"]
        assert sorted(results) == [1, 2, 3]


def _worker_pid(stories: list[int]) -> int:
    return os.getpid()


FORKS: list[int] = []
os.register_at_fork(after_in_parent=lambda: FORKS.append(1))


def test_one_pool_serves_every_chunk() -> None:
    before = len(FORKS)
    with StoryPool(2) as pool:
        first = set(pool.run(list(range(20)), _worker_pid))
        second = set(pool.run(list(range(20)), _worker_pid))
    # a fork pool starts all its workers at the first submit: two forks, not two per run
    assert len(FORKS) - before == 2
    assert os.getpid() not in first | second and len(first | second) <= 2


ROWS = [
    {"id": f"x{i}", "n": i, "score": 0.5 if i % 2 else 1, "ok": i % 3 == 0,
     "note": None if i < 70 else "late", "cached": i % 2 == 0}
    for i in range(120)
]  # fmt: skip


def _stream(folder: Path, rows: list[dict[str, Any]], **options: Any) -> Any:
    with TableWriter(folder, "v", volatile=("cached",), **options) as writer:
        for row in rows:
            writer.add(row)
        return writer.close()


def test_a_streamed_table_is_the_table_written_whole(tmp_path: Path) -> None:
    whole = write_table(ROWS, tmp_path / "whole", "v", volatile=("cached",))
    streamed = _stream(tmp_path / "streamed", ROWS, block=25)  # five parquet blocks
    assert streamed.written
    assert streamed.csv.read_bytes() == whole.csv.read_bytes()
    assert pq.read_table(streamed.parquet).equals(pq.read_table(whole.parquet))
    # a column null in the first blocks takes its type from the later ones
    assert str(pq.read_table(streamed.parquet).schema.field("note").type) == "string"
    assert sorted(p.name for p in (tmp_path / "streamed").iterdir()) == [
        ".v.digest",
        "v.csv",
        "v.parquet",
    ]


def test_unchanged_rows_leave_the_files_and_write_nothing(tmp_path: Path) -> None:
    write_table(ROWS, tmp_path, "v", volatile=("cached",))
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    again = _stream(tmp_path, [{**r, "cached": True} for r in ROWS])  # only volatile differs
    assert not again.written
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before
    changed = _stream(tmp_path, [{**ROWS[0], "n": -1}, *ROWS[1:]])
    assert changed.written and "x0,-1," in changed.csv.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"a": 1}, {"b": 1}], "row 2 has columns ['b'], not ['a']"),
        ([{"a": 1}, {"a": "one"}], "column 'a' mixes int, str"),
    ],
)
def test_a_bad_row_writes_nothing(tmp_path: Path, rows: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        _stream(tmp_path, rows)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content",
    [
        b"\xef\xbb\xbffirst\nsecond\n",
        b"one\n\xffbad\n",
        b"one\ntwo\x00\n",
        "¬∀x\n".encode("utf-16"),
        b"",
    ],
)
def test_lines_are_refused_where_the_whole_file_is(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    try:
        whole: list[str] | str = read_text_file(path).split("\n")
    except DataError as exc:
        whole = str(exc)
    try:
        lines: list[str] | str = [text for _, text in text_lines(path)]
        if isinstance(whole, list) and whole[-1] == "" and content:
            whole = whole[:-1]  # the last "\n" ends a line: no empty line after it
    except DataError as exc:
        lines = str(exc)
    assert lines == (whole if content else [])


def test_questions_are_counted_across_block_boundaries(tmp_path: Path) -> None:
    theory = {"id": "T", "questions": {f"Q{i}": {"question": "Bob is big."} for i in range(9)}}
    line = json.dumps(theory)
    path = tmp_path / "meta-test.jsonl"
    count = (1 << 20) // len(line) * 3  # about three blocks, keys cut at every boundary
    path.write_text((line + "\n") * count, encoding="utf-8")
    assert count_questions(path) == 9 * count
