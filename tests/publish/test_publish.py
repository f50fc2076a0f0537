"""Publish: the Hub-ready folder loads with `datasets` as users will load it (typed labels and
lists, the clean subset), the card's metadata parses, changelogs list exactly what changed, and a
push makes exactly the planned commit."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from itertools import zip_longest
from pathlib import Path
from typing import Any

import pytest
import yaml

from refinery import publish
from refinery.cli import main
from refinery.errors import RefineryError
from refinery.outcomes import Reason, Status
from refinery.publish.origin import citation, find_license, hub_license
from refinery.runs import load_run, update_meta, write_run

NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
REPO_ID = "fol-refinery/folio-sample-refined"
LABELS = ["True", "False", "Uncertain"]
SETTLED = {"verified", "repaired", "reviewed"}
RELEASE_FILES = [
    "README.md",
    "changes/train.parquet",
    "clean/train.parquet",
    "publish.json",
    "refined/train.parquet",
    "report/train/audit.jsonl",
    "report/train/confusion.png",
    "report/train/diff.md",
    "report/train/error_classes.png",
    "report/train/report.html",
    "report/train/report.md",
]


def _reviewed_copy(sample_run: Path, dest: Path) -> Path:
    """The sample run after a review round, as `refinery review apply` would write it: one label
    changed (203), one premise line fixed (1201), one premise line added (1301)."""
    shutil.copytree(sample_run, dest)
    run = load_run(dest)
    rows, outcomes = run.refined_rows(), []
    for row, outcome in zip(rows, run.outcomes, strict=True):
        review: dict[str, Any] = {}
        if row["example_id"] == 203:
            review = {"label": "False", "reviewer": "ana", "review_note": "premises prove False"}
        elif row["example_id"] == 1201:
            lines = row["premises-FOL"].split("\n")
            lines[1] = "Bird(kiwi) ∧ In(kiwi, centralAviary)"
            review = {"premises-FOL": "\n".join(lines), "reviewer": "ben"}
        elif row["example_id"] == 1301:
            review = {
                "premises-FOL": row["premises-FOL"] + "\nRetriever(max)",
                "reviewer": "ana",
            }
        if review:
            row |= {"status": "reviewed", "review_decision": "fix", "reason": "", **review}
            row |= {"reviewed_at": "2026-01-02T00:00:00+00:00", "run_id": dest.name}
            outcome = outcome.replace(
                status=Status.REVIEWED,
                reason=Reason.NONE,
                label=row["label"],
                refined_premises_fol=tuple(row["premises-FOL"].split("\n")),
                reviewer=row["reviewer"],
                review_decision="fix",
            )
        outcomes.append(outcome)
    meta = {**run.meta, "run_id": dest.name, "kind": "review", "parent": sample_run.name}
    write_run(dest, rows, outcomes, meta)  # as a review round writes it: a consistent folder
    return dest


def _expected_changes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes computed here, independently of `refinery.publish`."""
    out = []
    for r in rows:
        pairs = zip_longest(r["original_premises_fol"].split("\n"), r["premises-FOL"].split("\n"))
        fields = [(f"premises-FOL[{i}]", b, a) for i, (b, a) in enumerate(pairs)]
        fields += [("conclusion-FOL", r["original_conclusion_fol"], r["conclusion-FOL"])]
        fields += [("label", r["original_label"], r["label"])]
        for field, before, after in fields:
            if before != after:
                who = {k: r[k] for k in ("status", "reason", "reviewer", "repaired_by", "evidence")}
                out.append({"id": r["id"], "field": field, "before": before, "after": after, **who})
    return out


def _front_matter(folder: Path) -> dict[str, Any]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    head, sep, _ = text.removeprefix("---\n").partition("\n---\n")
    assert text.startswith("---\n") and sep
    meta: dict[str, Any] = yaml.safe_load(head)
    return meta


class FakeHub:
    """Records every call a push makes, in order; answers like the Hub."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def create_repo(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("create_repo", args, kwargs))

    def create_commit(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("create_commit", args, kwargs))
        return type("CommitInfo", (), {"oid": "abc123", "commit_url": "https://hub/commit/abc123"})

    def create_tag(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("create_tag", args, kwargs))


@pytest.fixture
def published(sample_run: Path, tmp_path: Path) -> Iterator[publish.Publication]:
    yield publish.build(load_run(sample_run), tmp_path / "pub", repo_id=REPO_ID, now=NOW)


def _as_released(row: dict[str, Any]) -> dict[str, Any]:
    """A run's refined row as `datasets` loads it from a release, worked out here: labels as
    `ClassLabel` numbers, comma-joined error classes as a list."""
    classes = [c for c in row["error_classes"].split(",") if c]
    labels = {k: LABELS.index(row[k]) for k in ("label", "original_label")}
    return {**row, **labels, "error_classes": classes}


def test_the_refined_config_is_the_default_and_holds_every_row(
    published: publish.Publication, sample_run: Path, offline: Path
) -> None:
    import datasets

    loaded = datasets.load_dataset(str(published.folder), cache_dir=str(offline))
    assert list(loaded) == ["train"]  # the run's "all" split: `datasets` reserves that name
    rows = load_run(sample_run).refined_rows()
    got = loaded["train"].to_list()
    assert [r["id"] for r in got] == [r["id"] for r in rows] and len(got) == 18
    assert got == [_as_released(r) for r in rows]  # every column, same order, typed
    features = loaded["train"].features
    assert features["premises-FOL"].dtype == "string"  # FOLIO v2's own layout: a drop-in
    assert features["example_id"].dtype == "int64"
    for name in ("label", "original_label"):
        assert isinstance(features[name], datasets.ClassLabel)
        assert features[name].names == LABELS
    assert features["label"].int2str(got[5]["label"]) == "True"  # 203: gold True
    assert isinstance(features["error_classes"], datasets.List)
    assert features["error_classes"].feature.dtype == "string"
    assert got[6]["error_classes"] == ["arity_conflict", "free_variable", "unbalanced_parentheses"]


def test_the_clean_config_holds_only_settled_items(
    sample_run: Path, tmp_path: Path, offline: Path
) -> None:
    import datasets
    import pyarrow.parquet as pq

    run = load_run(_reviewed_copy(sample_run, tmp_path / "20260102-000000-review"))
    built = publish.build(run, tmp_path / "pub", repo_id=REPO_ID, now=NOW)
    rows = run.refined_rows()
    settled = [r["id"] for r in rows if r["status"] in SETTLED]
    # 6 verified, 8 repaired, and 203 1201 1301 reviewed; 301 is the one still in review
    assert len(settled) == 17 and {r["status"] for r in rows} == SETTLED | {"needs_review"}
    clean = datasets.load_dataset(str(built.folder), "clean", cache_dir=str(offline))["train"]
    assert clean["id"] == settled
    assert (
        clean.features
        == datasets.load_dataset(str(built.folder), cache_dir=str(offline))["train"].features
    )  # the same typed columns as the default config
    row = next(r for r in clean.to_list() if r["id"].endswith("/203"))
    assert clean.features["label"].int2str(row["label"]) == "False"  # the reviewer's label
    assert clean.features["original_label"].int2str(row["original_label"]) == "True"
    # the parquet files keep label names as text, for readers other than `datasets`
    table = pq.read_table(built.folder / "clean" / "train.parquet")
    assert set(table.column("label").to_pylist()) == {"True", "False", "Uncertain"}
    changes = datasets.load_dataset(str(built.folder), "changes", cache_dir=str(offline))
    assert len(changes["train"]) == 11  # the changes config still loads beside it


def test_the_changes_config_lists_every_changed_field(
    sample_run: Path, tmp_path: Path, offline: Path
) -> None:
    import datasets

    run = load_run(_reviewed_copy(sample_run, tmp_path / "20260102-000000-review"))
    built = publish.build(run, tmp_path / "pub", repo_id=REPO_ID, now=NOW)
    changes = datasets.load_dataset(str(built.folder), "changes", cache_dir=str(offline))
    expected = _expected_changes(run.refined_rows())
    assert changes["train"].to_list() == expected
    fields = {(c["id"].rsplit("/", 1)[1], c["field"]) for c in expected if c["reviewer"]}
    assert fields == {
        ("203", "label"),
        ("1201", "premises-FOL[1]"),
        ("1301", "premises-FOL[2]"),
    }  # plus the eight rule repairs of the refine run
    added = next(c for c in expected if c["id"].endswith("/1301"))
    assert added["before"] is None and added["after"] == "Retriever(max)"
    assert len(expected) == 11
    diff = (built.folder / "report/train/diff.md").read_text(encoding="utf-8")
    assert "11 fields changed in 11 of 18 items" in diff and "+ False" in diff


def test_change_rows_read_list_premises_and_unequal_line_counts() -> None:
    row = {
        "id": "d/s/1",
        "premises-FOL": ["P(a)", "Q(b)"],  # FOLIO v0 keeps premises as lists
        "original_premises_fol": ["P(a)", "Q(a)", "R(c)"],
        "conclusion-FOL": "S(a)",
        "original_conclusion_fol": "S(a)",
        "label": None,
        "original_label": None,
        "status": "repaired",
        "reason": "",
        "reviewer": "",
        "repaired_by": "x",
    }
    assert [(c["field"], c["before"], c["after"]) for c in publish.change_rows([row])] == [
        ("premises-FOL[1]", "Q(a)", "Q(b)"),
        ("premises-FOL[2]", "R(c)", None),
    ]


def test_the_card_names_configs_license_and_says_first_release(
    published: publish.Publication,
) -> None:
    meta = _front_matter(published.folder)
    assert meta["license"] == "cc0-1.0"  # "License: CC0." in the sample's PROVENANCE.md
    assert meta["language"] == ["en"] and meta["task_categories"] == ["text-classification"]
    assert meta["configs"] == [
        {
            "config_name": "refined",
            "default": True,
            "data_files": [{"split": "train", "path": "refined/train.parquet"}],
        },
        {
            "config_name": "clean",
            "data_files": [{"split": "train", "path": "clean/train.parquet"}],
        },
        {
            "config_name": "changes",
            "data_files": [{"split": "train", "path": "changes/train.parquet"}],
        },
    ]
    card = (published.folder / "README.md").read_text(encoding="utf-8")
    assert f'load_dataset("{REPO_ID}", "changes")' in card
    assert f'load_dataset("{REPO_ID}", "clean")' in card
    assert "| train | `20260101-000000` | 18 | 6 | 8 | 0 | 4 |" in card
    assert "first release: split `train`" in card and "No label was changed." in card
    assert "names no publication to cite" in card and "/work" not in card  # no local paths


def _section(card: str, title: str) -> str:
    """The text of one ``## title`` section of the card, up to the next ``## ``."""
    head, sep, rest = card.partition(f"\n## {title}\n")
    assert sep, f"the card has no section {title!r}"
    return rest.split("\n## ", 1)[0]


def test_the_card_metadata_parses_back_with_huggingface_hub(
    published: publish.Publication,
) -> None:
    import pyarrow.parquet as pq
    from huggingface_hub import DatasetCard

    data = DatasetCard.load(published.folder / "README.md").data
    assert data.source_datasets == ["extended|other"]  # the sample is no known Hub dataset
    assert data.annotations_creators == ["machine-generated", "other"]  # no review yet
    assert data.language_creators == ["other"] and data.multilinguality == ["monolingual"]
    assert data.size_categories == ["n<1K"] and data.license == "cc0-1.0"
    info = {c["config_name"]: c["features"] for c in data.dataset_info}
    for config in ("refined", "clean", "changes"):
        schema = pq.read_schema(published.folder / config / "train.parquet")
        assert [f["name"] for f in info[config]] == schema.names  # every column, in order
    label = next(f for f in info["refined"] if f["name"] == "label")
    assert label["dtype"]["class_label"]["names"] == {"0": "True", "1": "False", "2": "Uncertain"}
    assert {"name": "error_classes", "sequence": "string"} in info["clean"]


def test_the_card_says_what_each_column_holds_and_what_is_still_open(
    published: publish.Publication,
) -> None:
    import pyarrow.parquet as pq

    card = (published.folder / "README.md").read_text(encoding="utf-8")
    fields = _section(card, "Fields")
    refined_part, _, changes_part = fields.partition("### `changes`")
    for part, config in ((refined_part, "refined"), (changes_part, "changes")):
        named = [line.split("`")[1] for line in part.splitlines() if line.startswith("- `")]
        assert named == pq.read_schema(published.folder / config / "train.parquet").names
    assert "- `label` (class label: True, False, Uncertain): the gold label" in fields
    assert "- `error_classes` (list of string):" in fields
    assert "- `before` (string): the source's value (null:" in fields
    limits = _section(card, "Limitations")
    assert "4 of 18 items (22.2%) have status `needs_review`" in limits
    assert "load the `clean` config (14 items, status verified, repaired or reviewed)" in limits
    assert 'refined.filter(lambda row: row["status"] in ("verified", "repaired", "reviewed"))' in (
        limits
    )
    # "settled" says what it covers: a reviewer may keep a label the provers do not derive
    assert "a person decided the item (`reviewed`)" in limits
    assert 'row["status"] != "reviewed" or row["prover_label"] == row["label"]' in limits
    changes = _section(card, "The `changes` config")
    assert "One row per changed field" in changes and "8 rows for 8 items" in changes
    assert "`premises-FOL[i]` is premise line i, counted from 0" in changes
    source = _section(card, "Source and license")
    assert "may be gated on the Hub" in source and "terms apply to this derived release" in source
    cite = _section(card, "Citation")
    assert "@misc{fol_refinery_folio_sample_refined_v1," in cite
    assert f"howpublished={{\\url{{https://huggingface.co/datasets/{REPO_ID}}}}}" in cite
    assert "year={2026}" in cite and cite.count("```bibtex") == 1  # no upstream BibTeX known


def test_a_folio_release_names_its_gated_upstream_and_both_citations(
    sample_run: Path, tmp_path: Path
) -> None:
    from huggingface_hub import DatasetCard

    run = load_run(_reviewed_copy(sample_run, tmp_path / "20260102-000000-review"))
    rows, outcomes = run.refined_rows(), list(run.outcomes)
    for i, row in enumerate(rows):  # settled by the provers, yet flagged: a formula misreads
        if row["example_id"] in (1001, 1101):
            row["reason"] = "nl_mismatch"
            outcomes[i] = outcomes[i].replace(reason=Reason.NL_MISMATCH)
    write_run(run.path, rows, outcomes, {**run.meta, "dataset": "folio-v2"})
    built = publish.build(load_run(run.path), tmp_path / "pub", repo_id=REPO_ID, now=NOW)
    card = (built.folder / "README.md").read_text(encoding="utf-8")
    data = DatasetCard(card).data
    assert data.source_datasets == ["extended|yale-nlp/FOLIO"]
    assert data.pretty_name == "FOLIO v2 (refined FOL)"
    # FOLIO's stories and FOL are expert-written; refinements machine-made, reviews expert-made
    assert data.annotations_creators == ["expert-generated", "machine-generated"]
    assert data.language_creators == ["expert-generated"]
    source = _section(card, "Source and license")
    assert "[`yale-nlp/FOLIO`](https://huggingface.co/datasets/yale-nlp/FOLIO)" in source
    assert "The upstream release is gated on the Hub: you must accept its terms" in source
    cite = _section(card, "Citation")
    assert cite.count("```bibtex") == 2 and "@misc{fol_refinery_folio_sample_refined_v1," in cite
    assert "and the source dataset:" in cite and "arXiv:2209.00840" in cite
    limits = _section(card, "Limitations")
    assert "1 of 18 items (5.6%) have status `needs_review`" in limits  # 301 only
    assert "(17 items, status verified, repaired or reviewed)" in limits
    assert "Some settled items still carry a `reason` (`nl_mismatch`: 2)" in limits


def test_licenses_come_from_beside_the_source_or_say_unknown(tmp_path: Path) -> None:
    source = tmp_path / "data.jsonl"
    assert find_license(str(source), "mine").id == "unknown"
    (tmp_path / "LICENSE").write_text("MIT License\n\nCopyright ...\n", encoding="utf-8")
    assert find_license(str(source), "mine").id == "mit"
    (tmp_path / "PROVENANCE.md").write_text("# x\n\n**License:** CC BY-SA 4.0\n", encoding="utf-8")
    assert find_license(str(source), "mine").id == "cc-by-sa-4.0"  # PROVENANCE.md comes first
    assert find_license(str(source), "mine", override="Apache-2.0").id == "apache-2.0"
    assert find_license("hf:someone/folio:train", "folio-v2").id == "cc-by-sa-4.0"
    assert find_license(str(tmp_path / "x" / "y.jsonl"), "odd").id == "unknown"
    assert hub_license("Creative Commons Attribution 4.0 International") == "cc-by-4.0"
    assert citation("folio-v2") and "2209.00840" in (citation("folio") or "")
    assert "Tafjord" in (citation("proofwriter") or "") and citation("folio-sample") is None


def test_an_unknown_license_is_said_and_empty_columns_keep_their_type(
    sample_run: Path, tmp_path: Path
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = load_run(shutil.copytree(sample_run, tmp_path / "run"))
    rows = [{**r, "review_note": None, "story_id": None} for r in run.refined_rows()]
    source = str(tmp_path / "elsewhere" / "data.jsonl")
    write_run(run.path, rows, run.outcomes, {**run.meta, "source": source})
    built = publish.build(load_run(run.path), tmp_path / "pub", repo_id=REPO_ID, now=NOW)
    assert _front_matter(built.folder)["license"] == "unknown"
    assert "**unknown**: no license was found" in (built.folder / "README.md").read_text()
    schema = pq.read_schema(built.folder / "refined/train.parquet")
    assert schema.field("review_note").type == pa.string()  # not null-typed
    assert schema.field("story_id").type == pa.int64()


def test_push_plan_is_every_release_file_and_a_message(published: publish.Publication) -> None:
    folder = published.folder
    plan = publish.plan_push(folder)
    assert plan.operations == tuple(publish.Operation("add", f, folder / f) for f in RELEASE_FILES)
    assert plan.repo_id == REPO_ID and plan.tag == "v1"
    assert plan.message == "v1: folio-sample (train), first release"
    assert plan.description == (
        "Runs:\n- split `train`: run `20260101-000000`\n\nChanges:\n"
        "- first release: split `train` from run `20260101-000000` (18 items)"
    )
    assert json.loads((folder / "publish.json").read_text())["files"] == RELEASE_FILES


def test_push_makes_one_commit_and_one_tag(published: publish.Publication) -> None:
    plan = publish.plan_push(published.folder)
    hub = FakeHub()
    assert publish.push(hub, plan) == "https://hub/commit/abc123"
    assert [c[0] for c in hub.calls] == ["create_repo", "create_commit", "create_tag"]
    assert hub.calls[0][1:] == ((REPO_ID,), {"repo_type": "dataset", "exist_ok": True})
    (repo, ops), commit = hub.calls[1][1], hub.calls[1][2]
    assert repo == REPO_ID and commit == {
        "commit_message": plan.message,
        "commit_description": plan.description,
        "repo_type": "dataset",
    }
    assert [(op.path_in_repo, op.path_or_fileobj) for op in ops] == [
        (f, str(published.folder / f)) for f in RELEASE_FILES
    ]
    assert hub.calls[2][1:] == (
        (REPO_ID,),
        {"tag": "v1", "tag_message": plan.message, "revision": "abc123", "repo_type": "dataset"},
    )


def test_a_real_client_without_network_fails_with_a_clear_error(
    published: publish.Publication, offline: Path
) -> None:
    from huggingface_hub import HfApi

    api = HfApi(endpoint="http://127.0.0.1:9", token="hf_not_a_token")  # nothing listens there
    with pytest.raises(RefineryError, match=f"push to {REPO_ID} failed while creating the repo"):
        publish.push(api, publish.plan_push(published.folder))


def test_changelog_lists_exactly_what_a_review_changed(sample_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "pub"
    first = publish.build(load_run(sample_run), out, repo_id=REPO_ID, now=NOW)
    plan = publish.plan_push(out)
    publish.record_push(out, plan, publish.push(FakeHub(), plan))
    reviewed = load_run(_reviewed_copy(sample_run, tmp_path / "20260102-000000-review"))
    second = publish.build(reviewed, out, repo_id=REPO_ID, now=NOW)
    assert second.manifest["version"] == 2 and second.manifest["tag"] == "v2"
    ids = {n: f"folio-sample/all/{n}" for n in (203, 1201, 1301)}
    assert second.entry["previous"] == "v1"
    assert second.entry["splits"] == [
        {
            "split": "train",
            "run_id": "20260102-000000-review",
            "previous_run_id": "20260101-000000",
            "added": [],
            "removed": [],
            "status": [[ids[n], "needs_review", "reviewed"] for n in (203, 1201, 1301)],
            "label": [[ids[203], "True", "False"]],
            "fol": [ids[1201], ids[1301]],
        }
    ]
    assert second.manifest["changelog"][1] == first.entry
    card = (out / "README.md").read_text(encoding="utf-8")
    assert f"label changed (1): `{ids[203]}: True → False`" in card
    assert f"| train | `{ids[203]}` | True | False | ana | premises prove False |" in card
    assert "### v1 (2026-01-02)" in card and "### v2 (2026-01-02)" in card
    plan = publish.plan_push(out)
    assert plan.message == (
        "v2: folio-sample (train), since v1: 3 status changed, 1 label changed, 2 FOL changed"
    )
    # a dry run then --push rebuilds the same draft: same version, same changelog
    again = publish.build(reviewed, out, repo_id=REPO_ID, now=NOW)
    assert again.manifest == second.manifest


def test_previous_folder_is_the_baseline_and_gone_files_are_deleted(
    sample_run: Path, tmp_path: Path
) -> None:
    old = publish.build(load_run(sample_run), tmp_path / "old", repo_id=REPO_ID, now=NOW)
    copy = shutil.copytree(sample_run, tmp_path / "20260103-000000")
    update_meta(copy, run_id=copy.name, split="validation")
    new = publish.build(
        load_run(copy), tmp_path / "new", repo_id=REPO_ID, previous=old.folder, now=NOW
    )
    assert new.manifest["version"] == 2 and new.split == "validation"
    entries = {s["split"]: s for s in new.entry["splits"]}
    assert entries["train"]["run_id"] is None and len(entries["train"]["removed"]) == 18
    assert len(entries["validation"]["added"]) == 18
    deletes = [
        op.path_in_repo for op in publish.plan_push(new.folder).operations if op.kind == "delete"
    ]
    assert deletes == [f for f in RELEASE_FILES if "train" in f]


def test_a_folder_for_another_repo_or_dataset_is_refused(
    published: publish.Publication, sample_run: Path
) -> None:
    with pytest.raises(RefineryError, match="choose another --out"):
        publish.build(load_run(sample_run), published.folder, repo_id="someone/else")
    with pytest.raises(RefineryError, match="OWNER/NAME"):
        publish.build(load_run(sample_run), published.folder, repo_id="no-slash")


def test_cli_builds_the_folder_and_prints_what_a_push_would_send(
    sample_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pub"
    assert main(["publish", str(sample_run), "--repo-id", REPO_ID, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "release v1 (version 1): first release" in printed
    assert f"commit to https://huggingface.co/datasets/{REPO_ID}, then tag v1" in printed
    assert all(f"add    {f}" in printed for f in RELEASE_FILES)
    assert "dry run: nothing was uploaded" in printed
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == RELEASE_FILES


def test_cli_push_without_a_token_is_a_clear_error(
    sample_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    argv = ["publish", str(sample_run), "--repo-id", REPO_ID, "--out", str(tmp_path / "p")]
    assert main([*argv, "--push"]) == 2
    assert "refinery: error: no Hugging Face token" in capsys.readouterr().err
    assert not (tmp_path / "p" / publish.PUSH_RECORD).exists()


def test_cli_push_sends_the_plan_and_records_it(
    sample_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    hub = FakeHub()
    monkeypatch.setattr(publish, "hub_api", lambda: hub)
    out = tmp_path / "p"
    argv = ["publish", str(sample_run), "--repo-id", REPO_ID, "--out", str(out), "--tag", "r1"]
    assert main([*argv, "--push"]) == 0
    assert f"pushed {REPO_ID} r1: https://hub/commit/abc123" in capsys.readouterr().out
    assert [c[0] for c in hub.calls] == ["create_repo", "create_commit", "create_tag"]
    record = json.loads((out / publish.PUSH_RECORD).read_text(encoding="utf-8"))
    assert (record["version"], record["tag"], record["commit"]) == (
        1,
        "r1",
        "https://hub/commit/abc123",
    )
    assert main(argv[:-2]) == 0  # the next build is a new release against the pushed one
    assert "release v2 (version 2): since r1: no item changes" in capsys.readouterr().out


def test_splits_of_one_release_must_share_their_columns(sample_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "pub"
    publish.build(load_run(sample_run), out, repo_id=REPO_ID, now=NOW)
    other = shutil.copytree(sample_run, tmp_path / "20260103-000000")
    update_meta(other, run_id=other.name, split="validation")
    manifest = json.loads((out / "publish.json").read_text(encoding="utf-8"))
    refined = manifest["splits"]["train"]["features"]["refined"]
    manifest["splits"]["train"]["features"]["refined"] = refined[:-1]  # one column fewer
    (out / "publish.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(RefineryError, match="train and validation have different refined columns"):
        publish.build(load_run(other), out, repo_id=REPO_ID, now=NOW)
    assert not list(out.glob("*/validation.parquet"))  # refused before anything was written
    del manifest["splits"]["train"]["features"]  # as a release before typed columns has it
    (out / "publish.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(RefineryError, match="split train in .* was built by an older"):
        publish.build(load_run(other), out, repo_id=REPO_ID, now=NOW)
    publish.build(load_run(sample_run), out, repo_id=REPO_ID, now=NOW)  # rebuilt: train is new
    built = publish.build(load_run(other), out, repo_id=REPO_ID, now=NOW)
    assert list(built.manifest["splits"]) == ["train", "validation"]
    assert built.manifest["features"]["refined"] == refined


def test_v0_lists_stay_lists_and_labels_take_the_one_vocabulary() -> None:
    from refinery.publish.columns import features, refined_table

    rows = [
        {
            "premises": ["All cats purr.", "Tom is a cat."],  # FOLIO v0 keeps lists
            "premises-FOL": ["∀x (Cat(x) → Purr(x))", "Cat(tom)"],
            "label": "Unknown",  # v0's spelling of Uncertain
            "original_label": "Unknown",
            "error_classes": "",  # no row has any: still a list of strings, not of nulls
            "review_note": None,
        },
        {
            "premises": ["Tom purrs."],
            "premises-FOL": ["Purr(tom)"],
            "label": "maybe",  # no gold label: null, not a fourth class
            "original_label": "True",
            "error_classes": "",
            "review_note": None,
        },
    ]
    table = refined_table(rows)
    assert table.column("label").to_pylist() == ["Uncertain", None]
    assert table.column("error_classes").to_pylist() == [[], []]
    assert features(table.schema) == [
        {"name": "premises", "sequence": "string"},
        {"name": "premises-FOL", "sequence": "string"},
        {"name": "label", "dtype": {"class_label": {"names": {"0": "True", "1": "False", "2": "Uncertain"}}}},
        {"name": "original_label", "dtype": {"class_label": {"names": {"0": "True", "1": "False", "2": "Uncertain"}}}},
        {"name": "error_classes", "sequence": "string"},
        {"name": "review_note", "dtype": "string"},
    ]  # fmt: skip


def _drop(rows: list[dict[str, Any]]) -> None:
    del rows[3]


def _flip(rows: list[dict[str, Any]]) -> None:
    rows[0]["label"] = "False" if rows[0]["label"] != "False" else "True"


def _flip_both(rows: list[dict[str, Any]]) -> None:
    _flip(rows)
    rows[0]["original_label"] = rows[0]["label"]


def _duplicate(rows: list[dict[str, Any]]) -> None:
    rows[2] = dict(rows[1])


def _forge(rows: list[dict[str, Any]]) -> None:
    row = next(r for r in rows if r["status"] == "needs_review")
    row |= {"status": "verified", "conclusion-FOL": "Anything(x)"}


def _maybe(rows: list[dict[str, Any]]) -> None:
    rows[0]["label"] = "Maybe"


@pytest.mark.parametrize(
    ("tamper", "said"),
    [
        (_drop, "refined.jsonl has 17 rows; the run wrote 18 outcomes"),
        (_flip, "refined.jsonl row 1 (folio-sample/all/101): label is"),
        (_flip_both, "refined.jsonl row 1 (folio-sample/all/101): label is"),
        (_duplicate, "refined.jsonl row 3: id folio-sample/all/102 repeats row 2"),
        (_forge, "status is 'verified', where outcomes.jsonl has 'needs_review'"),
        (_maybe, "refined.jsonl row 1 (folio-sample/all/101): label is 'Maybe', not a gold label"),
    ],
)
@pytest.mark.parametrize("rehashed", [False, True])
def test_a_tampered_run_folder_is_refused_in_one_line_naming_the_row(
    sample_run: Path,
    tmp_path: Path,
    tamper: Callable[[list[dict[str, Any]]], None],
    said: str,
    rehashed: bool,
) -> None:
    run = load_run(shutil.copytree(sample_run, tmp_path / "run"))
    rows = run.refined_rows()
    tamper(rows)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    (run.path / "refined.jsonl").write_text(text, encoding="utf-8")
    if rehashed:  # the digest recomputed too: the outcomes still say what the run wrote
        update_meta(
            run.path,
            files={**run.meta["files"], "refined.jsonl": hashlib.sha256(text.encode()).hexdigest()},
        )
    with pytest.raises(RefineryError) as refused:
        publish.build(load_run(run.path), tmp_path / "pub", repo_id=REPO_ID, now=NOW)
    message = str(refused.value)
    assert "\n" not in message and message.endswith("nothing published")
    if rehashed:  # the rows against the outcomes name what was changed
        assert said in message
    else:  # the digest says first that the file is not as written
        assert "refined.jsonl was changed after the run wrote it" in message
    assert not (tmp_path / "pub").exists()


class Killed(RuntimeError):
    """Stands for the process dying mid-build."""


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_republish_killed_half_way_leaves_the_release_as_it_was(
    sample_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "pub"
    publish.build(load_run(sample_run), out, repo_id=REPO_ID, now=NOW)
    before = _tree(out)
    reviewed = load_run(_reviewed_copy(sample_run, tmp_path / "20260102-000000-review"))

    def die(*args: object, **kwargs: object) -> str:
        raise Killed("killed after the parquet files, before the card")

    with monkeypatch.context() as m:
        m.setattr(publish.folder, "render_card", die)
        # a killed process cleans nothing up: its copy stays behind
        m.setattr("refinery.outputs.shutil.rmtree", lambda *args, **kwargs: None)
        with pytest.raises(Killed):
            publish.build(reviewed, out, repo_id=REPO_ID, now=NOW)
    assert _tree(out) == before  # parquet, card and manifest all still say the first release
    assert [p.name for p in tmp_path.glob(".pub.partial-*")] != []

    # killed between the two renames of the swap: the old folder is put back first
    out.rename(tmp_path / ".pub.old")
    second = publish.build(reviewed, out, repo_id=REPO_ID, now=NOW)
    assert second.manifest["splits"]["train"]["run_id"] == "20260102-000000-review"
    assert sorted(p.name for p in tmp_path.glob(".pub*")) == [".pub.lock"]  # leftovers gone
    rows = {r["id"]: r for r in publish.read_split(out, "train")}
    assert len(rows) == 18 and rows["folio-sample/all/203"]["status"] == "reviewed"
