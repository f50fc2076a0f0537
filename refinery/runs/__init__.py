"""Run folders: what a Refine run (or a review round applied to it) leaves on disk.

`folder` reads and writes a run folder (`run.json`, `outcomes.jsonl`) and finds its neighbours;
`refined` writes the refined split and the audit trail; `changes` compares a run with the
previous run of its split. Later stages (review apply, publish, scheduled runs) read runs only
through this package.
"""

from refinery.runs.folder import (
    OUTCOMES_FILE,
    RUN_FILE,
    Run,
    load_run,
    previous_run,
    read_jsonl,
    run_folders,
    update_meta,
    write_meta,
    write_outcomes,
)

__all__ = [
    "OUTCOMES_FILE",
    "RUN_FILE",
    "Run",
    "load_run",
    "previous_run",
    "read_jsonl",
    "run_folders",
    "update_meta",
    "write_meta",
    "write_outcomes",
]
