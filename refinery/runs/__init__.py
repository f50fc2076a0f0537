"""Run folders: what a Refine run (or a review round applied to it) leaves on disk.

`folder` reads and writes a run folder (`write_run`: the refined split, `outcomes.jsonl` and
`run.json`, whose two kinds `refine_meta` and `review_meta` build), builds it aside and renames
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
    load_meta,
    load_run,
    previous_run,
    read_jsonl,
    refine_meta,
    release,
    review_meta,
    run_folders,
    staging_path,
    update_meta,
    write_meta,
    write_outcomes,
    write_run,
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
    "load_meta",
    "load_run",
    "previous_run",
    "read_jsonl",
    "refine_meta",
    "release",
    "review_meta",
    "run_folders",
    "staging_path",
    "update_meta",
    "write_meta",
    "write_outcomes",
    "write_run",
]
