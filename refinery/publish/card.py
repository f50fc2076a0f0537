"""The dataset card (`README.md` of a published folder): Hub metadata and the text body.

The card is rendered from the publish manifest (`publish.json`) alone, so the same manifest always
gives the same card. The metadata is a `huggingface_hub.DatasetCardData`: license, creators,
source datasets, the configs (`refined` the default, `clean`, `changes`) and each config's typed
columns (``dataset_info``), which `datasets.load_dataset` casts to. The body says how the data
was checked, what each column means, what is still open (Limitations), how to cite it, and what
changed release by release. What it says of the data's origin comes from
`refinery.publish.origin`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from refinery.outcomes import Status
from refinery.publish.columns import (
    CHANGES_NOTES,
    CLEAN_STATUSES,
    CONFIGS,
    FIELD_NOTES,
    LABEL_COLUMNS,
    LABEL_NAMES,
    feature_text,
)
from refinery.publish.origin import citation, upstream

if TYPE_CHECKING:
    from huggingface_hub import DatasetCardData

_STATUSES = tuple(s.value for s in Status)
_CLEAN = tuple(s.value for s in CLEAN_STATUSES)
_LIST_LIMIT = 20  # ids listed per changelog line and rows per card table; the rest is counted
_TAGS = ["logic", "first-order-logic", "reasoning", "theorem-proving", "fol-refinery"]


def size_category(n: int) -> str:
    """The Hub's size bucket for `n` rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M" if n < 1_000_000 else "1M<n<10M"


def card_data(manifest: Mapping[str, Any]) -> DatasetCardData:
    """The card's metadata: license, creators, sources, configs and their typed columns."""
    from huggingface_hub import DatasetCardData

    splits: Mapping[str, Any] = manifest["splits"]
    license_: Mapping[str, str] = manifest["license"]
    up = upstream(manifest["dataset"], [s["source"] for s in splits.values()])
    reviewed = any(s["counts"].get(Status.REVIEWED, 0) for s in splits.values())
    # the refinements are machine-made (provers, repairs); reviewers' decisions are expert-made
    made = {*up.annotations_creators, "machine-generated"} | (
        {"expert-generated"} if reviewed else set()
    )
    extra: dict[str, Any] = {}
    if license_["id"] == "other" and license_["name"]:
        extra["license_name"] = re.sub(r"[^a-z0-9.]+", "-", license_["name"].lower()).strip("-")
    features: Mapping[str, Any] = manifest["features"]
    return DatasetCardData(
        pretty_name=manifest["pretty_name"],
        license=license_["id"],
        language=["en"],
        annotations_creators=sorted(made),
        language_creators=list(up.language_creators),
        multilinguality=["monolingual"],
        size_categories=[size_category(sum(s["items"] for s in splits.values()))],
        source_datasets=[f"extended|{i}" for i in up.hub_ids] or ["extended|other"],
        task_categories=["text-classification"],
        task_ids=["natural-language-inference"],
        tags=list(_TAGS),
        configs=[
            {
                "config_name": config,
                **({"default": True} if config == "refined" else {}),
                "data_files": [
                    {"split": split, "path": f"{config}/{split}.parquet"}
                    for split in sorted(splits)
                ],
            }
            for config in CONFIGS
        ],
        dataset_info=[{"config_name": config, "features": features[config]} for config in CONFIGS],
        **extra,
    )


def render_card(manifest: Mapping[str, Any]) -> str:
    """The whole README.md: the metadata block between ``---`` lines, then the Markdown body."""
    from huggingface_hub import DatasetCard

    head = card_data(manifest).to_yaml()
    card = DatasetCard(f"---\n{head}\n---\n\n" + "\n".join(_body(manifest)) + "\n")
    return str(card)


def changelog_lines(entry: Mapping[str, Any]) -> list[str]:
    """One release's changes against the previous one, as Markdown list items."""
    if entry.get("previous") is None:
        return [
            f"- first release: split `{s['split']}` from run `{s['run_id']}` ({s['items']} items)"
            for s in entry["splits"]
        ]
    if not entry["splits"]:
        return [f"- no changes since {entry['previous']}"]
    lines = []
    for s in entry["splits"]:
        if s["run_id"] is None:
            lines.append(f"- split `{s['split']}` removed ({len(s['removed'])} items)")
            continue
        run = f"run `{s['run_id']}`" + (
            f" (was `{s['previous_run_id']}`)" if s.get("previous_run_id") else " (new split)"
        )
        lines.append(f"- split `{s['split']}`: {run}")
        lines += _changed("added", s["added"])
        lines += _changed("removed", s["removed"])
        lines += _changed("status changed", [f"{i}: {a} → {b}" for i, a, b in s["status"]])
        lines += _changed("label changed", [f"{i}: {a} → {b}" for i, a, b in s["label"]])
        lines += _changed("FOL changed", s["fol"])
    return lines


def change_counts(entry: Mapping[str, Any]) -> str:
    """A one-line count of one release's changes (for commit messages and the terminal)."""
    if entry.get("previous") is None:
        return "first release"
    totals = {
        key: sum(len(s[key]) for s in entry["splits"])
        for key in ("added", "removed", "status", "label", "fol")
    }
    names = {"status": "status changed", "label": "label changed", "fol": "FOL changed"}
    parts = [f"{n} {names.get(k, k)}" for k, n in totals.items() if n]
    return f"since {entry['previous']}: " + (", ".join(parts) if parts else "no item changes")


def _changed(what: str, values: Sequence[str]) -> list[str]:
    if not values:
        return []
    shown = ", ".join(f"`{v}`" for v in values[:_LIST_LIMIT])
    more = f" and {len(values) - _LIST_LIMIT} more" if len(values) > _LIST_LIMIT else ""
    return [f"  - {what} ({len(values)}): {shown}{more}"]


def release_citation(manifest: Mapping[str, Any]) -> str:
    """BibTeX for this release of the refined dataset (the upstream's is `origin.citation`)."""
    repo_id, tag = manifest["repo_id"], manifest["tag"]
    key = re.sub(r"[^a-z0-9]+", "_", f"{repo_id}_{tag}".lower()).strip("_")
    return "\n".join(
        [
            f"@misc{{{key},",
            f"  title={{{{{manifest['pretty_name']}}}}},",
            f"  author={{{repo_id.split('/')[0]}}},",
            f"  howpublished={{\\url{{https://huggingface.co/datasets/{repo_id}}}}},",
            f"  note={{Release {tag} (version {manifest['version']}); first-order-logic "
            "annotations checked and repaired with FOL Refinery},",
            f"  year={{{manifest['built_at'][:4]}}}",
            "}",
        ]
    )


def _body(manifest: Mapping[str, Any]) -> list[str]:
    splits: Mapping[str, Any] = manifest["splits"]
    lines = [
        f"# {manifest['pretty_name']}",
        "",
        f"The `{manifest['dataset']}` reasoning benchmark with its first-order-logic (FOL) "
        "annotations checked, and where possible repaired, by FOL Refinery — release "
        f"`{manifest['tag']}` (version {manifest['version']}).",
        "",
        "## How it was checked",
        "",
        "Every item's premises and conclusion FOL were parsed, linted (arity clashes, free "
        "variables, NL/FOL count mismatches) and proved: the label the FOL implies is the one two "
        f"independent provers ({_provers(splits)}) agree on, and an item counts as verified only "
        "when that label equals the gold label. Broken FOL was repaired by "
        f"{_agents(splits)}; a repair is kept only when it re-parses, re-lints and re-proves to "
        "the gold label. Items that could not be settled are marked `needs_review`.",
        "",
        "**Labels are never changed automatically.** A label differs from the original only "
        "where a human reviewer changed it (status `reviewed`, with `reviewer` and "
        "`review_note`); a label the provers disagree with is kept and flagged in "
        "`suggested_label` for review.",
        "",
        "## Outcomes",
        "",
        "| split | run | items | " + " | ".join(_STATUSES) + " |",
        "|---|---|---|" + "---|" * len(_STATUSES),
    ]
    for name, s in splits.items():
        counts = [str(s["counts"].get(k, 0)) for k in _STATUSES]
        lines.append(f"| {name} | `{s['run_id']}` | {s['items']} | " + " | ".join(counts) + " |")
    reasons = [(name, r, n) for name, s in splits.items() for r, n in s["reasons"].items()]
    if reasons:
        lines += ["", "Why items need review:", "", "| split | reason | items |", "|---|---|---|"]
        lines += [f"| {name} | {r} | {n} |" for name, r, n in reasons]
    lines += ["", "## Label changes", ""]
    changes = [(name, c) for name, s in splits.items() for c in s["label_changes"]]
    if changes:
        lines += ["| split | id | before | after | reviewer | note |", "|---|---|---|---|---|---|"]
        lines += [
            f"| {name} | `{c['id']}` | {c['before']} | {c['after']} | {c['reviewer']} "
            f"| {_cell(c['note'])} |"
            for name, c in changes[:_LIST_LIMIT]
        ]
        if len(changes) > _LIST_LIMIT:
            lines.append(f"\n… and {len(changes) - _LIST_LIMIT} more (see the `changes` config).")
    else:
        lines.append("No label was changed.")
    lines += _usage(manifest["repo_id"], splits)
    lines += _fields(manifest["features"])
    lines += _changes_config(manifest["repo_id"], splits)
    lines += _limitations(manifest["repo_id"], splits)
    lines += _provenance(manifest, splits)
    lines += _citations(manifest, splits)
    lines += ["", "## Changelog", ""]
    for entry in manifest["changelog"]:
        lines += [f"### {entry['tag']} ({entry['date'][:10]})", "", *changelog_lines(entry), ""]
    return lines


def _usage(repo_id: str, splits: Mapping[str, Any]) -> list[str]:
    split = next(iter(sorted(splits)))
    return [
        "",
        "## Using it",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'refined = load_dataset("{repo_id}")  # every item, original columns first',
        f'clean = load_dataset("{repo_id}", "clean")  # settled items only (see Limitations)',
        f'changes = load_dataset("{repo_id}", "changes")  # one row per changed field',
        f'row = refined["{split}"][0]',
        f'print(row["premises-FOL"], refined["{split}"].features["label"].int2str(row["label"]))',
        "```",
        "",
        "Configs:",
        "",
        "- `refined` (default): every item. The input's own columns come first "
        "(`premises-FOL` and `conclusion-FOL` hold the refined FOL, so it is a drop-in "
        "replacement; `background-FOL` holds the background facts a reviewer accepted, which a "
        "prover needs as further premises), then FOL Refinery's: `id`, `status`, the original "
        "FOL and label, the provers' label, the repairs, the evidence and the review columns.",
        f"- `clean`: the `refined` rows whose status is {_or(_CLEAN)}.",
        "- `changes`: one row per changed field of an item (see below).",
        "",
        f"{_or([f'`{c}`' for c in LABEL_COLUMNS], 'and')} are class labels "
        f"({', '.join(f'{i} = {n}' for i, n in enumerate(LABEL_NAMES))}): `load_dataset` gives "
        'the number, `features["label"].int2str(n)` the name. The parquet files keep the names '
        "as text, for pandas or DuckDB. `error_classes` is a list of strings.",
        "",
        "Per split, `report/<split>/` holds the run's report (`report.md`, `report.html`, "
        "figures), `diff.md` (every change, item by item) and `audit.jsonl` (each repair's "
        "trail; the `audit` column points into it).",
    ]


def _fields(features: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[str]:
    """One line per column of each config: its name, its type and what it holds."""
    lines = ["", "## Fields", "", "### `refined` and `clean`", ""]
    for f in features["refined"]:
        note = FIELD_NOTES.get(f["name"], "from the source, unchanged")
        if f["name"] in LABEL_COLUMNS:
            note += "; null where it is none of the three"
        lines.append(f"- `{f['name']}` ({feature_text(f)}): {note}")
    lines += ["", "### `changes`", ""]
    lines += [
        f"- `{f['name']}` ({feature_text(f)}): {CHANGES_NOTES[f['name']]}"
        for f in features["changes"]
    ]
    return lines


def _changes_config(repo_id: str, splits: Mapping[str, Any]) -> list[str]:
    rows = sum(s.get("changed_fields", 0) for s in splits.values())
    items = sum(s.get("changed_items", 0) for s in splits.values())
    split = next(iter(sorted(splits)))
    return [
        "",
        "## The `changes` config",
        "",
        "One row per changed field of an item: an item with two premise lines repaired has two "
        f"rows, an unchanged item none (this release: {rows} rows for {items} items). "
        "To read a row:",
        "",
        "- `field` says what changed: `premises-FOL[i]` is premise line i, counted from 0 (the "
        "i-th line of the newline-joined `premises-FOL`, or its i-th element where the source "
        "keeps lists), `conclusion-FOL`, `background-FOL[i]` (a background fact a reviewer "
        "accepted, kept apart from the premises), or `label` (changed only by a reviewer).",
        "- `before` is the source's value and `after` the released one; null on one side means "
        "the line exists only on the other (added or removed).",
        "- `repaired_by` names the repair that made the change and `reviewer` the reviewer; "
        "`status` and `reason` are the item's, `evidence` says why its released FOL gets the "
        "provers' label.",
        "- To see an item whole, look its `id` up in `refined` (`original_premises_fol` beside "
        "`premises-FOL`), or read `report/<split>/diff.md`.",
        "",
        "```python",
        f'changes = load_dataset("{repo_id}", "changes")["{split}"].to_pandas()',
        'relabelled = changes[changes["field"] == "label"]  # before → after, with the reviewer',
        'per_item = changes.groupby("id")["field"].apply(list)  # what changed, item by item',
        "```",
    ]


def _limitations(repo_id: str, splits: Mapping[str, Any]) -> list[str]:
    items = sum(s["items"] for s in splits.values())
    open_ = sum(s["counts"].get(Status.NEEDS_REVIEW, 0) for s in splits.values())
    clean = sum(s.get("clean", 0) for s in splits.values())
    share = f"{open_ / items:.1%}" if items else "0%"
    per_split = (
        " ("
        + ", ".join(
            f"`{n}`: {s['counts'].get(Status.NEEDS_REVIEW, 0)} of {s['items']}"
            for n, s in splits.items()
        )
        + ")"
        if len(splits) > 1
        else ""
    )
    lines = [
        "",
        "## Limitations",
        "",
        f"- **Items still in review ship in the default config.** {open_} of {items} items "
        f"({share}){per_split} have status `needs_review`: their FOL could not be made to prove "
        "the gold label, or the provers could not decide (see Outcomes for why). Their FOL may "
        "still be wrong and their label is the source's. The default `refined` config keeps "
        "them, unfiltered, so that it stays a drop-in replacement holding every item.",
        f"- **For settled items only**, load the `clean` config ({clean} items, status "
        f"{_or(_CLEAN)}), or filter the default one:",
        "",
        "  ```python",
        f'  settled = refined.filter(lambda row: row["status"] in ({_quoted(_CLEAN)}))',
        "  ```",
        "",
        "  Settled means the provers reproduce the label (`verified`, `repaired`) or a person "
        "decided the item (`reviewed`). A reviewer may keep a label the provers do not derive: "
        "there `prover_label` differs from `label`; keep only what the provers settle with "
        '`row["status"] != "reviewed" or row["prover_label"] == row["label"]`.',
    ]
    flagged = Counter[str]()
    for s in splits.values():
        flagged.update(s.get("flagged", {}))
    if flagged:
        said = ", ".join(f"`{r}`: {n}" for r, n in sorted(flagged.items()))
        lines.append(
            f"- Some settled items still carry a `reason` ({said}): the provers "
            "settle them, but a formula may not say what its sentence says, so they are queued "
            'for review as well. `clean` keeps them; drop them with `row["reason"] == ""`.'
        )
    lines += [
        f"- A verified or repaired item's FOL proves its gold label with "
        f"{_or(_provers(splits).split(', '), 'and')}. "
        "That does not show the FOL says what the sentences say, nor that the gold label is "
        "right: labels change only by review, and `suggested_label` flags those the provers "
        "dispute.",
        "- Scores on `refined`, on `clean` and on the original split differ in what they count: "
        "say which config and release you scored on. `refinery rescore PREDICTIONS --against "
        f"{repo_id} [--clean]` scores predictions on both the original and the refined labels.",
    ]
    return lines


def _provenance(manifest: Mapping[str, Any], splits: Mapping[str, Any]) -> list[str]:
    license_ = manifest["license"]
    if license_["id"] == "unknown":
        said = (
            "**unknown**: no license was found beside the source and none was given "
            "(`--license`). Check the source's terms before using this data."
        )
    else:
        name = f" ({license_['name']})" if license_["name"] else ""
        said = f"`{license_['id']}`{name}, carried over from {license_['origin']}."
    up = upstream(manifest["dataset"], [s["source"] for s in splits.values()])
    lines = ["", "## Source and license", ""]
    lines += [
        f"- split `{n}`: `{s['source']}` (source split `{s['source_split']}`)"
        for n, s in splits.items()
    ]
    if up.hub_ids:
        hub = ", ".join(f"[`{i}`](https://huggingface.co/datasets/{i})" for i in up.hub_ids)
        lines += ["", f"Upstream on the Hugging Face Hub: {hub}."]
    lines += ["", f"License: {said}", ""]
    if up.gated:
        lines.append(
            "**Upstream terms.** The upstream release is gated on the Hub: you must accept its "
            "terms there before downloading it. Those terms apply to this derived release too."
        )
    else:
        lines.append(
            "**Upstream terms.** The upstream dataset may be gated on the Hub (asking you to "
            "accept its terms before downloading); if so, those terms apply to this derived "
            "release too."
        )
    return lines


def _citations(manifest: Mapping[str, Any], splits: Mapping[str, Any]) -> list[str]:
    lines = ["", "## Citation", "", "If you use this release, please cite it:", ""]
    lines += ["```bibtex", release_citation(manifest), "```", ""]
    bib = citation(manifest["dataset"])
    if bib:
        lines += ["and the source dataset:", "", "```bibtex", bib, "```"]
    else:
        first = next(iter(splits.values()))
        lines.append(f"The source (`{first['source']}`) names no publication to cite.")
    return lines


def _quoted(words: Sequence[str]) -> str:
    return ", ".join(f'"{w}"' for w in words)


def _or(words: Sequence[str], last: str = "or") -> str:
    """Words as prose: ``a``, ``a or b``, ``a, b or c``."""
    return ", ".join(words[:-1]) + f" {last} {words[-1]}" if len(words) > 1 else "".join(words)


def _provers(splits: Mapping[str, Any]) -> str:
    names = sorted({p for s in splits.values() for p in s["provers"]})
    return ", ".join(names) or "none recorded"


def _agents(splits: Mapping[str, Any]) -> str:
    agents = {a for s in splits.values() for a in s["agents"]}
    llms = sorted({s["llm"] for s in splits.values() if s["llm"]})
    said = ["rule-based repairs"] if "rules" in agents else []
    if "llm" in agents:
        said.append("an LLM refiner" + (f" ({', '.join(llms)})" if llms else ""))
    return " and ".join(said) or "no repair agents"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
