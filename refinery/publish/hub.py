"""Publishing a run to the Hugging Face Hub: the exact commit a built folder makes, and the push.

`plan_push` turns a folder `refinery.publish.folder.build` wrote into one commit (operations,
message, description) and a tag, without any network. `push` sends that plan through an
`HfApi`-like object; `record_push` notes locally what was pushed, so the next build starts a new
version against it. `download` brings a published release back (for `refinery rescore`).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from refinery.errors import RefineryError
from refinery.outputs import atomic_write_text
from refinery.publish.card import change_counts, changelog_lines
from refinery.publish.folder import MANIFEST, PUSH_RECORD, Publication, read_manifest

#: What `download` fetches of a release: enough to score against its refined split(s).
DOWNLOAD_PATTERNS = ("README.md", MANIFEST, "refined/*.parquet")


@dataclass(frozen=True)
class Operation:
    """One file of a commit: add `local_path` at `path_in_repo`, or delete `path_in_repo`."""

    kind: Literal["add", "delete"]
    path_in_repo: str
    local_path: Path | None = None


@dataclass(frozen=True)
class PushPlan:
    """Everything one push does, decided before any network: one commit, then one tag."""

    repo_id: str
    operations: tuple[Operation, ...]
    message: str
    description: str
    tag: str


class HubApi(Protocol):
    """The part of `huggingface_hub.HfApi` a push uses (tests pass a recording fake)."""

    def create_repo(self, repo_id: str, *, repo_type: str, exist_ok: bool) -> Any: ...

    def create_commit(
        self,
        repo_id: str,
        operations: Sequence[Any],
        *,
        commit_message: str,
        commit_description: str,
        repo_type: str,
    ) -> Any: ...

    def create_tag(
        self, repo_id: str, *, tag: str, tag_message: str, revision: str, repo_type: str
    ) -> Any: ...


def plan_push(folder: Path, *, tag: str | None = None) -> PushPlan:
    """The exact commit a push of `folder` makes: every file of the release, deletions of the
    previous release's files that are gone, the message, and the tag."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise RefineryError(f"{folder} is not a publish folder (no {MANIFEST}); build it first")
    adds = [Operation("add", f, folder / f) for f in manifest["files"]]
    missing = [op.path_in_repo for op in adds if not (folder / op.path_in_repo).is_file()]
    if missing:
        raise RefineryError(f"{folder} lacks {', '.join(missing)}; rebuild it")
    old = set((manifest["baseline"] or {}).get("files", [])) - set(manifest["files"])
    deletes = [Operation("delete", f) for f in sorted(old)]
    entry = manifest["changelog"][0]
    tag = tag or manifest["tag"]
    splits = ", ".join(manifest["splits"])
    message = f"{tag}: {manifest['dataset']} ({splits}), {change_counts(entry)}"
    runs = [f"- split `{n}`: run `{s['run_id']}`" for n, s in manifest["splits"].items()]
    description = "\n".join(["Runs:", *runs, "", "Changes:", *changelog_lines(entry)])
    return PushPlan(
        repo_id=manifest["repo_id"],
        operations=(*adds, *deletes),
        message=message,
        description=description,
        tag=tag,
    )


#: How long the Hub may take over any one step of a request (connecting, sending a chunk,
#: answering): its client waits for ever by default, so an endpoint that never answers hung
#: a push.
HUB_SECONDS = 60.0


def bounded_hub() -> None:
    """Give the Hub client's shared session a deadline on every step (`HUB_SECONDS`)."""
    from huggingface_hub import get_session

    get_session().timeout = HUB_SECONDS


def hub_api() -> HubApi:
    """An `HfApi` with the token from ``HF_TOKEN`` or the saved login; none is `RefineryError`."""
    from huggingface_hub import HfApi, get_token

    token = get_token()  # HF_TOKEN first, then the token `hf auth login` saved; never printed
    if not token:
        raise RefineryError("no Hugging Face token: set HF_TOKEN or log in with `hf auth login`")
    bounded_hub()
    api: HubApi = HfApi(token=token)
    return api


def push(api: HubApi, plan: PushPlan) -> str:
    """Create the dataset repo if needed, make the plan's one commit, tag it; return its URL."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=op.path_in_repo, path_or_fileobj=str(op.local_path))
        if op.kind == "add"
        else CommitOperationDelete(path_in_repo=op.path_in_repo)
        for op in plan.operations
    ]
    step = "creating the repository"
    try:
        api.create_repo(plan.repo_id, repo_type="dataset", exist_ok=True)
        step = "committing"
        info = api.create_commit(
            plan.repo_id,
            operations,
            commit_message=plan.message,
            commit_description=plan.description,
            repo_type="dataset",
        )
        step = f"tagging {plan.tag} (the commit was made)"
        api.create_tag(
            plan.repo_id,
            tag=plan.tag,
            tag_message=plan.message,
            revision=info.oid,
            repo_type="dataset",
        )
    # the Hub client raises httpx, OSError, ValueError and its own errors; at this one boundary
    # every failure becomes a message for the user, not a traceback
    except Exception as err:
        raise RefineryError(
            f"push to {plan.repo_id} failed while {step}: {type(err).__name__}: {err}"
        ) from err
    return str(getattr(info, "commit_url", "") or info.oid)


def record_push(
    folder: Path, plan: PushPlan, commit: str, *, now: dt.datetime | None = None
) -> Path:
    """Note locally that this folder's release was pushed: the next build starts a new version."""
    manifest = read_manifest(folder) or {}
    record = {
        "repo_id": plan.repo_id,
        "version": manifest.get("version"),
        "tag": plan.tag,
        "commit": commit,
        "pushed_at": (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
    }
    return atomic_write_text(folder / PUSH_RECORD, json.dumps(record, indent=1) + "\n")


def download(repo_id: str) -> Path:
    """The local folder of a published dataset's card, manifest and refined split(s).

    Fetched with `huggingface_hub.snapshot_download` (the local Hugging Face cache when offline,
    ``HF_HUB_OFFLINE=1``); any failure, a gated or missing repository or no network, is one
    `RefineryError` line.
    """
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import GatedRepoError, LocalEntryNotFoundError

    bounded_hub()
    try:
        path = snapshot_download(
            repo_id, repo_type="dataset", allow_patterns=list(DOWNLOAD_PATTERNS)
        )
    except GatedRepoError as err:
        raise RefineryError(
            f"dataset {repo_id} is gated: accept its terms at "
            f"https://huggingface.co/datasets/{repo_id}, then log in (HF_TOKEN or `hf auth login`)"
        ) from err
    except LocalEntryNotFoundError as err:
        if not constants.HF_HUB_OFFLINE:
            raise _failed(repo_id, err) from err
        raise RefineryError(
            f"cannot download dataset {repo_id}: offline (HF_HUB_OFFLINE is set) and not in the "
            "local Hugging Face cache"
        ) from err
    # the Hub client raises httpx, OSError, ValueError and its own errors
    except Exception as err:
        raise _failed(repo_id, err) from err
    return Path(path)


def _failed(repo_id: str, err: Exception) -> RefineryError:
    reason = " ".join(str(err).split())  # the Hub client's messages run over several lines
    return RefineryError(f"cannot download dataset {repo_id} from the Hugging Face Hub: {reason}")


def summary_lines(publication: Publication, plan: PushPlan) -> list[str]:
    """What a build made and what a push would send, for the terminal."""
    m = publication.manifest
    s = m["splits"][publication.split]
    counts = ", ".join(f"{n} {k}" for k, n in s["counts"].items())
    lines = [
        f"built {publication.folder} for {m['repo_id']}: {m['dataset']} split "
        f"{publication.split} from run {s['run_id']} ({s['items']} items: {counts})",
        f"release {m['tag']} (version {m['version']}): {change_counts(publication.entry)}",
        *changelog_lines(publication.entry),
        f"commit to https://huggingface.co/datasets/{plan.repo_id}, then tag {plan.tag}:",
        f"  message: {plan.message}",
    ]
    for op in plan.operations:
        size = f"  ({_size(op.local_path.stat().st_size)})" if op.local_path else ""
        lines.append(f"  {op.kind:<6} {op.path_in_repo}{size}")
    return lines


def _size(n: int) -> str:
    return f"{n} B" if n < 1000 else f"{n / 1000:.1f} kB" if n < 1_000_000 else f"{n / 1e6:.1f} MB"
