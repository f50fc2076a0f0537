"""Step progress: listeners see every step a run starts; the flow's steps are progress artifacts."""

from __future__ import annotations

from refinery import progress


def test_a_listener_sees_each_step_only_while_it_listens() -> None:
    seen: dict[str, list[int]] = {}

    def stage(name: str, total: int) -> progress.Advance:
        seen[name] = [total, 0]
        return lambda n: seen[name].__setitem__(1, seen[name][1] + n)

    also: list[int] = []
    with progress.listening(stage):
        advance = progress.started("check", 5, also.append)
        for _ in range(5):
            advance(1)
    assert seen == {"check": [5, 5]} and also == [1, 1, 1, 1, 1]
    progress.started("repair", 3)(3)  # nobody listens any more
    assert "repair" not in seen


def test_a_terminal_that_is_not_a_tty_gets_plain_lines_and_no_bar() -> None:
    import io

    from rich.console import Console

    sink = io.StringIO()
    with progress.terminal(Console(file=sink), enabled=True) as stage:
        advance = stage("check", 20)
        for _ in range(20):
            advance(1)
        stage("repair", 0)
    lines = sink.getvalue().splitlines()
    assert lines[:2] == ["check: 0/20 (0%)", "check: 2/20 (10%)"]
    assert lines[-2:] == ["check: 20/20 (100%)", "repair: 0/0"]
    assert len(lines) == 12 and "\x1b" not in sink.getvalue()  # no bar, no escape codes
    quiet = io.StringIO()
    with progress.terminal(Console(file=quiet), enabled=False) as stage:
        stage("check", 2)(2)
    assert quiet.getvalue() == ""


def test_the_flow_reports_each_step_as_a_progress_artifact(prefect_harness: None) -> None:
    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from tasks.refine import stage_progress

    @flow
    def steps() -> None:
        advance = stage_progress("check", 4, every=3600.0)  # only the last update goes out
        for _ in range(4):
            advance(1)

    steps()
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["refine-check-progress"]))
        )
    assert found, "no progress artifact"
    latest = max(found, key=lambda a: a.updated or a.created)
    assert latest.type == "progress" and float(latest.data) == 100.0
    assert latest.description == "4/4 items"
