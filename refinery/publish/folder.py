"""Publishing a run, locally: a Hub-ready dataset folder and its changelog.

`build` writes a run's split into a publish folder, by default ``data/published/<owner>/<name>/``:
one folder per Hub repository, laid out as the repository will be.

- ``refined/<split>.parquet``: the ``refined`` config (the default), the run's refined split.
- ``clean/<split>.parquet``: the ``clean`` config, the refined items that are settled.
- ``changes/<split>.parquet``: the ``changes`` config, one row per changed field of an item.
- ``report/<split>/``: the run's report (md, html, figures), its ``audit.jsonl``, and ``diff.md``.
- ``README.md``: the dataset card (`refinery.publish.card`). ``publish.json``: the manifest.

Split names follow `datasets`: a run's ``all`` split (a source with no splits) is published as
``train``, because ``all`` is reserved. A second split of the same dataset (e.g. validation after
train) is added beside the splits already in the folder.

The manifest records, per split, the run, its counts and a snapshot of every item (status, label,
FOL hash). A release's changelog compares that snapshot with the baseline's: items added or
removed, and items whose status, label or FOL changed. The baseline is the folder given as
`previous`, else the last release pushed from this folder (the local ``.pushed.json``, which is
never uploaded). Rebuilding a folder that was not pushed replaces that draft and keeps its
baseline, so a dry run followed by ``--push`` describes the same release.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from refinery.errors import ConfigError, RefineryError
from refinery.outcomes import Status
from refinery.outputs import atomic_write, atomic_write_text, folder_aside
from refinery.publish.card import render_card
from refinery.publish.columns import CHANGES_SCHEMA, features, is_clean, refined_table
from refinery.publish.origin import find_license, pretty_name
from refinery.review.ledger import missing_decisions
from refinery.runs import Run, incomplete_reason, verify
from refinery.runs.refined import fol_lines

MANIFEST = "publish.json"
PUSH_RECORD = ".pushed.json"  # local only: dot files are never part of a release
FORMAT = 2  # 2: typed labels and lists, the clean config
REPORT_FILES = ("report.md", "report.html", "confusion.png", "error_classes.png", "audit.jsonl")
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


@dataclass(frozen=True)
class Publication:
    """A built publish folder: its manifest, and the split this build wrote."""

    folder: Path
    manifest: dict[str, Any]
    split: str

    @property
    def entry(self) -> dict[str, Any]:
        """This release's changelog entry (the newest)."""
        return dict(self.manifest["changelog"][0])


def default_out(repo_id: str) -> Path:
    """Where `refinery publish` builds the folder for `repo_id` unless told otherwise."""
    return Path("data/published") / check_repo_id(repo_id)


def check_repo_id(repo_id: str) -> str:
    """`repo_id` if it has the Hub's ``OWNER/NAME`` form; otherwise `ConfigError`."""
    if not _REPO_ID.fullmatch(repo_id) or ".." in repo_id:
        raise ConfigError(f"--repo-id must look like OWNER/NAME, got {repo_id!r}")
    return repo_id


def hub_split(split: str) -> str:
    """The split name to publish under: `datasets` reserves ``all`` and allows only word chars.

    >>> hub_split("all"), hub_split("validation"), hub_split("dev-2")
    ('train', 'validation', 'dev_2')
    """
    if split in ("", "all"):
        return "train"
    return re.sub(r"\W+", "_", split)


def change_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per changed field of each refined row; unchanged items give none.

    Premise FOL is compared line by line (``premises-FOL[i]``, i from 0; a line only on one side
    has ``None`` on the other), then ``conclusion-FOL``, then each accepted background fact
    (``background-FOL[i]``, new: ``None`` before), then ``label`` (original vs current).
    Every row carries the item's ``evidence``: why its final FOL gets the provers' label.
    """
    out = []
    for row in rows:
        keys = ("status", "reason", "reviewer", "repaired_by", "evidence")
        common = {k: str(row.get(k) or "") for k in keys}
        before, after = (
            fol_lines(row.get("original_premises_fol")),
            fol_lines(row.get("premises-FOL")),
        )
        fields = [
            (f"premises-FOL[{i}]", _at(before, i), _at(after, i))
            for i in range(max(len(before), len(after)))
        ]
        fields.append(
            ("conclusion-FOL", row.get("original_conclusion_fol"), row.get("conclusion-FOL"))
        )
        fields += [
            (f"background-FOL[{i}]", None, fact)
            for i, fact in enumerate(fol_lines(row.get("background-FOL")))
        ]
        fields.append(("label", row.get("original_label"), row.get("label")))
        out += [
            {"id": row["id"], "field": field, "before": _text(b), "after": _text(a), **common}
            for field, b, a in fields
            if _text(b) != _text(a)
        ]
    return out


def snapshot(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """Per item id: ``[status, label, FOL hash]``, what a changelog compares between releases."""
    return {
        str(r["id"]): [
            r["status"],
            r.get("label"),
            _hash([r.get("premises-FOL"), r.get("conclusion-FOL")]),
        ]
        for r in rows
    }


def diff_snapshots(
    before: Mapping[str, Sequence[Any]], after: Mapping[str, Sequence[Any]]
) -> dict[str, list[Any]]:
    """Items added and removed, and ``[id, old, new]`` for status and label changes; FOL changes."""
    common = [i for i in after if i in before]
    return {
        "added": [i for i in after if i not in before],
        "removed": [i for i in before if i not in after],
        "status": [[i, before[i][0], after[i][0]] for i in common if before[i][0] != after[i][0]],
        "label": [[i, before[i][1], after[i][1]] for i in common if before[i][1] != after[i][1]],
        "fol": [i for i in common if before[i][2] != after[i][2]],
    }


def changelog_entry(
    baseline: Mapping[str, Any] | None,
    splits: Mapping[str, Mapping[str, Any]],
    *,
    version: int,
    tag: str,
    date: str,
) -> dict[str, Any]:
    """This release against the baseline release: one entry per split that changed."""
    head: dict[str, Any] = {"version": version, "tag": tag, "date": date}
    if baseline is None:
        firsts = [
            {"split": n, "run_id": s["run_id"], "items": s["items"]} for n, s in splits.items()
        ]
        return {**head, "previous": None, "splits": firsts}
    entries = []
    for name in sorted(set(splits) | set(baseline["splits"])):
        old, new = baseline["splits"].get(name), splits.get(name)
        diff = diff_snapshots(old["snapshot"] if old else {}, new["snapshot"] if new else {})
        if old is None or new is None or any(diff.values()):
            entries.append(
                {
                    "split": name,
                    "run_id": new["run_id"] if new else None,
                    "previous_run_id": old["run_id"] if old else None,
                    **diff,
                }
            )
    return {**head, "previous": baseline["tag"], "splits": entries}


def build(
    run: Run,
    out: Path,
    *,
    repo_id: str,
    license_name: str | None = None,
    previous: Path | None = None,
    tag: str | None = None,
    now: dt.datetime | None = None,
    allow_missing_decisions: bool = False,
) -> Publication:
    """Write `run`'s split into the publish folder `out`; return what was built.

    Parameters
    ----------
    run
        A run folder, read with `refinery.runs.load_run`.
    out
        The publish folder; splits of other runs already in it are kept.
    repo_id
        ``OWNER/NAME`` of the Hub dataset repository the folder is for.
    license_name
        A license (Hub id or name) overriding the one found beside the run's source.
    previous
        Another publish folder to take as the previous release (default: the last push from
        `out`, if any).
    tag
        The release's tag (default ``v<version>``).
    now
        The build time (tests pin it).
    allow_missing_decisions
        Publish even when the run's review queue holds decisions the run does not carry
        (`refinery.review.ledger.missing_decisions`); refused otherwise.

    Returns
    -------
    Publication
        The folder, its manifest (also in ``publish.json``) and the split written.
    """
    check_repo_id(repo_id)
    # a Run read before its folder was renamed into place (or built by hand) is no release
    reason = incomplete_reason(run.path)
    if reason is not None:
        raise RefineryError(f"{run.path} is not a complete run ({reason}); nothing published")
    rows = run.refined_rows()
    if not rows:
        raise RefineryError(f"{run.path}: the run has no items to publish")
    tampered = verify.problems(run.path, run.meta, rows, run.outcomes)
    if tampered:
        more = f" (and {len(tampered) - 1} more)" if len(tampered) > 1 else ""
        raise RefineryError(
            f"{run.path}: {tampered[0]}{more}: the folder is not as its run wrote it; "
            "nothing published"
        )
    missing = [] if allow_missing_decisions else missing_decisions(run)
    if missing:
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        raise RefineryError(
            f"{run.path} lacks {len(missing)} review decision(s) its queue holds ({shown}): "
            "publishing it would undo them. Run refine again (it carries the decisions) or "
            "`refinery review apply`, or pass --allow-missing-decisions; nothing published"
        )
    dataset = str(run.meta["dataset"])
    existing = read_manifest(out)
    if existing and (existing["repo_id"], existing["dataset"]) != (repo_id, dataset):
        raise RefineryError(
            f"{out} holds {existing['dataset']} for {existing['repo_id']}, not {dataset} for "
            f"{repo_id}; choose another --out"
        )
    baseline, version, history = _baseline(out, existing, previous)
    split = hub_split(str(run.meta["split"]))
    tables = _tables(rows)
    config_features = {config: features(t.schema) for config, t in tables.items()}
    splits = dict(existing["splits"]) if existing else {}
    splits[split] = {"features": config_features}
    shared = _features(out, dict(sorted(splits.items())))  # before anything is written
    # built aside and swapped in whole: a build killed half-way leaves the release as it was
    with folder_aside(out) as stage:
        files = _write_split(run, rows, tables, stage, split)
        splits[split] = _split_entry(run, rows, files, config_features)
        splits = dict(sorted(splits.items()))
        found = find_license(str(run.meta["source"]), dataset, override=license_name)
        if existing and not license_name and found.id == "unknown":
            license_ = existing["license"]  # another split's source said; this one is silent
        else:
            license_ = {"id": found.id, "name": found.name, "origin": found.origin}
        tag = tag or f"v{version}"
        date = (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
        entry = changelog_entry(baseline, splits, version=version, tag=tag, date=date)
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "repo_id": repo_id,
            "dataset": dataset,
            "pretty_name": pretty_name(dataset),
            "version": version,
            "tag": tag,
            "built_at": date,
            "license": license_,
            "files": sorted(
                {f for s in splits.values() for f in s["files"]} | {"README.md", MANIFEST}
            ),
            "features": shared,
            "splits": splits,
            "baseline": baseline,
            "changelog": [entry, *history],
        }
        atomic_write_text(stage / "README.md", render_card(manifest))
        atomic_write_text(
            stage / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1) + "\n"
        )
    return Publication(folder=out, manifest=manifest, split=split)


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's ``publish.json``, or None when it has none."""
    path = folder / MANIFEST
    if not path.is_file():
        return None
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return manifest


def published_splits(folder: Path) -> list[str]:
    """The splits of a publish folder (or a download of one), from its ``refined/`` files.

    Empty when `folder` is not one: it needs a ``publish.json`` or a ``README.md`` (a card)
    beside ``refined/<split>.parquet``.
    """
    if not ((folder / MANIFEST).is_file() or (folder / "README.md").is_file()):
        return []
    return sorted(p.stem for p in (folder / "refined").glob("*.parquet"))


def read_split(folder: Path, split: str, *, config: str = "refined") -> list[dict[str, Any]]:
    """One split of one config of a publish folder, as rows (labels as text, lists as lists)."""
    path = folder / config / f"{split}.parquet"
    if not path.is_file():
        raise RefineryError(f"{folder} has no split {split!r} in its {config} config ({path})")
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


# --- the split's files -------------------------------------------------------------------------


def _tables(rows: Sequence[Mapping[str, Any]]) -> dict[str, pa.Table]:
    """The split's table in each config: refined, its clean subset, and the changes."""
    refined = refined_table(rows)
    return {
        "refined": refined,
        "clean": refined.filter(pa.array([is_clean(r) for r in rows], pa.bool_())),
        "changes": pa.Table.from_pylist(change_rows(rows), schema=CHANGES_SCHEMA),
    }


def _write_split(
    run: Run,
    rows: Sequence[Mapping[str, Any]],
    tables: Mapping[str, pa.Table],
    out: Path,
    split: str,
) -> list[str]:
    """Write the split's parquet files (one per config), report copies and diff.md; return
    their repo paths."""
    written = []
    for config, table in tables.items():
        written.append(f"{config}/{split}.parquet")
        _write_parquet(out / written[-1], table)
    report = f"report/{split}"
    for name in REPORT_FILES:
        if (run.path / name).is_file():
            _copy(run.path / name, out / report / name)
            written.append(f"{report}/{name}")
    changes = tables["changes"].to_pylist()
    atomic_write_text(out / report / "diff.md", _diff_markdown(run.run_id, split, rows, changes))
    written.append(f"{report}/diff.md")
    return sorted(written)


def _copy(src: Path, dest: Path) -> None:
    def write(tmp: Path) -> None:
        shutil.copyfile(src, tmp)

    atomic_write(dest, write)


def _write_parquet(path: Path, table: pa.Table) -> None:
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))


def _split_entry(
    run: Run,
    rows: Sequence[Mapping[str, Any]],
    files: list[str],
    config_features: Mapping[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    """What the manifest keeps about one published split (the card is rendered from it)."""
    meta, settings = run.meta, run.meta.get("settings", {})
    statuses = Counter(str(r["status"]) for r in rows)
    reasons = Counter(str(r["reason"]) for r in rows if r["status"] == Status.NEEDS_REVIEW)
    flagged = Counter(str(r["reason"]) for r in rows if is_clean(r) and r.get("reason"))
    changes = change_rows(rows)
    return {
        "run_id": run.run_id,
        "run_kind": meta.get("kind", "refine"),
        "parent": meta.get("parent"),
        "run_created_at": meta.get("created_at", ""),
        "source": _source_label(str(meta["source"])),
        "source_split": meta["split"],
        "provers": list(settings.get("provers", [])),
        "agents": list(settings.get("agents", [])),
        "llm": meta.get("llm", ""),
        "items": len(rows),
        "counts": {
            k: statuses[k] for k in (*(s.value for s in Status), *sorted(statuses)) if statuses[k]
        },
        "reasons": dict(sorted(reasons.items())),
        "clean": sum(map(is_clean, rows)),
        "changed_fields": len(changes),
        "changed_items": len({c["id"] for c in changes}),
        "flagged": dict(sorted(flagged.items())),  # settled, yet with a reason (nl_mismatch)
        "label_changes": [
            {
                "id": r["id"],
                "before": r.get("original_label"),
                "after": r.get("label"),
                "reviewer": r.get("reviewer") or "",
                "note": r.get("review_note") or "",
            }
            for r in rows
            if r.get("original_label") != r.get("label")
        ],
        "files": files,
        "features": dict(config_features),
        "snapshot": snapshot(rows),
    }


def _features(out: Path, splits: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Each config's features, which every split must share (`datasets` loads them as one)."""
    found: dict[str, Any] = {}
    for name, s in splits.items():
        if "features" not in s:
            raise RefineryError(
                f"split {name} in {out} was built by an older FOL Refinery: publish its run "
                "into this folder again first"
            )
        for config, value in s["features"].items():
            if found.setdefault(config, (name, value))[1] != value:
                raise RefineryError(
                    f"splits {found[config][0]} and {name} have different {config} columns; "
                    "a release needs one set of columns per config"
                )
    return {config: value for config, (_, value) in found.items()}


def _diff_markdown(
    run_id: str, split: str, rows: Sequence[Mapping[str, Any]], changes: Sequence[Mapping[str, Any]]
) -> str:
    """diff.md: every changed item with its fields as before/after diff blocks."""
    by_id: dict[str, list[Mapping[str, Any]]] = {}
    for c in changes:
        by_id.setdefault(c["id"], []).append(c)
    lines = [
        f"# Changes in split `{split}` (run `{run_id}`)",
        "",
        f"{len(changes)} fields changed in {len(by_id)} of {len(rows)} items. Labels change "
        "only by review (status `reviewed`).",
    ]
    for row in rows:
        if row["id"] not in by_id:
            continue
        how = row.get("repaired_by") or row.get("reviewer") or row.get("reason") or ""
        lines += ["", f"## `{row['id']}`: {row['status']}" + (f" ({how})" if how else "")]
        for c in by_id[row["id"]]:
            lines += ["", f"`{c['field']}`", "", "```diff"]
            lines += [f"- {c['before']}"] if c["before"] is not None else []
            lines += [f"+ {c['after']}"] if c["after"] is not None else []
            lines.append("```")
    return "\n".join(lines) + "\n"


# --- helpers ------------------------------------------------------------------------------------


def _baseline(
    out: Path, existing: Mapping[str, Any] | None, previous: Path | None
) -> tuple[dict[str, Any] | None, int, list[dict[str, Any]]]:
    """The release this build is compared with, this build's version, and the older changelog."""
    if previous is not None:
        prev = read_manifest(previous)
        if prev is None:
            raise RefineryError(f"--previous {previous} is not a publish folder (no {MANIFEST})")
        return _as_baseline(prev), int(prev["version"]) + 1, list(prev["changelog"])
    if existing is None:
        return None, 1, []
    record = out / PUSH_RECORD
    pushed = json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {}
    if pushed.get("version") == existing["version"]:
        return _as_baseline(existing), int(existing["version"]) + 1, list(existing["changelog"])
    # an unpushed draft: this build replaces it, against the draft's own baseline
    version = int(existing["version"])
    older = [e for e in existing["changelog"] if e["version"] < version]
    return existing["baseline"], version, older


def _as_baseline(manifest: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "version": manifest["version"],
        "tag": manifest["tag"],
        "files": manifest["files"],
        "splits": {
            n: {"run_id": s["run_id"], "snapshot": s["snapshot"]}
            for n, s in manifest["splits"].items()
        },
    }


def _at(lines: Sequence[str], i: int) -> str | None:
    return lines[i] if i < len(lines) else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).hexdigest()[:16]


def _source_label(source: str) -> str:
    """The source as the card shows it: a Hub spec as is, a local file by name only."""
    return source if source.startswith("hf:") else Path(source).name
