"""Run folders: what a Refine run (or a review round applied to it) leaves on disk.

`folder` reads and writes a run folder (`run.json`, `outcomes.jsonl`), builds it aside and renames
it into place (`claim`, `finish`, `building`), and finds its complete neighbours;
`refined` writes the refined split and the audit trail; `changes` compares a run with the
previous run of its split. Later stages (review apply, publish, scheduled runs) read runs only
through this package.
"""

from refinery.runs.folder import (
    OUTCOMES_FILE,
    RUN_FILE,
    IncompleteRunWarning,
    Run,
    building,
    check_free,
    claim,
    finish,
    incomplete_reason,
    load_run,
    previous_run,
    read_jsonl,
    release,
    run_folders,
    staging_path,
    update_meta,
    write_meta,
    write_outcomes,
)

__all__ = [
    "OUTCOMES_FILE",
    "RUN_FILE",
    "IncompleteRunWarning",
    "Run",
    "building",
    "check_free",
    "claim",
    "finish",
    "incomplete_reason",
    "load_run",
    "previous_run",
    "read_jsonl",
    "release",
    "run_folders",
    "staging_path",
    "update_meta",
    "write_meta",
    "write_outcomes",
]
