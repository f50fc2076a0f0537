"""Dataset loading: one immutable `Item` per benchmark example, whatever the source format.

`records` owns the record types (`Item`, `LoadError`, `LoadResult`) and the content hash;
`folio` reads FOLIO in its published layouts (v0 JSONL, v2 JSONL/JSON/CSV, the Hugging Face Hub)
and plain FOL lists for linting; `proofwriter` reads ProofWriter's ``meta-*.jsonl`` release and
generates its FOL, and `proofwriter_semantics` is that dataset's own forward-chaining reasoner.
A malformed row becomes a `LoadError`; only an input that cannot be read at all raises
`DataError`.

`load_any` picks the loader for a source (`stream_any` reads it an item at a time,
`stream_sources` several as one) and `dataset_labels` gives the labels of the datasets
that define their own reasoning semantics. Both import the loaders lazily, so importing this
package stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from refinery.datasets.records import Item, LoadError, LoadResult
from refinery.labels import Label


def check_source(source: str) -> None:
    """`DataError` at once when `source` names a local file that cannot be read (a Hub source,
    `hf:OWNER/NAME`, is checked when it is loaded): commands call this before anything slow.

    >>> check_source("missing.jsonl")
    Traceback (most recent call last):
    ...
    refinery.errors.DataError: missing.jsonl: no such file
    """
    from refinery.errors import DataError

    if source.startswith("hf:"):
        return
    path = Path(source)
    if not path.exists():
        raise DataError(f"{source}: no such file")
    if not path.is_file():
        raise DataError(f"{source}: not a file")
    if not os.access(path, os.R_OK):
        raise DataError(f"{source}: cannot read (permission denied)")


def load_any(
    source: str | Path, *, dataset: str | None = None, split: str | None = None
) -> LoadResult:
    """Load any supported source: ProofWriter ``meta-*.jsonl``, else FOLIO (files or the Hub).

    A ``.jsonl`` file is ProofWriter when its name starts with ``meta-`` or its first row has
    ``triples`` and ``questions`` (`refinery.datasets.proofwriter.looks_like_proofwriter`).
    Parameters, return value and errors are those of the chosen loader's ``load``.
    """
    from refinery.datasets import folio, proofwriter

    if _is_proofwriter(source):
        return proofwriter.load(source, dataset=dataset, split=split)
    return folio.load(source, dataset=dataset, split=split)


def _is_proofwriter(source: str | Path) -> bool:
    """Whether `source` is a local ProofWriter file (`proofwriter.looks_like_proofwriter`)."""
    from refinery.datasets import proofwriter

    hub = isinstance(source, str) and source.startswith("hf:")
    return not hub and proofwriter.looks_like_proofwriter(source)


@dataclass(frozen=True, slots=True)
class Stream:
    """A source read an item at a time (`stream_any`).

    `entries`: its items and unreadable rows (`LoadError`), in source order; `semantics`:
    whether its dataset has a semantics of its own (`dataset_labels`: ProofWriter); `expected`:
    how many items it holds, for a progress bar (ProofWriter's is counted without parsing the
    questions: an unreadable row may make it a little high).
    """

    entries: Iterator[Item | LoadError]
    semantics: bool
    expected: int


def stream_any(
    source: str | Path, *, dataset: str | None = None, split: str | None = None
) -> Stream:
    """`load_any`, an item at a time: ProofWriter is read a line at a time, so a file of any size
    takes the memory of one theory; FOLIO (files and the Hub, small) is loaded whole. A source
    without a single item is not refused here: the caller counts.
    """
    from refinery.datasets import folio, proofwriter

    if _is_proofwriter(source):
        path = Path(source)
        found = proofwriter.iter_items(path, dataset=dataset, split=split)
        return Stream(found, True, proofwriter.count_questions(path))
    result = folio.load(source, dataset=dataset, split=split)
    return Stream(iter((*result.errors, *result.items)), False, len(result.items))


def readable(
    source: str | Path, entries: Iterable[Item | LoadError], say: Callable[[LoadError], None]
) -> Iterator[Item]:
    """A stream's items (`Stream.entries`); each unreadable row goes to `say` as it is met, and
    a source in which no row could be read is refused (`DataError`) as `load_any` refuses it."""
    from refinery.datasets.records import no_items_reason
    from refinery.errors import DataError

    items, errors, first = 0, 0, None
    for entry in entries:
        if isinstance(entry, LoadError):
            errors += 1
            first = first or entry
            say(entry)
            continue
        items += 1
        yield entry
    if not items:
        raise DataError(f"{source}: {no_items_reason([first] if first else [], errors)}")


@dataclass(frozen=True, slots=True)
class Sources:
    """Several sources read one after the other (`stream_sources`): their readable `items`,
    whether any has a semantics of its own, and how many items they hold together (`Stream`)."""

    items: Iterator[Item]
    semantics: bool
    expected: int


def stream_sources(sources: Sequence[str], say: Callable[[LoadError], None]) -> Sources:
    """`stream_any` of each source, as one: every readable item (`readable`, each unreadable
    row to `say` as it is met; a source without one is refused, `DataError`)."""
    streams = [(source, stream_any(source)) for source in sources]
    items = (item for source, found in streams for item in readable(source, found.entries, say))
    semantics = any(found.semantics for _, found in streams)
    return Sources(items, semantics, sum(found.expected for _, found in streams))


def dataset_labels(items: Iterable[Item]) -> dict[str, Label]:
    """Labels under each item's dataset's own semantics, by item id (ProofWriter items only).

    Items of datasets without such a semantics (FOLIO) are absent from the result.
    """
    from refinery.datasets.proofwriter_semantics import dataset_labels as proofwriter_labels

    return proofwriter_labels(items)
