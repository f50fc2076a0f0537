"""Check and Refine on a real Dask cluster (and Ray) through Prefect: the same results as local.

A `distributed.LocalCluster` of two worker processes on 127.0.0.1 is started once per module;
`refinery check` and `refinery refine --agents rules` run through `--task-runner dask://…` under
Prefect's test harness and their files must equal a local run's, apart from run ids, times and
the contents of Z3's countermodels (see `TIMES` and `COUNTERMODEL`).
One test kills a worker mid-run; one gives the workers no E. Ray is an optional extra: its test
skips, saying so, only where `ray` is not installed (`make test` installs it).
"""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from refinery.cli import main

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"
#: Fields that hold times or run ids, and Z3's countermodels: a model depends on what the solver
#: answered before on that worker, its status does not.
TIMES = {"seconds", "prover_seconds", "elapsed", "created_at", "run_id", "model"}
#: A countermodel in the evidence, for the same reason: which model Z3's search settles on
#: depends on that worker's solver history, while that one
#: was found, for which direction and by which prover, does not. Its text becomes MODEL and its
#: JSON (`evidence_detail`, the audit's `evidence`) keeps the prover only.
COUNTERMODEL = re.compile(r"(the conclusion can (?:fail|hold)): .*? — (?=all premises hold)")
#: The same countermodel as report.md's table: its first line says which and by whom.
MODEL_TABLE = re.compile(
    r"(    ```text\n    the conclusion can [^\n]*\n).*?(?=    ```\n)", re.DOTALL
)
#: The queue's hashes of a row's tool cells, the evidence among them.
ROW_HASHES = ("row_hash", "row_seal")


def _without_models(text: str) -> str:
    """`text` with every evidence countermodel written as MODEL."""
    return MODEL_TABLE.sub(r"\1    MODEL\n", COUNTERMODEL.sub(r"\1: MODEL — ", text))


def _queue_without_models(path: Path) -> list[dict[str, str]]:
    """A review queue's rows with countermodels, and the hashes over them, hidden."""
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        {k: "HASH" if k in ROW_HASHES else _without_models(v) for k, v in row.items()}
        for row in rows
    ]


def _cluster(**env: str) -> Any:
    """A cluster started as `--task-runner dask` starts its own (`local_cluster_options`, in
    `local_cluster_config`)."""
    from distributed import LocalCluster

    from flows.cluster import local_cluster_config, local_cluster_options

    with local_cluster_config():
        return LocalCluster(**local_cluster_options(2), env=env or None)


@pytest.fixture(scope="module")
def dask_address(prefect_harness: None) -> Iterator[str]:
    """The scheduler address of a 2-worker LocalCluster, for `--task-runner dask://…`."""
    with _cluster() as cluster:
        yield cluster.scheduler_address.replace("tcp://", "dask://")


def _without_times(value: Any, run_id: str = "") -> Any:
    """`value` with time fields dropped, the run id blanked and countermodels hidden, recursively."""
    if isinstance(value, dict):
        return {
            k: (
                {d: {"prover": m["prover"]} for d, m in v.items()}
                if k == "countermodels"
                else _without_times(v, run_id)
            )
            for k, v in value.items()
            if k not in TIMES and not k.startswith("seconds_")
        }
    if isinstance(value, list):
        return [_without_times(v, run_id) for v in value]
    if isinstance(value, str):
        return _without_models(value.replace(run_id, "RUN") if run_id else value)
    return value


def _check(source: Path, out: Path, state: Path, runner: str, *extra: str) -> pd.DataFrame:
    os.environ["REFINERY_STATE_DIR"] = str(state)
    code = main(["check", str(source), "--out", str(out), "--workers", "2", "--quiet",
                 "--task-runner", runner, *extra])  # fmt: skip
    assert code == 0
    table = pd.read_parquet(out / "verdicts.parquet")
    json_columns = ("verdicts", "evidence_detail")
    parsed = {c: [_without_times(json.loads(v)) for v in table[c]] for c in json_columns}
    table = table.drop(columns=[c for c in table.columns if "seconds" in c] + list(json_columns))
    return table.assign(
        evidence=[_without_models(e) for e in table["evidence"]],
        **{c: [json.dumps(v, sort_keys=True) for v in parsed[c]] for c in json_columns},
    )


def _refine(source: Path, base: Path, runner: str) -> dict[str, Any]:
    """Every file of a rules-only Refine run, with run ids and times taken out."""
    os.environ["REFINERY_STATE_DIR"] = str(base / "state")
    # one sealing key for every run compared: the queue's row_seal is made with it
    (base / "state").mkdir(parents=True, exist_ok=True)
    (base / "state" / "queue.key").write_bytes(b"the same key for every run here..")
    out, review = base / "run", base / "review.csv"
    code = main(["refine", str(source), "--agents", "rules", "--workers", "2", "--out", str(out),
                 "--review", str(review), "--task-runner", runner])  # fmt: skip
    assert code == 0
    run_id = json.loads((out / "run.json").read_text(encoding="utf-8"))["run_id"]
    files: dict[str, Any] = {}
    for name in ("refined.jsonl", "audit.jsonl", "outcomes.jsonl"):
        lines = (out / name).read_text(encoding="utf-8").splitlines()
        files[name] = [_without_times(json.loads(line), run_id) for line in lines]
    for name in ("report.md", "changes.md"):
        files[name] = _without_times((out / name).read_text(encoding="utf-8"), run_id)
    files["review.csv"] = _queue_without_models(review)
    refined = pd.read_parquet(out / "refined.parquet").drop(columns=["run_id"])
    files["refined.parquet"] = _without_times(json.loads(refined.to_json(orient="records")))
    return files


@pytest.fixture(scope="module")
def folio(shared_data: Path) -> Path:
    path = shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl"
    if not path.is_file():
        pytest.skip(f"FOLIO v2 validation not found at {path}")
    return path


@pytest.fixture(scope="module")
def local_folio_check(folio: Path, tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    base = tmp_path_factory.mktemp("local-folio-check")
    return _check(folio, base / "out", base / "state", "local")


def test_check_and_refine_on_dask_equal_local_on_the_sample(
    dask_address: str, tmp_path: Path
) -> None:
    local = _check(SAMPLE, tmp_path / "l", tmp_path / "ls", "local")
    dask = _check(SAMPLE, tmp_path / "d", tmp_path / "ds", dask_address)
    pd.testing.assert_frame_equal(dask, local)
    assert _refine(SAMPLE, tmp_path / "rd", dask_address) == _refine(
        SAMPLE, tmp_path / "rl", "local"
    )


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.prover
def test_check_and_refine_on_dask_equal_local_on_folio_validation(
    dask_address: str, folio: Path, local_folio_check: pd.DataFrame, tmp_path: Path
) -> None:
    dask = _check(folio, tmp_path / "d", tmp_path / "ds", dask_address)
    assert len(dask) == 203
    pd.testing.assert_frame_equal(dask, local_folio_check)
    assert _refine(folio, tmp_path / "rd", dask_address) == _refine(folio, tmp_path / "rl", "local")


@pytest.mark.data
@pytest.mark.prover
def test_a_cluster_check_streams_its_chunks_and_equals_local(
    dask_address: str, slice_of_proofwriter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flows.cluster

    sent: list[int] = []
    real = flows.cluster.ClusterDispatch.__call__

    def counted(self: Any, stories: Any, job: Any) -> Any:
        sent.append(sum(len(story) for story in stories))
        return real(self, stories, job)

    # chunks of 20 questions, so the run's few theories take several
    monkeypatch.setattr(flows.cluster, "chunk_items", lambda workers: 20)
    monkeypatch.setattr(flows.cluster.ClusterDispatch, "__call__", counted)
    dask = _check(slice_of_proofwriter, tmp_path / "d", tmp_path / "ds", dask_address)
    local = _check(slice_of_proofwriter, tmp_path / "l", tmp_path / "ls", "local")
    pd.testing.assert_frame_equal(dask, local)
    assert len(sent) >= 3 and sum(sent) == len(local)
    assert (local["label_dataset"] != "").all()  # ProofWriter's own semantics, in every chunk


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.prover
def test_a_worker_killed_mid_run_changes_nothing(
    prefect_harness: None, folio: Path, local_folio_check: pd.DataFrame, tmp_path: Path
) -> None:
    from distributed import Client

    killed: list[int] = []
    with _cluster() as cluster, Client(cluster) as client:

        def kill_one_busy_worker() -> None:
            # wait until batches are running, then SIGKILL the process of a busy worker
            for _ in range(600):
                busy = [w for w, tasks in client.processing().items() if tasks]
                if busy:
                    time.sleep(1.0)
                    pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    return
                time.sleep(0.1)

        killer = threading.Thread(target=kill_one_busy_worker, daemon=True)
        killer.start()
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        dask = _check(folio, tmp_path / "d", tmp_path / "ds", address)
        killer.join(timeout=5)
        pids = set(client.run(os.getpid).values())
    assert killed and killed[0] not in pids, "a worker was killed and replaced during the run"
    pd.testing.assert_frame_equal(dask, local_folio_check)


def test_a_run_s_own_workers_start_with_the_batch_code_and_no_profiler() -> None:
    """What the workers of `--task-runner dask` cost before their first batch is paid as they
    start (a fresh cluster: no task has run on it); Dask's statistical profiler, which nothing
    reads, is off, its housekeeping is thinned, and glibc trims memory as it would anyway (Dask's
    `MALLOC_TRIM_THRESHOLD_=65536` makes every Z3 context four times dearer)."""
    import dask
    from distributed import Client

    def started() -> tuple[bool, bool, str, str | None]:
        return (
            "tasks.batches" in sys.modules,
            bool(dask.config.get("distributed.worker.profile.enabled")),
            dask.config.get("distributed.admin.tick.interval"),
            os.environ.get("MALLOC_TRIM_THRESHOLD_"),
        )

    with _cluster() as cluster, Client(cluster) as client:
        found = client.run(started)
        memory_watch = {n.memory_manager.memory_monitor_interval for n in cluster.workers.values()}
    assert len(found) == 2 and set(found.values()) == {(True, False, "1s", None)}
    assert memory_watch == {1.0}  # each nanny still watches its worker, once a second


def test_a_worker_without_e_is_named_in_the_error(prefect_harness: None, tmp_path: Path) -> None:
    from flows.check import check_flow
    from refinery.errors import ProverUnavailable

    with _cluster(EPROVER_PATH=str(tmp_path / "no-eprover-here")) as cluster:
        workers = "|".join(cluster.scheduler_info["workers"])
        with pytest.raises(ProverUnavailable) as raised:
            check_flow(
                sources=[str(SAMPLE)],
                provers=["z3", "eprover"],
                budget_seconds=5.0,
                rlimit=None,
                workers=2,
                cache=None,
                task_runner=cluster.scheduler_address.replace("tcp://", "dask://"),
            )
    # `refinery check` prints this message and exits 2, like any RefineryError
    assert re.fullmatch(
        rf"on dask worker ({workers}) \(.+\): prover 'eprover' is not available on this machine",
        str(raised.value),
    ), str(raised.value)


def test_a_prover_timeout_is_undecided_and_never_retried(dask_address: str, tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

    started = datetime.now(UTC)
    # a resource limit of 1 stops Z3 on every question: Unknown, never a task failure
    table = _check(SAMPLE, tmp_path / "d", tmp_path / "s", dask_address, "--provers", "z3",
                   "--rlimit", "1")  # fmt: skip
    parsed = table[~table["category"].isin(["parse_error", "lint_error"])]
    assert set(parsed["category"]) == {"undecided"} and set(parsed["label_z3"]) == {"Unknown"}
    with get_client(sync_client=True) as client:
        runs = client.read_task_runs(
            task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_="check-batch-"))
        )
    ours = [r for r in runs if r.start_time and r.start_time >= started]
    assert ours and all(r.run_count == 1 and r.state_type.value == "COMPLETED" for r in ours)


def test_check_on_ray_equals_local(prefect_harness: None, tmp_path: Path) -> None:
    pytest.importorskip(
        "prefect_ray", reason="Ray is the optional extra fol-refinery[ray]; `make test` has it"
    )
    local = _check(SAMPLE, tmp_path / "l", tmp_path / "ls", "local")
    ray = _check(SAMPLE, tmp_path / "r", tmp_path / "rs", "ray")
    pd.testing.assert_frame_equal(ray, local)


def test_llm_requests_share_one_global_concurrency_limit(prefect_harness: None) -> None:
    from prefect.client.orchestration import get_client

    from refinery.prove.verdict import Budget
    from refinery.repair import RepairConfig
    from tasks.batches import LLM_LIMIT, llm_slot, plan_repair_task

    config = RepairConfig(agents=("rules", "llm"))
    plan = plan_repair_task([], [], ["z3"], Budget(), config, (None, None), 1)
    assert plan.job.llm_gate is llm_slot  # every worker's client takes a slot per request
    with get_client(sync_client=True) as client:
        assert client.read_global_concurrency_limit_by_name(LLM_LIMIT).limit == 1
    inside, peak = [0], [0]
    lock = threading.Lock()

    def request() -> None:
        with llm_slot():
            with lock:
                inside[0] += 1
                peak[0] = max(peak[0], inside[0])
            time.sleep(0.3)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=request) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert peak[0] == 1
