"""`refinery refine` and the command line's contract, run as users run them (subprocesses).

The version, one-line errors before anything slow, the LLM critic as an opt-in, `--no-prefect`
re-runs that import neither Prefect nor great-expectations, the summary printed once, and
`check --fail-on` as a gate for CI jobs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pandas as pd
import pytest
from commands import run

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"
SAMPLE_COUNTS = {"verified": 6, "repaired": 8, "needs_review": 4}

#: Runs `refinery.cli.main(argv)`, then prints on stderr which heavy libraries it imported.
_IMPORTS_PROBE = """
import json, sys
from refinery.cli import main
code = main(sys.argv[1:])
heavy = ("prefect", "great_expectations", "pandas")
print("IMPORTED " + json.dumps(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
raise SystemExit(code)
"""


def probe(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str, list[str]]:
    """Exit code, stdout, stderr and the heavy libraries `refinery ARGS` imported."""
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTS_PROBE, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        env={**os.environ, **env},
    )
    marker = [line for line in proc.stderr.splitlines() if line.startswith("IMPORTED ")]
    assert marker, proc.stderr
    imported = json.loads(marker[-1].removeprefix("IMPORTED "))
    return proc.returncode, proc.stdout, proc.stderr, imported


def test_version(tmp_path: Path) -> None:
    from importlib import metadata

    proc = run("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"refinery {metadata.version('fol-refinery')}"


def test_a_missing_source_fails_with_one_line_before_anything_is_imported(tmp_path: Path) -> None:
    for command in ("refine", "check"):
        code, out, err, imported = probe(command, "missing.jsonl", cwd=tmp_path, env={})
        assert code == 2 and out == ""
        lines = [line for line in err.splitlines() if not line.startswith("IMPORTED ")]
        assert lines == ["refinery: error: missing.jsonl: no such file"]
        assert imported == []  # failed before Prefect, great-expectations or pandas


def test_an_out_folder_that_holds_files_is_refused_before_prefect_starts(tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", encoding="utf-8")
    code, out, err, imported = probe(
        "refine", str(SAMPLE), "--out", str(busy), cwd=tmp_path, env={}
    )
    lines = [line for line in err.splitlines() if not line.startswith("IMPORTED ")]
    assert (code, out) == (2, "") and "Traceback" not in err
    assert lines == [
        f"refinery: error: {busy} already exists and is not an empty folder; refusing to write "
        "a run into it"
    ]
    assert "prefect" not in imported
    assert (busy / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_the_llm_critic_is_opt_in_and_never_silently_the_embedded_model(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": ""}
    proc = run("refine", str(SAMPLE), "--agents", "rules,llm", cwd=tmp_path, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "refinery: error: the llm agent needs an OpenAI-compatible endpoint: set "
        "OPENAI_BASE_URL or pass --llm URL (or --llm embedded for the embedded demonstration "
        "model)"
    ]
    helptext = run("refine", "--help", cwd=tmp_path).stdout
    assert "default: rules]" in " ".join(helptext.split())
    assert "demonstration of the wiring, not a useful critic" in " ".join(helptext.split())


def test_no_prefect_runs_every_step_and_an_unchanged_rerun_imports_no_heavy_library(
    tmp_path: Path,
) -> None:
    env = {"REFINERY_STATE_DIR": str(tmp_path / "state")}
    args = ("refine", str(SAMPLE), "--no-prefect", "--json", "--review", str(tmp_path / "q.csv"))
    code, out, err, imported = probe(*args, "--out", str(tmp_path / "a"), cwd=tmp_path, env=env)
    assert code == 0, err
    first = json.loads(out)
    assert first["counts"] == SAMPLE_COUNTS
    run_dir = tmp_path / "a"
    for name in ("refined.parquet", "outcomes.jsonl", "report.md", "report.html", "changes.md"):
        assert (run_dir / name).is_file(), name
    # the same steps as the flow: both validations are in the report, the queue is written
    assert "refine_input" in (run_dir / "report.md").read_text(encoding="utf-8")
    assert len((tmp_path / "q.csv").read_text(encoding="utf-8").splitlines()) > 1
    assert "prefect" not in imported  # a one-off run pays no orchestrator

    code, out, err, imported = probe(*args, "--out", str(tmp_path / "b"), cwd=tmp_path, env=env)
    assert code == 0, err
    again = json.loads(out)
    assert again["counts"] == SAMPLE_COUNTS
    assert again["changes"]["headline"] == f"no changes since run {first['run_id']}"
    # validations, verdicts and outcomes come from the content-hash caches
    assert imported == []


def test_refine_through_prefect_prints_its_summary_once_and_no_library_chatter(
    tmp_path: Path,
) -> None:
    env = {"REFINERY_STATE_DIR": str(tmp_path / "state")}
    proc = run(
        "refine",
        str(SAMPLE),
        "--out",
        str(tmp_path / "run"),
        "--review",
        str(tmp_path / "q.csv"),
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    both = proc.stdout + proc.stderr
    assert proc.stdout.count("refined split and report:") == 1
    headers = [line for line in both.splitlines() if line.startswith("run ")]
    assert len(headers) == 1 and headers[0].endswith(": 18 items")
    assert "Created temporary directory" not in both  # great-expectations' notices
    assert "| INFO " not in both  # Prefect's per-run log lines, unless --verbose


def test_check_fail_on_gates_a_ci_job(tmp_path: Path, shared_data: Path) -> None:
    validation = shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl"
    env = {"REFINERY_STATE_DIR": str(tmp_path / "state")}
    out = tmp_path / "out"
    gated = run(
        "check", str(validation), "--out", str(out), "--fail-on", "label_mismatch,parse_error",
        "--json", cwd=tmp_path, env=env,
    )  # fmt: skip
    assert gated.returncode == 1, gated.stderr
    summary = json.loads(gated.stdout)
    assert summary["items"] == 203
    assert summary["failed_gates"] == {
        c: summary["categories"][c] for c in ("parse_error", "label_mismatch")
    }
    assert all(n > 0 for n in summary["failed_gates"].values())
    ids = summary["failing_ids"]
    assert {c: len(v) for c, v in ids.items()} == summary["failed_gates"]
    rows = {r["id"]: r["category"] for r in pd.read_csv(out / "verdicts.csv").to_dict("records")}
    assert all(rows[i] == c for c, found in ids.items() for i in found)
    assert "--fail-on: parse_error" in gated.stderr
    # a gate the data passes exits 0; a category that does not exist is a usage error
    passed = run("check", str(validation), "--out", str(out), "--fail-on", "undecided",
                 cwd=tmp_path, env=env)  # fmt: skip
    assert passed.returncode == 0, passed.stderr
    bad = run("check", str(validation), "--fail-on", "mismatch", cwd=tmp_path, env=env)
    assert bad.returncode == 2 and "unknown category mismatch" in bad.stderr


def test_no_prefect_refuses_a_cluster(tmp_path: Path) -> None:
    proc = run("refine", str(SAMPLE), "--no-prefect", "--task-runner", "dask", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "refinery: error: --no-prefect runs on this machine; --task-runner dask|ray needs Prefect"
    )


def _values(*argv: str) -> dict[str, Any]:
    """What `refinery ARGV` would hand its command, parsed but not run."""
    from refinery.cli import cli

    context = cli.make_context("refinery", list(argv[:1]))
    command = cli.get_command(context, argv[0])
    assert command is not None
    return command.make_context(argv[0], list(argv[1:]), parent=context).params


def _commands(group: Any) -> Iterator[tuple[str, Any]]:
    for name, command in group.commands.items():
        yield name, command
        if hasattr(command, "commands"):
            yield from ((f"{name} {sub}", c) for sub, c in _commands(command))


def test_every_long_option_reads_its_environment_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from refinery.cli import cli

    monkeypatch.setenv("REFINERY_WORKERS", "3")
    monkeypatch.setenv("REFINERY_NO_EVIDENCE", "yes")
    monkeypatch.setenv("REFINERY_FAIL_ON", "parse_error")
    values = _values("check", "x.jsonl")
    assert (values["workers"], values["no_evidence"], values["fail_on"]) == (3, True, "parse_error")
    assert _values("check", "x.jsonl", "--workers", "1")["workers"] == 1  # the command line wins
    monkeypatch.setenv("REFINERY_NO_EVIDENCE", "0")
    assert _values("check", "x.jsonl")["no_evidence"] is False
    monkeypatch.setenv("REFINERY_AGENTS", "rules,llm")
    assert _values("refine", "x.jsonl")["agents"] == "rules,llm"
    monkeypatch.setenv("REFINERY_QUEUE", "q.csv")  # nested subcommands too
    review = cli.commands["review"]
    status = review.commands["status"]  # type: ignore[attr-defined]
    assert status.make_context("status", []).params["queue"] == Path("q.csv")
    # every option of every command has help text and names its variable there
    checked = 0
    for name, command in _commands(cli):
        for param in command.params:
            if param.param_type_name != "option" or name == "" or "--version" in param.opts:
                continue
            long = next(o for o in param.opts if o.startswith("--"))
            expected = "REFINERY_" + long[2:].replace("-", "_").upper()
            assert param.help and param.envvar == expected, (name, long)
            record = param.get_help_record(click.Context(command))
            assert record is not None and expected in record[1], (name, long)
            checked += 1
    assert checked > 60


def test_a_bad_environment_value_fails_like_a_bad_option(tmp_path: Path) -> None:
    proc = run("check", str(SAMPLE), cwd=tmp_path, env={"REFINERY_WORKERS": "many"})
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "refinery check: error: Invalid value for '--workers' (env var: 'REFINERY_WORKERS'): "
        "'many' is not a valid integer."
    ]


def test_options_with_an_optional_value_and_negatable_flags_parse_as_documented(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from refinery.cli import cli

    serve = cli.commands["review"].commands["serve"]  # type: ignore[attr-defined]
    token = [serve.make_context("serve", argv).params["token"] for argv in (["--token"], [])]
    assert token == ["", None]  # bare --token or none: a random one
    assert serve.make_context("serve", ["--token", "abc"]).params["token"] == "abc"
    assert serve.make_context("serve", ["--no-token"]).params["no_token"] is True
    assert _values("schedule", "x.jsonl")["fail_on_new_conflicts"] is True
    assert (
        _values("schedule", "x.jsonl", "--no-fail-on-new-conflicts")["fail_on_new_conflicts"]
        is False
    )
    monkeypatch.setenv("REFINERY_FAIL_ON_NEW_CONFLICTS", "0")
    assert _values("schedule", "x.jsonl")["fail_on_new_conflicts"] is False
