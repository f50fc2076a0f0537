"""Publishing a refined split: a Hub-ready folder with its card, and the push to the Hub.

`folder.build` writes a run's split, changelog and dataset card (`card`) into a publish folder;
`hub.plan_push` turns that folder into the exact commit, `hub.push` sends it.
"""

from refinery.publish.folder import (
    MANIFEST,
    PUSH_RECORD,
    Publication,
    build,
    change_rows,
    check_repo_id,
    default_out,
    hub_split,
    read_manifest,
)
from refinery.publish.hub import (
    HubApi,
    Operation,
    PushPlan,
    hub_api,
    plan_push,
    push,
    record_push,
    summary_lines,
)

__all__ = [
    "MANIFEST",
    "PUSH_RECORD",
    "HubApi",
    "Operation",
    "Publication",
    "PushPlan",
    "build",
    "change_rows",
    "check_repo_id",
    "default_out",
    "hub_api",
    "hub_split",
    "plan_push",
    "push",
    "read_manifest",
    "record_push",
    "summary_lines",
]
