"""Publishing a refined split: a Hub-ready folder with its card, and the push to the Hub.

`folder.build` writes a run's split, its clean subset, changelog and dataset card (`card`, with
the columns' types and meanings from `columns` and the data's origin from `origin`) into a
publish folder; `hub.plan_push` turns that folder into the exact commit, `hub.push` sends it.
`folder.read_split` and `hub.download` read a release back, locally or from the Hub.
"""

from refinery.publish.columns import CLEAN_STATUSES, CONFIGS, LABEL_NAMES, is_clean
from refinery.publish.folder import (
    MANIFEST,
    PUSH_RECORD,
    Publication,
    build,
    change_rows,
    check_repo_id,
    default_out,
    hub_split,
    published_splits,
    read_manifest,
    read_split,
)
from refinery.publish.hub import (
    HubApi,
    Operation,
    PushPlan,
    download,
    hub_api,
    plan_push,
    push,
    record_push,
    summary_lines,
)

__all__ = [
    "CLEAN_STATUSES",
    "CONFIGS",
    "LABEL_NAMES",
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
    "download",
    "hub_api",
    "hub_split",
    "is_clean",
    "plan_push",
    "published_splits",
    "push",
    "read_manifest",
    "read_split",
    "record_push",
    "summary_lines",
]
