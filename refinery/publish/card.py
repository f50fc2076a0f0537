"""The dataset card (`README.md` of a published folder): YAML front matter and the text body.

The card is rendered from the publish manifest (`publish.json`) alone, so the same manifest always
gives the same card. This module also owns what the card says about the data's origin: the
license carried over from the source (a ``License: X`` line in a PROVENANCE.md, LICENSE or
README.md beside the source file, mapped to a Hub license id) and the source's citation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refinery.outcomes import Status

#: Hub license ids by normalised spelling (lower case, letters, digits and dots only).
_LICENSES = {
    "cc0": "cc0-1.0",
    "cc01.0": "cc0-1.0",
    "cc01.0universal": "cc0-1.0",
    "publicdomain": "cc0-1.0",
    "ccby4.0": "cc-by-4.0",
    "creativecommonsattribution4.0": "cc-by-4.0",
    "creativecommonsattribution4.0international": "cc-by-4.0",
    "ccbysa4.0": "cc-by-sa-4.0",
    "creativecommonsattributionsharealike4.0": "cc-by-sa-4.0",
    "creativecommonsattributionsharealike4.0international": "cc-by-sa-4.0",
    "ccbync4.0": "cc-by-nc-4.0",
    "ccbyncsa4.0": "cc-by-nc-sa-4.0",
    "mit": "mit",
    "mitlicense": "mit",
    "apache2.0": "apache-2.0",
    "apachelicense2.0": "apache-2.0",
    "apachelicenseversion2.0": "apache-2.0",
    "bsd3clause": "bsd-3-clause",
    "gpl3.0": "gpl-3.0",
    "odcby": "odc-by",
    "odcby1.0": "odc-by",
    "unknown": "unknown",
    "other": "other",
}
_LICENSE_FILES = ("PROVENANCE.md", "LICENSE", "LICENSE.md", "LICENSE.txt", "README.md")
_LICENSE_LINE = re.compile(r"^[\s>*_#-]*license[*_]*\s*:[*_]*\s*(.+?)\s*$", re.IGNORECASE)

#: Upstream licenses of datasets we know by name, used when no file beside the source says.
_KNOWN = {
    "folio": ("cc-by-sa-4.0", "CC-BY-SA-4.0 (the FOLIO release: Yale-LILY/FOLIO LICENSE)"),
}
_FOLIO = re.compile(r"^folio(-v\d+(\.\d+)*)?$")
_PROOFWRITER = re.compile(r"^proofwriter")

_FOLIO_BIBTEX = """@article{han2022folio,
  title={FOLIO: Natural Language Reasoning with First-Order Logic},
  author={Han, Simeng and Schoelkopf, Hailey and Zhao, Yilun and Qi, Zhenting and Riddell, Martin and Benson, Luke and Sun, Lucy and Zubova, Ekaterina and Qiao, Yujie and Burtell, Matthew and Peng, David and Fan, Jonathan and Liu, Yixin and Wong, Brian and Sailor, Malcolm and Ni, Ansong and Nan, Linyong and Kasai, Jungo and Yu, Tao and Zhang, Rui and Joty, Shafiq and Fabbri, Alexander R. and Kryscinski, Wojciech and Lin, Xi Victoria and Xiong, Caiming and Radev, Dragomir},
  journal={arXiv preprint arXiv:2209.00840},
  url={https://arxiv.org/abs/2209.00840},
  year={2022}
}"""
_PROOFWRITER_BIBTEX = """@inproceedings{tafjord-etal-2021-proofwriter,
  title={{P}roof{W}riter: Generating Implications, Proofs, and Abductive Statements over Natural Language},
  author={Tafjord, Oyvind and Dalvi, Bhavana and Clark, Peter},
  booktitle={Findings of the Association for Computational Linguistics: ACL-IJCNLP 2021},
  pages={3621--3634},
  url={https://aclanthology.org/2021.findings-acl.317},
  year={2021}
}"""

_STATUSES = tuple(s.value for s in Status)
_LIST_LIMIT = 20  # ids listed per changelog line and rows per card table; the rest is counted


@dataclass(frozen=True)
class License:
    """A Hub license id, the name as found, and where it was found (empty when nowhere)."""

    id: str
    name: str
    origin: str


def hub_license(text: str) -> str | None:
    """The Hub license id for a license name as people write it, or None when unknown.

    >>> hub_license("CC0."), hub_license("CC BY-SA 4.0"), hub_license("MIT License")
    ('cc0-1.0', 'cc-by-sa-4.0', 'mit')
    >>> hub_license("my own terms") is None
    True
    """
    for candidate in (text, re.split(r"[(;,]", text)[0]):
        key = re.sub(r"[^a-z0-9.]", "", candidate.lower()).strip(".")
        if key in _LICENSES:  # Hub ids normalise onto keys too (cc-by-sa-4.0 → ccbysa4.0)
            return _LICENSES[key]
    return None


def find_license(source: str, dataset: str, *, override: str | None = None) -> License:
    """The license to publish under: `override`, else the source's, else ``unknown``.

    The source's license is the first ``License: X`` line of a PROVENANCE.md, LICENSE or
    README.md in the source file's folder (a LICENSE file may instead name its license in its
    first line, e.g. "MIT License"); failing that, the upstream license of a dataset known by
    name (FOLIO). A name with no Hub id becomes ``other`` with the name kept.
    """
    if override:
        return License(hub_license(override) or override.lower(), override, "`--license`")
    folder = None if source.startswith("hf:") else Path(source).expanduser().resolve().parent
    for name in _LICENSE_FILES if folder else ():
        path = folder / name if folder else Path(name)
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        found = [m.group(1) for m in map(_LICENSE_LINE.match, lines) if m]
        if not found and name.startswith("LICENSE"):
            found = [line.strip() for line in lines if line.strip()][:1]
        if found:
            lid = hub_license(found[0]) or "other"
            return License(lid, found[0].rstrip("."), f"`{name}` beside the source file")
    if _FOLIO.match(dataset):
        lid, name = _KNOWN["folio"]
        return License(lid, name, "the upstream FOLIO release (no license file beside the source)")
    return License("unknown", "", "")


def citation(dataset: str) -> str | None:
    """BibTeX of the dataset a run's source comes from (FOLIO, ProofWriter), None for others."""
    if _FOLIO.match(dataset):
        return _FOLIO_BIBTEX
    if _PROOFWRITER.match(dataset):
        return _PROOFWRITER_BIBTEX
    return None


def pretty_name(dataset: str) -> str:
    """A human name for the published dataset, e.g. ``FOLIO v2 (refined FOL)``."""
    if m := _FOLIO.match(dataset):
        base = "FOLIO" + (f" {m.group(1)[1:]}" if m.group(1) else "")
    elif _PROOFWRITER.match(dataset):
        base = "ProofWriter"
    else:
        base = dataset
    return f"{base} (refined FOL)"


def size_category(n: int) -> str:
    """The Hub's size bucket for `n` rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M" if n < 1_000_000 else "1M<n<10M"


def front_matter(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The card's YAML metadata: license, configs (refined is the default), task, size."""
    splits: Mapping[str, Any] = manifest["splits"]
    license_: Mapping[str, str] = manifest["license"]
    meta: dict[str, Any] = {
        "pretty_name": manifest["pretty_name"],
        "license": license_["id"],
    }
    if license_["id"] == "other" and license_["name"]:
        meta["license_name"] = re.sub(r"[^a-z0-9.]+", "-", license_["name"].lower()).strip("-")
    meta |= {
        "language": ["en"],
        "task_categories": ["text-classification"],
        "task_ids": ["natural-language-inference"],
        "tags": ["logic", "first-order-logic", "reasoning", "theorem-proving", "fol-refinery"],
        "size_categories": [size_category(sum(s["items"] for s in splits.values()))],
        "configs": [
            {
                "config_name": config,
                **({"default": True} if config == "refined" else {}),
                "data_files": [
                    {"split": split, "path": f"{config}/{split}.parquet"}
                    for split in sorted(splits)
                ],
            }
            for config in ("refined", "changes")
        ],
    }
    return meta


def render_card(manifest: Mapping[str, Any]) -> str:
    """The whole README.md: front matter between ``---`` lines, then the Markdown body."""
    import yaml

    head = yaml.safe_dump(front_matter(manifest), sort_keys=False, allow_unicode=True)
    return f"---\n{head}---\n\n" + "\n".join(_body(manifest)) + "\n"


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


def _body(manifest: Mapping[str, Any]) -> list[str]:
    splits: Mapping[str, Any] = manifest["splits"]
    repo_id = manifest["repo_id"]
    first = next(iter(splits.values()))
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
    lines += _usage(repo_id, splits)
    lines += _provenance(manifest, splits, first)
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
        f'refined = load_dataset("{repo_id}")  # the refined split(s), original columns first',
        f'changes = load_dataset("{repo_id}", "changes")  # one row per changed field',
        f'print(refined["{split}"][0]["premises-FOL"])',
        "```",
        "",
        "Configs:",
        "",
        "- `refined` (default): the input's own columns (`premises-FOL` and `conclusion-FOL` "
        "hold the refined FOL, so it is a drop-in replacement) plus `id`, `status` "
        "(verified | repaired | needs_review | reviewed), `reason`, `original_label`, `label`, "
        "`suggested_label`, `prover_label`, `original_premises_fol`, "
        "`original_conclusion_fol`, `repaired_by`, `error_classes`, `audit`, `run_id`, "
        "`content_hash` and the review columns.",
        "- `changes`: one row per changed field of an item — `id`, `field` "
        "(`premises-FOL[i]` for premise line i, counted from 0; `conclusion-FOL`; `label`), "
        "`before`, `after`, `status`, `reason`, `reviewer`, `repaired_by`. Unchanged items "
        "have no rows.",
        "",
        "Per split, `report/<split>/` holds the run's report (`report.md`, `report.html`, "
        "figures), `diff.md` (every change, item by item) and `audit.jsonl` (each repair's "
        "trail; the `audit` column points into it).",
    ]


def _provenance(
    manifest: Mapping[str, Any], splits: Mapping[str, Any], first: Mapping[str, Any]
) -> list[str]:
    license_ = manifest["license"]
    if license_["id"] == "unknown":
        said = (
            "**unknown**: no license was found beside the source and none was given "
            "(`--license`). Check the source's terms before using this data."
        )
    else:
        name = f" ({license_['name']})" if license_["name"] else ""
        said = f"`{license_['id']}`{name}, carried over from {license_['origin']}."
    lines = ["", "## Source and license", ""]
    lines += [
        f"- split `{n}`: `{s['source']}` (source split `{s['source_split']}`)"
        for n, s in splits.items()
    ]
    lines += ["", f"License: {said}", "", "## Citation", ""]
    bib = citation(manifest["dataset"])
    if bib:
        lines += ["Please cite the source dataset:", "", "```bibtex", bib, "```"]
    else:
        lines.append(f"The source (`{first['source']}`) names no publication to cite.")
    return lines


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
