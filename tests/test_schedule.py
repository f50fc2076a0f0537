"""Scheduled runs: change-only reports under the flow harness, and a served deployment on a server.

The harness tests run the refine flow three times into one split folder: the first run, a re-run
on unchanged data (cache hits, "no changes", Completed), and a run on the sample plus one item
whose gold label is wrong (a new conflict: Failed, with an artifact saying why). The slow test
starts a real `prefect server`, serves the deployment with `refinery schedule`, triggers a run
and waits for it to complete.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from refinery.cli import main
from refinery.errors import ConfigError
from refinery.pipeline import RefineSettings

from runs import split_settings

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"
BIN = Path(sys.executable).parent
#: Pip eats acorns (item 101) is provable, so gold label False is a label mismatch.
WRONG_LABEL_ITEM = 104


def _settings(split: Path, run_id: str, source: Path = SAMPLE) -> RefineSettings:
    return split_settings(split, run_id, source, fail_on_new_conflicts=True)


def _sample_plus_wrong_label(path: Path) -> Path:
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    extra = {**next(r for r in rows if r["example_id"] == 101)}
    extra.update(example_id=WRONG_LABEL_ITEM, label="False")
    lines = [json.dumps(r, ensure_ascii=False) for r in [*rows, extra]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def two_runs(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A split folder with a first run and a re-run of the unchanged sample."""
    from flows.refine import refine_flow

    split = tmp_path_factory.mktemp("refined") / "folio-sample" / "all"
    states = {}
    for run_id in ("20260101-030000", "20260102-030000"):
        started = time.perf_counter()
        states[run_id] = refine_flow(_settings(split, run_id), return_state=True)
        print(f"flow run {run_id}: {time.perf_counter() - started:.1f}s")
    return {"split": split, "states": states}


def test_a_rerun_on_unchanged_data_reports_no_changes(two_runs: dict[str, Any]) -> None:
    first, again = two_runs["states"].values()
    assert first.is_completed() and again.is_completed()
    assert first.result()["changes"]["first_run"]
    changes = again.result()["changes"]
    assert changes["no_changes"] and changes["previous_run_id"] == "20260101-030000"
    assert changes["cache"]["hits"] == changes["cache"]["items"] == 18
    md = (two_runs["split"] / "20260102-030000" / "changes.md").read_text(encoding="utf-8")
    assert "No changes since run 20260101-030000." in md
    saved = json.loads((two_runs["split"] / "20260102-030000" / "changes.json").read_text())
    assert saved["no_changes"] and saved["new_conflicts"] == []


def test_a_new_conflict_fails_the_run_with_an_artifact(
    two_runs: dict[str, Any], tmp_path: Path
) -> None:
    from prefect.artifacts import Artifact

    from flows.refine import refine_flow

    source = _sample_plus_wrong_label(tmp_path / "folio_sample.jsonl")
    started = time.perf_counter()
    state = refine_flow(_settings(two_runs["split"], "20260103-030000", source), return_state=True)
    print(f"flow run with a new conflict: {time.perf_counter() - started:.1f}s")
    assert state.is_failed()
    assert state.message.startswith(
        "1 new conflict since run 20260102-030000: folio-sample/all/104"
    )
    summary = state.result(raise_on_failure=False)
    changes = summary["changes"]
    assert changes["added"] == changes["new_conflicts"] == ["folio-sample/all/104"]
    # verdicts are cached by problem, and 104 asks 101's questions: only its outcome is fresh
    assert changes["cache"]["hits"] == changes["cache"]["items"] == 19
    assert summary["counts"]["needs_review"] == 5
    artifact = Artifact.get("refine-new-conflicts-folio-sample-all")
    assert artifact is not None and artifact.flow_run_id == state.state_details.flow_run_id
    assert "folio-sample/all/104" in str(artifact.data)
    assert (two_runs["split"] / "20260103-030000" / "changes.md").is_file()


def test_the_interactive_default_never_fails_on_conflicts() -> None:
    assert RefineSettings(source="x").fail_on_new_conflicts is False


def test_deployment_parameters_leave_out_the_per_run_options(tmp_path: Path) -> None:
    from flows.serve import deployment_parameters

    settings = RefineSettings(source="x", runs_dir=str(tmp_path), fail_on_new_conflicts=True)
    params = deployment_parameters(settings)["settings"]
    assert "run_id" not in params and "out_dir" not in params and "endpoint" not in params
    rebuilt = RefineSettings(**params)  # what each run gets: its own run id
    assert rebuilt.fail_on_new_conflicts and rebuilt.runs_dir == str(tmp_path)
    with pytest.raises(ConfigError, match="runs_dir"):
        deployment_parameters(RefineSettings(source="x", out_dir="one/folder"))


def test_prefect_yaml_describes_the_same_deployment() -> None:
    from prefect.cli.deploy._models import PrefectYamlModel
    from prefect.client.schemas.schedules import CronSchedule

    from flows.refine import refine_flow

    config = PrefectYamlModel.model_validate(
        yaml.safe_load((REPO / "prefect.yaml").read_text(encoding="utf-8"))
    )
    (deployment,) = config.deployments
    assert deployment.entrypoint == "flows/refine.py:refine_flow" and refine_flow.name == "refine"
    settings = RefineSettings(**deployment.parameters["settings"])
    assert (REPO / settings.source).is_file() and settings.fail_on_new_conflicts
    assert settings.out_dir is None  # a new folder per run
    (schedule,) = deployment.schedules or []
    assert CronSchedule(cron=getattr(schedule, "cron", "")).cron == "0 3 * * *"


def test_schedule_refuses_bad_agents_before_importing_prefect() -> None:
    assert main(["schedule", str(SAMPLE), "--agents", "llm"]) == 2


# -- a real server ---------------------------------------------------------------------------------

TRIGGER = """
import json, sys
from prefect.deployments import run_deployment
run = run_deployment(sys.argv[1], timeout=float(sys.argv[2]), poll_interval=1)
print("RESULT " + json.dumps({"state": run.state.type.value, "message": run.state.message}))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def _wait_for(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"process exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            return _get(url)
        except (urllib.error.URLError, OSError):
            time.sleep(0.25)
    pytest.fail(f"{url} did not answer in {timeout}s:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after 15 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@pytest.mark.slow
def test_a_served_deployment_runs_on_a_real_server(tmp_path: Path) -> None:
    port = _free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{tmp_path / 'prefect.db'}",
        "PREFECT_API_URL": api,
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",  # pick the triggered run up at once
        "REFINERY_STATE_DIR": str(tmp_path / "state"),
    }
    (tmp_path / "prefect").mkdir()
    procs: list[subprocess.Popen[bytes]] = []
    logs = {name: tmp_path / f"{name}.log" for name in ("server", "serve")}

    def spawn(name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        with logs[name].open("wb") as out:
            proc = subprocess.Popen(
                argv, env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        procs.append(proc)
        return proc

    try:
        t0 = time.perf_counter()
        server = spawn(
            "server",
            [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port),
             "--no-ui"],
        )  # fmt: skip
        _wait_for(f"{api}/health", server, logs["server"], timeout=90)
        t_server = time.perf_counter() - t0

        t0 = time.perf_counter()
        serve = spawn(
            "serve",
            [str(BIN / "refinery"), "schedule", str(SAMPLE), "--cron", "0 3 * * *",
             "--name", "nightly-test", "--agents", "rules", "--workers", "2",
             "--runs-dir", str(tmp_path / "refined"), "--review", str(tmp_path / "review.csv")],
        )  # fmt: skip
        deployment = _wait_for(
            f"{api}/deployments/name/refine/nightly-test", serve, logs["serve"], timeout=90
        )
        t_deploy = time.perf_counter() - t0
        assert [s["schedule"]["cron"] for s in deployment["schedules"]] == ["0 3 * * *"]
        assert deployment["parameters"]["settings"]["fail_on_new_conflicts"] is True

        t0 = time.perf_counter()
        trigger = subprocess.run(
            [sys.executable, "-c", TRIGGER, "refine/nightly-test", "180"],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240,
        )  # fmt: skip
        t_run = time.perf_counter() - t0
        line = next((x for x in trigger.stdout.splitlines() if x.startswith("RESULT ")), None)
        assert line is not None, trigger.stdout + trigger.stderr + logs["serve"].read_text()
        result = json.loads(line.removeprefix("RESULT "))
        assert result["state"] == "COMPLETED", f"{result}\n{logs['serve'].read_text()[-4000:]}"
        # near 03:00 UTC the cron schedule may add a run of its own: look at the oldest folder
        first, *_ = sorted((tmp_path / "refined" / "folio-sample" / "all").iterdir())
        assert (first / "run.json").is_file() and (first / "refined.jsonl").is_file()
        assert "First run of this split" in (first / "changes.md").read_text()
        print(
            f"\nserver up {t_server:.1f}s, deployment served {t_deploy:.1f}s, "
            f"triggered run (incl. trigger process) {t_run:.1f}s"
        )
    finally:
        for proc in reversed(procs):  # the serving process first: it pauses its schedule
            _stop(proc)
