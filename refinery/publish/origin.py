"""Where a published dataset comes from, as its card says: upstream, license and citation.

The license is carried over from the source: a ``License: X`` line in a PROVENANCE.md, LICENSE
or README.md beside the source file, mapped to a Hub license id, else the upstream license of a
dataset known by name. `upstream` names the dataset a release extends (its Hub id where known,
whether that is gated, and how its text and annotations were made), for the card's
``source_datasets``, ``annotations_creators`` and ``language_creators``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

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


#: FOLIO on the Hub; it is gated (a user accepts its terms before downloading).
_FOLIO_HUB_ID = "yale-nlp/FOLIO"
_GATED = {_FOLIO_HUB_ID}


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


@dataclass(frozen=True)
class Upstream:
    """The dataset a release extends: its Hub ids (none when unknown), who made its text and its
    annotations (the Hub's ``*_creators`` vocabulary), and whether any Hub id is gated."""

    hub_ids: tuple[str, ...]
    language_creators: tuple[str, ...]
    annotations_creators: tuple[str, ...]
    gated: bool


def upstream(dataset: str, sources: Iterable[str]) -> Upstream:
    """The upstream of `dataset`, read from its name and its splits' sources.

    A Hub source (``hf:OWNER/NAME[:split]``) names its repository; FOLIO is `yale-nlp/FOLIO`
    (expert-written stories and FOL); ProofWriter is generated from templates.

    >>> upstream("folio-v2", ["folio_v2_train.jsonl"]).hub_ids
    ('yale-nlp/FOLIO',)
    >>> upstream("mine", ["hf:someone/logic:test"])
    Upstream(hub_ids=('someone/logic',), language_creators=('other',), \
annotations_creators=('other',), gated=False)
    """
    ids = {
        s.removeprefix("hf:").split(":")[0].split("@")[0] for s in sources if s.startswith("hf:")
    }
    if _FOLIO.match(dataset):
        ids.add(_FOLIO_HUB_ID)
        made = ("expert-generated",)
    elif _PROOFWRITER.match(dataset):
        made = ("machine-generated",)
    else:
        made = ("other",)
    hub_ids = tuple(sorted(ids))
    return Upstream(hub_ids, made, made, gated=bool(_GATED & ids))
