"""Story batches, the task-runner option, a worker's read-only view of the driver's caches, and
a worker's malloc thresholds."""

from __future__ import annotations

import ctypes
import multiprocessing
import platform
import resource
from multiprocessing.connection import Connection
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refinery.cli import main
from refinery.errors import ConfigError
from refinery.parallel import (
    StoryPool,
    TaskRunnerSpec,
    parse_task_runner,
    steady_malloc,
    story_batches,
)
from refinery.store import JsonStore, worker_view


@given(
    st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=60),
    st.integers(min_value=1, max_value=16),
)
def test_batches_keep_stories_whole_and_balance_them(sizes: list[int], slots: int) -> None:
    stories = [[f"{i}-{j}" for j in range(n)] for i, n in enumerate(sizes)]
    batches = story_batches(stories, slots)
    flat = [story for batch in batches for story in batch]
    assert sorted(map(tuple, flat)) == sorted(map(tuple, stories))  # each story once, whole
    wanted = max(4 * slots, -(-sum(sizes) // 2000))
    assert len(batches) == min(len(stories), -(-wanted // slots) * slots)
    loads = [sum(map(len, b)) for b in batches]
    assert max(loads) - min(loads) <= max(sizes)  # greedy: never more than one story apart


def test_big_runs_get_more_batches_than_workers_need() -> None:
    stories = [[i] * 10 for i in range(1000)]  # 10,000 items: at most 2,000 per batch
    assert len(story_batches(stories, 1)) == 5 and len(story_batches(stories, 8)) == 32


def test_the_last_round_keeps_every_worker_busy() -> None:
    stories = [[i] * 10 for i in range(3000)]  # 30,000 items: 15 batches of 2,000 would do
    batches = story_batches(stories, 2)
    assert len(batches) == 16  # not 15: on 2 workers the 15th would run alone
    assert {sum(map(len, b)) for b in batches} == {1870, 1880}


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("local", TaskRunnerSpec("local")),
        ("dask", TaskRunnerSpec("dask")),
        (" ray ", TaskRunnerSpec("ray")),
        ("dask://10.0.0.5:8786", TaskRunnerSpec("dask", "tcp://10.0.0.5:8786")),
        ("ray://head:10001", TaskRunnerSpec("ray", "ray://head:10001")),
    ],
)
def test_task_runner_values(text: str, spec: TaskRunnerSpec) -> None:
    assert parse_task_runner(text) == spec


@pytest.mark.parametrize(
    "text",
    ["", "spark", "dask://", "dask://host", "dask://:8786", "dask://h:0", "ray://h:x", "tcp://h:1"],
)
def test_bad_task_runners_are_refused_with_the_choices(text: str) -> None:
    with pytest.raises(ConfigError, match=r"local, dask, dask://HOST:PORT, ray or ray://HOST:PORT"):
        parse_task_runner(text)


def test_the_command_line_refuses_a_bad_task_runner(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "x.jsonl", "--task-runner", "dask://nowhere"]) == 2
    assert "task runner must be local, dask, dask://HOST:PORT" in capsys.readouterr().err


def test_a_read_only_view_reads_the_file_and_keeps_writes_for_the_driver(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    driver = JsonStore(path, "verdicts")
    driver.put("old", {"v": 1})
    view = worker_view(path, "verdicts", host=__import__("socket").gethostname())
    assert view.get("old") == {"v": 1}
    view.put("new", {"v": 2})
    assert view.get("new") == {"v": 2} and driver.get("new") is None  # nothing written
    driver.put_raw(view.recorded())
    assert driver.get("new") == {"v": 2}


def test_a_view_never_creates_the_file_nor_reads_another_machines(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    view = worker_view(missing, "verdicts", host=__import__("socket").gethostname())
    assert view.get("k") is None and not missing.exists()
    path = tmp_path / "cache.sqlite"
    JsonStore(path, "verdicts").put("k", 1)
    assert worker_view(path, "verdicts", host="another-machine").get("k") is None
    assert (
        worker_view(path, "other_table", host=__import__("socket").gethostname()).get("k") is None
    )


def test_a_deployment_keeps_its_task_runner_and_refuses_a_bad_one(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from flows.serve import deployment_parameters
    from refinery.pipeline import RefineSettings

    settings = RefineSettings(source="x", runs_dir=str(tmp_path), task_runner="dask://h:8786")
    params = deployment_parameters(settings)["settings"]
    assert RefineSettings(**params).runner() == TaskRunnerSpec("dask", "tcp://h:8786")
    with pytest.raises(ValidationError, match="task runner must be"):
        RefineSettings(source="x", task_runner="spark")


def test_llm_concurrency_caps_local_repair_processes_only_with_the_llm() -> None:
    from refinery.pipeline import RefineSettings

    with_llm = RefineSettings(source="x", workers=8, llm_concurrency=2, agents=("rules", "llm"))
    assert with_llm.repair_workers() == 2
    assert with_llm.model_copy(update={"agents": ("rules",)}).repair_workers() == 8


def test_a_view_up_to_a_row_does_not_see_what_is_written_after(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    driver = JsonStore(path, "verdicts")
    assert driver.last_row() == 0  # no file yet: nothing to see
    driver.put("old", 1)
    driver.put("again", 2)
    mark = driver.last_row()
    driver.put("new", 3)
    driver.put("again", 4)  # written again: a new row, past the mark
    here = __import__("socket").gethostname()
    view = worker_view(path, "verdicts", host=here, upto=mark)
    assert view.get("old") == 1
    assert view.get("new") is None and view.get("again") is None
    assert worker_view(path, "verdicts", host=here).get("again") == 4  # no mark: everything


def test_a_key_kept_first_stays_where_a_view_up_to_a_row_finds_it(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    driver = JsonStore(path, "verdicts", keep_first=True)
    driver.put_raw([("asked", "1")])
    mark = driver.last_row()
    driver.put_raw([("asked", "2"), ("other", "3")])  # asked again meanwhile
    view = worker_view(path, "verdicts", host=__import__("socket").gethostname(), upto=mark)
    assert view.get("asked") == 1 and view.get("other") is None
    assert driver.get("asked") == 1 and driver.last_row() == mark + 1


# -- a worker's malloc: the same block, freed and asked for again, is not faulted in anew --------

BLOCK = 20 << 20  # above glibc's first mmap threshold, below the one `steady_malloc` fixes
LIBC = ctypes.CDLL(None)
LIBC.malloc.restype = ctypes.c_void_p
LIBC.free.argtypes = [ctypes.c_void_p]


def _faults_of_a_second_block(_: object = None) -> int:
    """Page faults of writing a `BLOCK` freed just before: none where malloc kept it."""
    for _pass in range(2):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        block = LIBC.malloc(BLOCK)
        ctypes.memset(block, 1, BLOCK)
        LIBC.free(block)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _in_a_process_with_low_thresholds(send: Connection, how: str) -> None:
    LIBC.mallopt(-3, 128 << 10)  # M_MMAP_THRESHOLD at glibc's first value, and held there
    if how == "pool":  # the pool's workers are forked from here, with these thresholds
        with StoryPool(2) as workers:
            send.send(max(workers.run([["a"], ["b"]], _faults_of_a_second_block)))
    else:
        send.send((_faults_of_a_second_block(), steady_malloc(), _faults_of_a_second_block()))


def _forked(how: str) -> object:
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_in_a_process_with_low_thresholds, args=(send, how))
    child.start()
    answer = receive.recv()
    child.join()
    return answer


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_steady_malloc_keeps_a_freed_block_for_the_next() -> None:
    pages = BLOCK // resource.getpagesize()
    before, applied, after = _forked("direct")  # type: ignore[misc]
    assert before >= pages  # mapped afresh each time: every page faulted in again
    assert applied and after < pages // 10


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_a_story_pool_worker_fixes_its_thresholds_whatever_it_inherits() -> None:
    assert _forked("pool") < (BLOCK // resource.getpagesize()) // 10  # type: ignore[operator]
