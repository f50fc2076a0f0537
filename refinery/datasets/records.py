"""The records a dataset loader returns: `Item`, `LoadError` and `LoadResult`.

An `Item` is one benchmark example (premises, conclusion, their FOL, the gold label) plus where it
came from and the original row, so that a refined dataset can be written back in its own layout.
Two values are derived, never passed in, so that they cannot go stale under `dataclasses.replace`:

- ``id`` is ``"<dataset>/<split>/<example_id>"``, e.g. ``folio-v2/validation/1014``;
- ``content_hash`` is the sha256 hex digest of the UTF-8 JSON array
  ``[premises, premises_fol, conclusion, conclusion_fol, label]`` (lists of stripped lines,
  stripped strings, ``null`` for a missing conclusion FOL or label; ``ensure_ascii=False``,
  separators ``","`` and ``":"``). It ignores ids, provenance and the raw row, so the same example
  read from JSONL and from CSV hashes the same, and any edit to text, FOL or label changes it.

A source that gives no item at all is refused as a whole, and `empty_text_reason` /
`no_items_reason` say why in the loaders' one-line `DataError`.

Only the standard library and the vocabulary (`refinery.labels`, `refinery.addresses`) are
imported here.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from refinery.addresses import CONCLUSION, premise
from refinery.errors import DataError
from refinery.labels import Label


def split_lines(value: str | Iterable[str]) -> tuple[str, ...]:
    """Premises (or their FOL) as stripped, non-empty lines.

    Accepts both published layouts: one newline-joined string (FOLIO v2) or a list of strings
    (FOLIO v0). Blank lines are dropped silently; the row's ``raw`` text still has them.

    >>> split_lines("A(x)\\n  B(x) \\n\\n")
    ('A(x)', 'B(x)')
    >>> split_lines(["A(x)", " ", "B(x)"])
    ('A(x)', 'B(x)')
    """
    lines = value.split("\n") if isinstance(value, str) else value
    return tuple(s for s in (line.strip() for line in lines) if s)


def story_id_from_premises(premises: Iterable[str]) -> str:
    """A stable story id for rows that have none: ``"p"`` + 8 hex digits of the premises' sha256.

    Rows with the same (stripped, non-empty) premise lines get the same id, so they form one story.

    >>> story_id_from_premises(["All cats purr.", "Tom is a cat."])
    'p740178d0'
    """
    digest = hashlib.sha256("\n".join(premises).encode("utf-8")).hexdigest()
    return "p" + digest[:8]


def content_hash(
    premises: tuple[str, ...],
    premises_fol: tuple[str, ...],
    conclusion: str,
    conclusion_fol: str | None,
    label: Label | None,
) -> str:
    """The sha256 hex digest that `Item.content_hash` holds; see the module docstring."""
    payload = json.dumps(
        [
            list(premises),
            list(premises_fol),
            conclusion,
            conclusion_fol,
            None if label is None else label.value,
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One benchmark example, normalised; ``id`` and ``content_hash`` are computed.

    Text fields are stripped, premise lists hold no blank lines, ``conclusion_fol`` is None when
    the row has none (absent, null or blank), and ``label`` is the gold label normalised to
    True/False/Uncertain (None for an unlabelled row; ``raw_label`` keeps the original spelling).
    ``raw`` is the original row as JSON (original field names, order and values), so
    ``json.loads(item.raw)`` gives the row back exactly. ``line`` is 1-based: the physical line
    for JSONL and CSV (where the row starts), the position in the list for JSON and the Hub.
    """

    id: str = field(init=False)
    dataset: str
    split: str
    story_id: str
    example_id: str
    premises: tuple[str, ...]
    premises_fol: tuple[str, ...]
    conclusion: str
    conclusion_fol: str | None
    label: Label | None
    raw_label: str
    source: str
    line: int
    raw: str = field(repr=False)
    content_hash: str = field(init=False)

    def __post_init__(self) -> None:
        # Frozen dataclass: derived fields are set once, here, through object.__setattr__.
        object.__setattr__(self, "id", f"{self.dataset}/{self.split}/{self.example_id}")
        object.__setattr__(
            self,
            "content_hash",
            content_hash(
                self.premises,
                self.premises_fol,
                self.conclusion,
                self.conclusion_fol,
                self.label,
            ),
        )

    def formulas(self) -> dict[str, str]:
        """The FOL by address (`refinery.addresses`): every premise, then the conclusion ("" when
        the row has none)."""
        fol = {premise(i): text for i, text in enumerate(self.premises_fol)}
        fol[CONCLUSION] = self.conclusion_fol or ""
        return fol

    def sentences(self) -> dict[str, str]:
        """The NL sentence of each formula by address: the premises only when they line up one
        to one with their FOL, and the conclusion."""
        nl: dict[str, str] = {}
        if len(self.premises) == len(self.premises_fol):
            nl = {premise(i): text for i, text in enumerate(self.premises)}
        nl[CONCLUSION] = self.conclusion
        return nl

    def with_formulas(self, fol: Mapping[str, str]) -> Item:
        """A copy whose FOL is `fol` (every address of `formulas`)."""
        premises = tuple(fol[premise(i)] for i in range(len(self.premises_fol)))
        return dataclasses.replace(self, premises_fol=premises, conclusion_fol=fol[CONCLUSION])


@dataclass(frozen=True, slots=True)
class LoadError:
    """A row that could not become an `Item` (a record, not an exception): where and why."""

    source: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


@dataclass(frozen=True, slots=True)
class LoadResult:
    """Everything one source gave: the items in source order and the rows that failed."""

    items: tuple[Item, ...]
    errors: tuple[LoadError, ...]
    dataset: str
    split: str


def read_text_file(path: Path, *, save_as: str = "UTF-8") -> str:
    """A user's text file (a dataset, a review queue, predictions): UTF-8, with or without the
    byte-order mark spreadsheets write; anything else is a `DataError` saying what was found
    and how to save it instead (`save_as`). A legacy code page is refused, not guessed: it has
    already lost ∀∃¬.
    """
    with _open(path) as fh:
        raw = fh.read()
    _refuse_utf16(raw[:4096], path, save_as)
    if b"\x00" in raw:
        _refuse_nul(path, raw[: raw.index(b"\x00")].count(b"\n") + 1)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        _refuse_code_page(path, raw[exc.start], line, save_as)


def text_lines(path: Path, *, save_as: str = "UTF-8") -> Iterator[tuple[int, str]]:
    """The lines of a user's text file one at a time, numbered from 1 and without their "\\n",
    refused as `read_text_file` refuses (each refusal raised at the line it concerns): a file
    of any size is read in the memory of its longest line.
    """
    with _open(path) as fh:
        _refuse_utf16(fh.peek(4096)[:4096], path, save_as)
        for number, raw in enumerate(fh, 1):
            if b"\x00" in raw:
                _refuse_nul(path, number)
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                _refuse_code_page(path, raw[exc.start], number, save_as)
            yield number, text.removesuffix("\n")


def _open(path: Path) -> io.BufferedReader:
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _refuse_utf16(head: bytes, path: Path, save_as: str) -> None:
    # UTF-16 text puts a NUL beside nearly every ASCII character; one stray NUL is no encoding
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or head.count(b"\x00") * 4 > len(head):
        raise DataError(
            f"{path}: cannot read: UTF-16 (a spreadsheet's 'Unicode text'); save it as {save_as}"
        )


def _refuse_nul(path: Path, line: int) -> NoReturn:
    raise DataError(f"{path}: cannot read: a NUL byte on line {line}, which no text holds")


def _refuse_code_page(path: Path, byte: int, line: int, save_as: str) -> NoReturn:
    raise DataError(
        f"{path}: cannot read: not UTF-8 (byte 0x{byte:02x} on line {line}: a legacy code page "
        f"such as Windows-1252, which cannot hold ∀∃¬); save it as {save_as}"
    ) from None


def csv_problem(exc: csv.Error) -> str:
    """A `csv.Error` in words a spreadsheet user knows (the row's line is said by the caller)."""
    text = str(exc)
    if text == "unexpected end of data":
        return "unterminated quote: a quoted cell starting in this row never ends"
    if "expected after" in text:
        return f"a quote inside a quoted cell must be doubled ({text})"
    return text


def empty_text_reason(text: str) -> str:
    """Why a file's text can hold no row ("" when it holds something).

    >>> empty_text_reason(""), empty_text_reason(" \\n\\t\\n"), empty_text_reason("{}")
    ('empty file (0 bytes)', 'empty file (only whitespace)', '')
    """
    if not text:
        return "empty file (0 bytes)"
    if not text.strip():
        return "empty file (only whitespace)"
    return ""


def no_items_reason(errors: Sequence[LoadError], count: int | None = None) -> str:
    """Why a source that was read gave no item: no rows, or every row unreadable (the first why);
    `count` is how many were unreadable when `errors` holds only some of them.

    >>> no_items_reason([LoadError("d.jsonl", 2, "missing field 'label'")] * 3)
    "no item could be read: 3 unreadable row(s); the first, line 2: missing field 'label'"
    """
    if not errors:
        return "no rows in it"
    first = errors[0]
    return (
        f"no item could be read: {len(errors) if count is None else count} unreadable row(s); "
        f"the first, line {first.line}: {first.reason}"
    )
