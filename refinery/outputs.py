"""What the product writes out: result files, atomically, and text for a terminal.

A result file is written to a temp file in the target folder, then renamed: a crash mid-write
leaves the previous file (or none), never half of a new one.

Text from a dataset or a reviewer (a sentence, formula, note or file name) is data: printed raw,
an escape sequence in it could set the terminal's clipboard (OSC 52) or title, clear the screen
or hide text, and a bidi control could reorder what a reviewer reads. `visible` shows each such
character as a visible code (``⟨U+202E⟩``) instead, keeping line breaks and tabs.
"""

from __future__ import annotations

import csv
import glob
import hashlib
import io
import itertools
import json
import os
import shutil
import stat
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Kept as they are: line breaks and tabs lay text out and act on nothing else.
_LAYOUT = frozenset("\n\t")
#: The general categories shown as codes: controls (C0, C1, ESC), format characters (bidi
#: overrides and isolates, zero-width spaces and joiners), line and paragraph separators,
#: unassigned, private-use and surrogate code points.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cn", "Cs", "Co"})


def visible(text: str) -> str:
    """`text` with every control, format or invisible character shown as its code point.

    >>> visible("Cat(tom)\\x1b]52;c;ZXZpbA==\\x07 ok")
    'Cat(tom)⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩ ok'
    >>> visible("note \\u202eevil\\nline two\\tend")
    'note ⟨U+202E⟩evil\\nline two\\tend'
    >>> visible("∀x (Bee(x) → Animal(x))")  # ordinary text is unchanged
    '∀x (Bee(x) → Animal(x))'
    """
    if text.isprintable():
        return text  # the common case: nothing to show differently
    return "".join(
        f"⟨U+{ord(c):04X}⟩" if c not in _LAYOUT and unicodedata.category(c) in _HIDDEN else c
        for c in text
    )


def atomic_write(
    path: Path, write: Callable[[Path], None], *, check: Callable[[], None] | None = None
) -> Path:
    """Call `write(tmp)` on a temp path next to `path`, then rename it into place.

    `check`, when given, runs just before the rename: raising there leaves `path` as it was
    (a writer that must not replace a file someone else changed meanwhile).
    """
    tmp = temp_beside(path)
    try:
        write(tmp)
        install(tmp, path, check=check)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def temp_beside(path: Path) -> Path:
    """A new empty temp file next to `path`, named so `stale_temps(path)` finds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(tmp)


def install(tmp: Path, path: Path, *, check: Callable[[], None] | None = None) -> None:
    """Rename a finished temp file (`temp_beside`) over `path`: its data on disk first, the
    permissions of the file it replaces, `check()` just before the rename."""
    os.chmod(tmp, _mode(path))
    _sync(tmp)  # the data is on disk before the name points at it: a power cut leaves
    if check is not None:
        check()
    os.replace(tmp, path)  # the old file or the new one, never an empty one
    _sync(path.parent)


@contextmanager
def folder_aside(path: Path) -> Iterator[Path]:
    """A copy of the folder `path` (empty when there is none) to write into; when the block
    ends without an error, the copy replaces `path` whole.

    The swap is two renames (the old folder aside, the new one in); a process killed between
    them leaves the old folder as ``.<name>.old``, which the next build puts back before it
    starts, and a killed build's copy (``.<name>.partial-*``) is removed then. Builds of one
    folder take turns (a lock file beside it).
    """
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.with_name(f".{path.name}.old")
    with FileLock(path.with_name(f".{path.name}.lock")):
        if old.exists():
            if path.exists():
                shutil.rmtree(old)  # killed after the swap: the old folder is garbage
            else:
                os.rename(old, path)  # killed between the renames: the old folder is the release
        for leftover in path.parent.glob(f".{glob.escape(path.name)}.partial-*"):
            shutil.rmtree(leftover, ignore_errors=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{path.name}.partial-", dir=path.parent))
        try:
            if path.is_dir():
                shutil.copytree(path, stage, symlinks=True, dirs_exist_ok=True)
            else:  # mkdtemp's 0700 would hide a new release from everyone else
                os.chmod(stage, 0o777 & ~_umask())
            yield stage
            if path.exists():
                os.rename(path, old)
            os.rename(stage, path)
            _sync(path.parent)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        shutil.rmtree(old, ignore_errors=True)


def _sync(path: str | Path) -> None:
    """fsync a file or a folder (a folder's entry is the rename); a system that cannot sync a
    folder (some file systems, Windows) keeps what it has."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def stale_temps(path: Path) -> list[Path]:
    """The temp files `atomic_write` leaves beside `path` when its writer is killed mid-write.

    Only the one writer of `path` (one that holds its lock) may remove them: another writer's
    temp file is in use until it is renamed.
    """
    return sorted(path.parent.glob(f".{glob.escape(path.name)}.*.tmp"))


def _mode(path: Path) -> int:
    """The permissions the new file gets: those of the file it replaces (a queue its owner
    made private stays private), else the usual ones (mkstemp's 0600 would hide outputs)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically."""

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding=encoding)

    return atomic_write(path, write)


@dataclass(frozen=True, slots=True)
class Written:
    """Where `write_table` put a table, and whether it wrote it (False: it was unchanged)."""

    parquet: Path
    csv: Path
    written: bool


def write_table(
    rows: Sequence[dict[str, Any]], out_dir: Path, stem: str, *, volatile: Sequence[str] = ()
) -> Written:
    """Write rows as `<stem>.parquet` and `<stem>.csv` (UTF-8) in `out_dir`, atomically.

    Columns are every key in first-seen order (a row without one holds null / an empty cell).
    A column's type comes from its values: bool, int64, float64 (ints and floats), string.

    When both files are as this function last wrote them, for rows equal to these but for the
    `volatile` columns, nothing is written (a re-run on unchanged data then skips loading
    pyarrow, which costs it most of its time): a sidecar `.<stem>.digest` keeps the rows'
    digest and both files' sizes and modification times.

    Raises:
        ValueError: a column mixes text, numbers or truth values.
    """
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with TableWriter(out_dir, stem, volatile=volatile) as writer:
        for row in rows:
            writer.add({c: row.get(c) for c in columns})
        if not rows:
            writer.columns(columns)
        return writer.close()


class TableWriter:
    """A table written a row at a time (`write_table` is one whose rows are all at hand): memory
    holds one block of rows, however many there are.

    `add` writes each row to `<stem>.csv`'s temp file and to a temp file of JSON lines, and
    folds it into the rows' digest. `close` then either drops both temp
    files, when the digest and the files are those the sidecar recorded (nothing written,
    pyarrow not imported), or builds `<stem>.parquet` from the JSON lines, `block` rows at a
    time, and renames both into place. The columns are the first row's keys, in order; a row
    with other keys is a `ValueError`, and so is a column whose values mix kinds. Leaving a
    `with` block on an exception removes the temp files and writes nothing.
    """

    def __init__(
        self, out_dir: Path, stem: str, *, volatile: Sequence[str] = (), block: int = 5000
    ) -> None:
        self.parquet, self.csv = out_dir / f"{stem}.parquet", out_dir / f"{stem}.csv"
        self._sidecar = out_dir / f".{stem}.digest"
        self._volatile, self._block = frozenset(volatile), block
        self._columns: list[str] | None = None
        self._kinds: dict[str, set[str]] = {}
        self._digest = hashlib.sha256()
        self.rows = 0
        self._csv_tmp, self._lines_tmp = temp_beside(self.csv), temp_beside(self.parquet)
        self._csv = self._csv_tmp.open("w", encoding="utf-8", newline="")
        self._writer = csv.writer(self._csv, lineterminator="\n")
        self._lines = self._lines_tmp.open("w", encoding="utf-8")

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is not None:
            self.abort()

    def columns(self, names: Sequence[str]) -> list[str]:
        """The table's columns: `names`, unless the first row (or an earlier call) fixed them
        (a table with no row still has a header)."""
        if self._columns is None:
            self._columns = list(names)
            self._writer.writerow(self._columns)
            self._digest.update(f"[{json.dumps(self._columns)}, [".encode())
        return self._columns

    def add(self, row: Mapping[str, Any]) -> None:
        """Write one row (see the class docstring for what it must hold)."""
        columns = self.columns(list(row))
        if len(row) != len(columns) or any(c not in row for c in columns):
            raise ValueError(f"row {self.rows + 1} has columns {list(row)}, not {columns}")
        # one JSON text serves the digest (without the volatile columns) and the JSON lines
        line = json.dumps(
            {c: row[c] for c in columns if c not in self._volatile}, ensure_ascii=False
        )
        self._digest.update(f"{line}\n".encode())
        volatile = {c: row[c] for c in columns if c in self._volatile}
        if volatile:
            rest = json.dumps(volatile, ensure_ascii=False)[1:]
            line = "{" + rest if line == "{}" else f"{line[:-1]}, {rest}"
        for column in columns:
            if row[column] is not None:
                self._kinds.setdefault(column, set()).add(_value_kind(row[column]))
        self._writer.writerow([_cell(row[c]) for c in columns])
        self._lines.write(line)
        self._lines.write("\n")
        self.rows += 1

    def close(self) -> Written:
        """Put both files in place, or leave them as they are when the rows are unchanged."""
        self._csv.close()
        self._lines.close()
        try:
            self.columns([])  # no row and no columns: an empty table
            self._digest.update(b"]]")
            stamp = _stamp(self._digest.hexdigest(), self.parquet, self.csv)
            if stamp == _read(self._sidecar):
                self.abort()
                return Written(self.parquet, self.csv, written=False)
            parquet_tmp = temp_beside(self.parquet)
            try:
                self._write_parquet(parquet_tmp)
                install(parquet_tmp, self.parquet)
            except BaseException:
                parquet_tmp.unlink(missing_ok=True)
                raise
            install(self._csv_tmp, self.csv)
        finally:
            self.abort()  # whatever is left: the JSON lines, and the CSV when not installed
        digest = self._digest.hexdigest()
        atomic_write_text(self._sidecar, _stamp(digest, self.parquet, self.csv))
        return Written(self.parquet, self.csv, written=True)

    def abort(self) -> None:
        """Remove the temp files: nothing is written."""
        for handle in (self._csv, self._lines):
            handle.close()
        self._csv_tmp.unlink(missing_ok=True)
        self._lines_tmp.unlink(missing_ok=True)

    def _write_parquet(self, path: Path) -> None:
        import pyarrow.json as pj
        import pyarrow.parquet as pq

        columns = self._columns or []
        kinds = {}
        for column in columns:
            kind = _one_kind(self._kinds.get(column, set()))
            if kind is None:
                found = ", ".join(sorted(self._kinds[column]))
                raise ValueError(f"column {column!r} mixes {found}")
            kinds[column] = kind
        schema = _schema(columns, kinds)
        with pq.ParquetWriter(path, schema) as out, self._lines_tmp.open("rb") as lines:
            if not self.rows:
                out.write_table(schema.empty_table())
            while block := b"".join(itertools.islice(lines, self._block)):
                out.write_table(
                    pj.read_json(
                        io.BytesIO(block),
                        read_options=pj.ReadOptions(block_size=len(block) + 1, use_threads=False),
                        parse_options=pj.ParseOptions(explicit_schema=schema),
                    )
                )


def _stamp(digest: str, *files: Path) -> str:
    """The rows' digest and each file's size and mtime ("" when a file is missing)."""
    try:
        stats = [(f.stat().st_size, f.stat().st_mtime_ns) for f in files]
    except FileNotFoundError:
        return ""
    return json.dumps([digest, stats])


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def arrow_table(rows: Sequence[Mapping[str, Any]], columns: list[str] | None = None) -> Any:
    """The rows as a pyarrow Table, built by pyarrow's JSON reader under an explicit schema.

    Columns are `columns`, else every key in first-seen order; a column's type comes from its
    values: bool, int64, float64 (ints and floats), string, or a list of strings.

    Not `pyarrow.array` on Python lists, and not pandas: pyarrow's array builders import pandas
    to look for its types, which costs a short run (a warm `check`) most of its time.
    """
    import pyarrow.json as pj

    if columns is None:
        columns = list(dict.fromkeys(key for row in rows for key in row))
    schema = _schema(columns, {c: _kind(c, [row.get(c) for row in rows]) for c in columns})
    if not rows:
        return schema.empty_table()
    lines = (json.dumps({c: row.get(c) for c in columns}, ensure_ascii=False) for row in rows)
    data = "\n".join(lines).encode("utf-8")
    return pj.read_json(
        io.BytesIO(data),
        read_options=pj.ReadOptions(block_size=len(data) + 1, use_threads=False),
        parse_options=pj.ParseOptions(explicit_schema=schema),
    )


def _schema(columns: Sequence[str], kinds: Mapping[str, str]) -> Any:
    """The pyarrow schema of `columns` whose values are of `kinds` (see `_kind`)."""
    import pyarrow as pa

    types = {
        "bool": pa.bool_(),
        "int": pa.int64(),
        "float": pa.float64(),
        "str": pa.string(),
        "list": pa.list_(pa.string()),
        "null": pa.null(),
    }
    return pa.schema([(c, types[kinds[c]]) for c in columns])


def mixed_column(rows: Iterable[Mapping[str, Any]]) -> str:
    """Why `rows` cannot be one table (a column whose values mix kinds, as `arrow_table` and
    `write_table` would refuse them), naming the first row of each kind; "" when they can.
    The rows are read one at a time, so they may come from a generator.

    >>> mixed_column([{"story_id": 1}, {"story_id": 1}, {"story_id": "s2"}])
    "column 'story_id' mixes int (row 1) and str (row 3)"
    """
    first: dict[str, dict[str, int]] = {}
    for n, row in enumerate(rows, start=1):
        for column, value in row.items():
            if value is not None:
                first.setdefault(column, {}).setdefault(_value_kind(value), n)
    for column, kinds in first.items():
        if _one_kind(set(kinds)) is None:
            shown = sorted(kinds.items(), key=lambda kv: kv[1])
            return f"column {column!r} mixes " + " and ".join(f"{k} (row {n})" for k, n in shown)
    return ""


def _kind(column: str, values: list[Any]) -> str:
    """The one kind of a column's values (ints among floats are floats; all null: "null")."""
    kinds = {_value_kind(v) for v in values if v is not None}
    kind = _one_kind(kinds)
    if kind is None:
        raise ValueError(f"column {column!r} mixes {', '.join(sorted(kinds))}")
    return kind


def _one_kind(kinds: set[str]) -> str | None:
    """The one column kind `kinds` of values make (ints among floats are floats; none: "null"),
    or None where they mix."""
    if kinds == {"int", "float"}:
        return "float"
    if len(kinds) > 1 or "other" in kinds:
        return None
    return next(iter(kinds), "null")


_KINDS = {bool: "bool", int: "int", float: "float", str: "str"}


def _value_kind(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "list" if all(isinstance(v, str) or v is None for v in value) else "other"
    return _KINDS.get(type(value), "other")


def _cell(value: Any) -> Any:
    """A CSV cell: null is an empty cell (as pandas writes it)."""
    return "" if value is None else value
