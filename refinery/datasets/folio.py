"""Reading FOLIO in each published layout into `Item` records, and FOL lists for linting.

Sources `load` accepts:

- ``.jsonl``: one JSON object per line. The layout is detected per row: FOLIO v2 (the HF release)
  has ``premises`` / ``premises-FOL`` as newline-joined strings; FOLIO v0 has lists of strings.
- ``.json``: a JSON list of such objects.
- ``.csv``: a header with the HF columns
  ``story_id,premises,premises-FOL,conclusion,conclusion-FOL,label,example_id``.
- ``hf:<repo_id>[:<split>]``, e.g. ``hf:yale-nlp/FOLIO:validation``: read through
  ``datasets.load_dataset`` (imported only then). It needs network access, and a token
  (``HF_TOKEN``) for gated repositories such as yale-nlp/FOLIO; failure raises `DataError`.

Required fields are ``premises``, ``premises-FOL``, ``conclusion`` and ``label``;
``conclusion-FOL``, ``story_id`` and ``example_id`` are optional (v0 train has no conclusion FOL,
v0 validation has no ids). A null or blank label means "unlabelled" (``label=None``), any other
spelling outside True/False/Uncertain/Unknown is a row error. A malformed row (bad JSON, missing
field, wrong type, unknown label, no premises, no conclusion, duplicate id) becomes a `LoadError`
and the rest still loads; an input that cannot be read at all raises `DataError`, and so does one
that gives no item (an empty file, no rows, every row malformed: the first reason is given).

Dataset and split names, when not given, come from the path (see `infer_names`).
"""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import urllib.parse
from collections.abc import Iterable, Iterator
from pathlib import Path

from refinery.datasets.records import (
    Item,
    LoadError,
    LoadResult,
    csv_problem,
    empty_text_reason,
    no_items_reason,
    read_text_file,
    split_lines,
    story_id_from_premises,
)
from refinery.errors import DataError, RefineryError
from refinery.labels import Label, normalize_gold_label

REQUIRED_FIELDS: tuple[str, ...] = ("premises", "premises-FOL", "conclusion", "label")
CSV_COLUMNS: tuple[str, ...] = (
    "story_id",
    "premises",
    "premises-FOL",
    "conclusion",
    "conclusion-FOL",
    "label",
    "example_id",
)

# Last name token → split; "dev" is what FOLIO's own scripts call the validation split.
_SPLIT_WORDS: dict[str, str] = {
    "train": "train",
    "training": "train",
    "validation": "validation",
    "valid": "validation",
    "val": "validation",
    "dev": "validation",
    "test": "test",
}
# Hub repositories whose content is a release we already name (so ids match the local files).
_HUB_DATASETS: dict[str, str] = {"yale-nlp/folio": "folio-v2", "tasksource/folio": "folio-v2"}
_NO_SPLIT = "all"
_MAX_ERRORS_SHOWN = 3
# Ids name items in every output (review queue, report, run folder): longer is not an id.
_MAX_ID_LENGTH = 256


class _RowError(RefineryError, ValueError):
    """Internal: why one row cannot become an Item; turned into a LoadError by the caller."""


# A row reader yields (line, parsed row) or (line, _RowError) when the row could not be parsed.
_Rows = Iterator[tuple[int, object]]


def load(source: str | Path, *, dataset: str | None = None, split: str | None = None) -> LoadResult:
    """Load a FOLIO file or Hub split into items, recording malformed rows as errors.

    Parameters
    ----------
    source
        A ``.jsonl``, ``.json`` or ``.csv`` path, or ``"hf:<repo_id>[:<split>]"``.
    dataset, split
        Names recorded in each item and its id (``<dataset>/<split>/<example_id>``). Inferred
        from the path (`infer_names`) or the Hub spec when not given. For the Hub, ``split`` also
        picks the split to download when the spec has none (default ``train``).

    Returns
    -------
    LoadResult
        ``items`` in source order; ``errors`` with the source, 1-based line (JSONL/CSV: the
        physical line where the row starts; JSON/Hub: the row's position) and reason of each
        row that did not load; and the dataset and split names used.

    Raises
    ------
    DataError
        The file is missing, unreadable, not UTF-8, of an unsupported type, not a JSON list
        (``.json``), lacks required CSV columns, has an unterminated quote (``.csv``), or the Hub
        cannot be reached; or no row at all became an item (empty file, no rows, all malformed).
    """
    if isinstance(source, str) and source.startswith("hf:"):
        return _load_hub(source, dataset=dataset, split=split)
    path = Path(source)
    rows = _read_rows(path)
    inferred_dataset, inferred_split = infer_names(path)
    return _some_items(
        _collect(
            rows,
            dataset=dataset or inferred_dataset,
            split=split or inferred_split,
            source=str(path),
        ),
        str(path),
    )


def _some_items(result: LoadResult, source: str) -> LoadResult:
    """`result`, or `DataError` saying why it holds no item: checked before any slow work."""
    if not result.items:
        raise DataError(f"{source}: {no_items_reason(result.errors)}")
    return result


def infer_names(path: str | Path) -> tuple[str, str]:
    """Dataset and split names for a file, from its name and folder.

    The file stem is cut at ``-``, ``_`` and spaces and lower-cased. A last token naming a split
    (train, validation/valid/val/dev, test) gives the split, ``dev`` and ``val`` mapped to
    ``validation``; the remaining tokens, joined with ``-``, name the dataset. When they are empty
    (``dev.csv``) or the parent folder's name extends them (``folio`` in folder ``folio_v0``),
    the folder's name is used instead. Without a split token the dataset is the stem and the
    split is ``all``.

    >>> infer_names("data/reconstructed/folio_v2_validation.jsonl")
    ('folio-v2', 'validation')
    >>> infer_names("data/folio_v0/folio-train.jsonl")
    ('folio-v0', 'train')
    >>> infer_names("data/folio_v2/dev.csv")
    ('folio-v2', 'validation')
    >>> infer_names("data/malls/MALLS-v0.1-test.json")
    ('malls-v0.1', 'test')
    >>> infer_names("x/sample.jsonl")
    ('sample', 'all')
    """
    path = Path(path)
    tokens = _tokens(path.stem)
    if tokens and tokens[-1] in _SPLIT_WORDS:
        split = _SPLIT_WORDS[tokens.pop()]
    else:
        return "-".join(tokens) or "dataset", _NO_SPLIT
    name = "-".join(tokens)
    folder = "-".join(_tokens(path.absolute().parent.name))
    if folder and (not name or folder.startswith(name + "-")):
        name = folder
    return name or "dataset", split


def load_fol_lines(path: str | Path) -> list[tuple[int, str]]:
    """Read a file of FOL formulas for linting, with the line or row each came from.

    Accepted: a ``.txt`` file (one formula per line; blank lines and ``#`` comment lines skipped,
    numbers are physical lines); a ``.json`` list of strings or of objects with a ``FOL`` key
    (MALLS), numbered by position; or a FOLIO ``.jsonl``/``.csv``/``.json`` file, whose premise
    FOL lines and conclusion FOL all carry the row's line (as `Item.line`). Formulas are stripped
    and blank ones skipped.

    Parameters
    ----------
    path
        The file to read.

    Returns
    -------
    list of (int, str)
        ``(line or row number, formula)`` pairs in file order.

    Raises
    ------
    DataError
        The file cannot be read, has an unsupported type, a JSON entry is neither a string nor
        an object with a string ``FOL``, or a FOLIO file has malformed rows (`load` reports them
        one by one).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".txt":
        pairs = []
        for number, line in enumerate(read_text_file(path).split("\n"), 1):
            formula = line.strip()
            if formula and not formula.startswith("#"):
                pairs.append((number, formula))
        return pairs
    if suffix == ".json":
        entries = _read_json_list(path)
        if not _looks_like_folio(entries):
            return _fol_entries(entries, path)
    result = load(path)
    if result.errors:
        shown = "; ".join(str(e) for e in result.errors[:_MAX_ERRORS_SHOWN])
        raise DataError(f"{path}: {len(result.errors)} malformed row(s): {shown}")
    pairs = []
    for item in result.items:
        formulas = item.premises_fol + ((item.conclusion_fol,) if item.conclusion_fol else ())
        pairs.extend((item.line, formula) for formula in formulas)
    return pairs


# --- reading sources -------------------------------------------------------------------------


def _read_rows(path: Path) -> _Rows:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_rows(_read_nonempty(path))
    if suffix == ".json":
        return enumerate(_read_json_list(path), 1)
    if suffix == ".csv":
        return _csv_rows(read_text_file(path), path)
    raise DataError(f"{path}: unsupported file type {suffix!r}; expected .jsonl, .json or .csv")


def _read_nonempty(path: Path) -> str:
    text = read_text_file(path)
    reason = empty_text_reason(text)
    if reason:
        raise DataError(f"{path}: {reason}")
    return text


def _read_json_list(path: Path) -> list[object]:
    text = _read_nonempty(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: invalid JSON: {exc.msg} at line {exc.lineno}") from exc
    except RecursionError:
        raise DataError(f"{path}: invalid JSON: nested too deep to read") from None
    except ValueError as exc:  # a number past Python's int conversion limit
        raise DataError(f"{path}: invalid JSON: {exc}") from None
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of rows, got {_json_type(data)}")
    return data


def _jsonl_rows(text: str) -> _Rows:
    # Split on "\n" only: str.splitlines would also break at U+2028 etc., which JSON allows raw.
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            yield number, decode_row(line)
        except ValueError as exc:
            yield number, _RowError(str(exc))


def decode_row(line: str) -> object:
    """One JSONL line's value; `ValueError` saying why when it cannot be a row.

    Besides malformed JSON: nesting too deep for the decoder, a number too long to convert
    (Python's int limit) and a lone surrogate escape, which no UTF-8 output could hold.

    >>> decode_row('{"id": "\\\\ud800"}')
    Traceback (most recent call last):
    ...
    ValueError: not valid Unicode: field 'id' holds a lone surrogate (\\ud800)
    """
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deep to read") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string ..."
        raise ValueError(f"invalid JSON: {exc}") from None
    problem = unicode_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def unicode_problem(row: object) -> str:
    """Why `row` cannot be written as UTF-8 (a lone surrogate), naming the field; "" if it can."""
    fields = row.items() if isinstance(row, dict) else [("row", row)]
    for name, value in fields:
        text = json.dumps([name, value], ensure_ascii=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return (
                f"not valid Unicode: field {name!r} holds a lone surrogate "
                f"(\\u{ord(text[exc.start]):04x})"
            )
    return ""


def _csv_rows(text: str, path: Path) -> _Rows:
    # strict: an unterminated quote is an error, not a cell that swallows the rest of the file
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    if not text.strip():
        blank = ", only whitespace" if text else ""
        raise DataError(f"{path}: empty CSV file (no header{blank})")
    try:
        header = next(reader)
    except csv.Error as exc:
        raise DataError(f"{path}:1: unreadable CSV: {csv_problem(exc)}") from None
    missing = [c for c in REQUIRED_FIELDS if c not in header]
    if missing:
        raise DataError(f"{path}: CSV header lacks column(s) {', '.join(missing)}")
    end = reader.line_num
    while True:
        start = end + 1  # quoted fields may span lines; a row is reported where it starts
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DataError(f"{path}:{start}: unreadable CSV: {csv_problem(exc)}") from exc
        end = reader.line_num
        if not fields:
            continue
        if len(fields) != len(header):
            yield start, _RowError(f"row has {len(fields)} fields, header has {len(header)}")
        else:
            yield start, dict(zip(header, fields, strict=True))


def _load_hub(spec: str, *, dataset: str | None, split: str | None) -> LoadResult:
    repo_id, _, hub_split = spec.removeprefix("hf:").partition(":")
    if not repo_id:
        raise DataError(
            f"{spec!r}: expected hf:<repo_id>[:<split>], e.g. hf:yale-nlp/FOLIO:validation"
        )
    hub_split = hub_split or split or "train"
    try:
        import datasets as hf_datasets  # lazy: heavy import, only needed for Hub sources
    except ImportError as exc:
        raise DataError(f"{spec}: reading from the Hub needs the `datasets` package") from exc
    unreachable = _hub_unreachable()
    if unreachable:  # fail at once: the Hub client would retry for half a minute
        raise DataError(
            f"cannot load {repo_id!r} split {hub_split!r}: the Hugging Face Hub cannot be reached "
            f"({unreachable}). Set HF_HUB_OFFLINE=1 to read it from the local Hugging Face "
            "cache, or load a local .jsonl/.json/.csv copy instead."
        )
    try:
        table = hf_datasets.load_dataset(repo_id, split=hub_split)
    except Exception as exc:  # the Hub client raises many unrelated types (offline, gated, ...)
        raise DataError(
            f"cannot load {repo_id!r} split {hub_split!r} from the Hugging Face Hub "
            f"({type(exc).__name__}: {exc}). It needs network access, and for gated datasets "
            "(yale-nlp/FOLIO) an accepted licence and a token in HF_TOKEN; "
            "or load a local .jsonl/.json/.csv copy instead."
        ) from exc
    name = (
        dataset or _HUB_DATASETS.get(repo_id.lower()) or "-".join(_tokens(repo_id.split("/")[-1]))
    )
    return _some_items(
        _collect(enumerate(table, 1), dataset=name, split=split or hub_split, source=spec), spec
    )


def _hub_unreachable(timeout: float = 3.0) -> str | None:
    """Why the Hub's endpoint cannot be reached now, or None (it can; or ``HF_HUB_OFFLINE``
    asks for the local cache, which needs no network)."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return None
    url = urllib.parse.urlsplit(constants.ENDPOINT)
    host = url.hostname or "huggingface.co"
    try:
        socket.create_connection((host, url.port or 443), timeout=timeout).close()
    except OSError as err:
        return f"{host}: {err.strerror or err}"
    return None


# --- rows to items ---------------------------------------------------------------------------


def _collect(
    rows: Iterable[tuple[int, object]], *, dataset: str, split: str, source: str
) -> LoadResult:
    items: list[Item] = []
    errors: list[LoadError] = []
    first_line: dict[str, int] = {}
    for line, row in rows:
        try:
            if isinstance(row, _RowError):
                raise row
            item = _item(row, dataset=dataset, split=split, source=source, line=line)
            if item.id in first_line:
                raise _RowError(f"duplicate id {item.id!r} (first at line {first_line[item.id]})")
        except _RowError as exc:
            errors.append(LoadError(source, line, str(exc)))
            continue
        first_line[item.id] = line
        items.append(item)
    return LoadResult(items=tuple(items), errors=tuple(errors), dataset=dataset, split=split)


def _item(row: object, *, dataset: str, split: str, source: str, line: int) -> Item:
    if not isinstance(row, dict):
        raise _RowError(f"row is {_json_type(row)}, expected an object")
    problem = unicode_problem(row)  # JSON lists and the Hub do not pass through decode_row
    if problem:
        raise _RowError(problem)
    missing = [name for name in REQUIRED_FIELDS if name not in row]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        raise _RowError(f"missing field{plural} {', '.join(repr(m) for m in missing)}")
    premises = _lines(row, "premises")
    premises_fol = _lines(row, "premises-FOL")
    if not premises:
        raise _RowError("empty premises")
    conclusion = _text(row, "conclusion")
    if not conclusion:
        raise _RowError("empty conclusion")
    raw_label, label = _label(row["label"])
    return Item(
        dataset=dataset,
        split=split,
        story_id=_ident(row, "story_id") or story_id_from_premises(premises),
        example_id=_ident(row, "example_id") or f"row{line}",
        premises=premises,
        premises_fol=premises_fol,
        conclusion=conclusion,
        conclusion_fol=_text(row, "conclusion-FOL") or None,
        label=label,
        raw_label=raw_label,
        source=source,
        line=line,
        raw=json.dumps(row, ensure_ascii=False),
    )


def _lines(row: dict[str, object], name: str) -> tuple[str, ...]:
    value = row[name]
    if isinstance(value, str):
        return split_lines(value)
    if isinstance(value, list):
        for index, entry in enumerate(value):
            if not isinstance(entry, str):
                raise _RowError(f"{name}[{index}] must be a string, got {_json_type(entry)}")
        return split_lines(value)
    raise _RowError(f"{name} must be a string or a list of strings, got {_json_type(value)}")


def _text(row: dict[str, object], name: str) -> str:
    """A stripped string field; absent or null reads as ""."""
    value = row.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _RowError(f"{name} must be a string, got {_json_type(value)}")
    return value.strip()


def _ident(row: dict[str, object], name: str) -> str:
    """An id field as text ("" when absent, null or blank); integers are written in decimal."""
    value = row.get(name)
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        # bits first: str() raises past Python's int conversion limit (4300 digits)
        if value.bit_length() > _MAX_ID_LENGTH * 4 or len(str(abs(value))) > _MAX_ID_LENGTH:
            raise _RowError(f"{name} is a number of over {_MAX_ID_LENGTH} digits")
        return str(value)
    if isinstance(value, str):
        if len(value.strip()) > _MAX_ID_LENGTH:
            raise _RowError(f"{name} is {len(value.strip())} characters (limit {_MAX_ID_LENGTH})")
        return value.strip()
    raise _RowError(f"{name} must be a string or an integer, got {_json_type(value)}")


def _label(value: object) -> tuple[str, Label | None]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return "", None  # unlabelled row (e.g. a hidden test split)
    if not isinstance(value, str | bool):
        raise _RowError(f"label must be a string, got {_json_type(value)}")
    label = normalize_gold_label(value)
    if label is None:
        raise _RowError(f"label {value!r} is not one of True, False, Uncertain (or Unknown)")
    return str(value), label


def _fol_entries(entries: list[object], path: Path) -> list[tuple[int, str]]:
    pairs = []
    for number, entry in enumerate(entries, 1):
        formula = entry.get("FOL") if isinstance(entry, dict) else entry
        if not isinstance(formula, str):
            raise DataError(
                f"{path}: entry {number} is {_json_type(entry)}; "
                "expected a string or an object with a string 'FOL'"
            )
        if formula.strip():
            pairs.append((number, formula.strip()))
    return pairs


def _looks_like_folio(entries: list[object]) -> bool:
    first = entries[0] if entries else None
    return isinstance(first, dict) and "FOL" not in first and "premises-FOL" in first


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[-_\s]+", name.lower()) if t]


def _json_type(value: object) -> str:
    """JSON's name for a value's type, for messages about rows read from JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
