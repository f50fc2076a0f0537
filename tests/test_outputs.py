"""The result files: `write_table` reads back as it was given, in both formats; every write is
atomic and synced to disk."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from refinery.outputs import atomic_write_text, write_table

ROWS = [
    {"id": "a", "n": 1, "seconds": 0.25, "cached": True, "issues": 'x\ny, "z"', "gold": None},
    {"id": "b", "n": 2, "seconds": 1.5, "cached": False, "issues": "", "gold": "Täuschung"},
    {"id": "c", "n": 3, "seconds": 0.0, "cached": True, "issues": "=1+2", "extra": "late"},
]


def test_an_empty_table_and_an_all_null_column(tmp_path: Path) -> None:
    parquet = write_table([], tmp_path, "empty").parquet
    assert pq.read_table(parquet).num_rows == 0
    parquet = write_table([{"id": "a", "x": None}, {"id": "b", "x": 2}], tmp_path, "nulls").parquet
    assert pq.read_table(parquet).to_pylist() == [{"id": "a", "x": None}, {"id": "b", "x": 2}]


def test_parquet_and_csv_hold_every_row_and_column(tmp_path: Path) -> None:
    written = write_table(ROWS, tmp_path / "out", "verdicts")
    parquet, csv_path = written.parquet, written.csv
    table = pq.read_table(parquet)
    assert table.column_names == ["id", "n", "seconds", "cached", "issues", "gold", "extra"]
    assert table.to_pylist() == [
        {**row, **{k: row.get(k) for k in ("gold", "extra")}} for row in ROWS
    ]
    assert str(table.schema.field("n").type) == "int64"
    assert str(table.schema.field("cached").type) == "bool"
    with csv_path.open(encoding="utf-8", newline="") as fh:
        read = list(csv.DictReader(fh))
    assert [r["issues"] for r in read] == [r["issues"] for r in ROWS]  # newlines, quotes kept
    assert [r["gold"] for r in read] == ["", "Täuschung", ""]  # null is an empty cell
    assert [r["cached"] for r in read] == ["True", "False", "True"]
    # pandas reads both as the same frame (what downstream stages and notebooks do)
    frame = pd.read_parquet(parquet)
    again = pd.read_csv(csv_path, keep_default_na=False)
    assert list(frame["seconds"]) == list(again["seconds"]) == [0.25, 1.5, 0.0]
    assert list(frame["n"]) == list(again["n"]) == [1, 2, 3]


@pytest.mark.parametrize(
    "volatile", [("cached",), ("id", "n", "seconds", "cached", "issues", "gold", "extra"), ("x",)]
)
def test_volatile_columns_are_written_like_the_others(
    tmp_path: Path, volatile: tuple[str, ...]
) -> None:
    # a volatile column is left out of the rows' digest only, never out of the files
    plain = write_table(ROWS, tmp_path / "plain", "verdicts")
    marked = write_table(ROWS, tmp_path / "marked", "verdicts", volatile=volatile)
    assert pq.read_table(marked.parquet).equals(pq.read_table(plain.parquet))
    assert marked.csv.read_bytes() == plain.csv.read_bytes()


def test_a_failed_write_leaves_the_previous_files(tmp_path: Path) -> None:
    parquet = write_table(ROWS[:1], tmp_path, "verdicts").parquet
    before = parquet.read_bytes()
    with pytest.raises(ValueError, match="column 'n' mixes int, str"):
        write_table([{"id": "a", "n": 1}, {"id": "b", "n": "not a number"}], tmp_path, "verdicts")
    assert parquet.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".verdicts.digest",
        "verdicts.csv",
        "verdicts.parquet",
    ]


def test_unchanged_rows_are_not_written_again(tmp_path: Path) -> None:
    first = write_table(ROWS, tmp_path, "verdicts", volatile=("cached",))
    assert first.written
    stamp = (first.parquet.stat().st_mtime_ns, first.csv.stat().st_mtime_ns)
    flipped = [{**row, "cached": not row["cached"]} for row in ROWS]  # only a volatile column
    assert not write_table(flipped, tmp_path, "verdicts", volatile=("cached",)).written
    assert (first.parquet.stat().st_mtime_ns, first.csv.stat().st_mtime_ns) == stamp
    changed = [{**ROWS[0], "seconds": 9.0}, *ROWS[1:]]
    assert write_table(changed, tmp_path, "verdicts", volatile=("cached",)).written
    assert pq.read_table(first.parquet).column("seconds").to_pylist()[0] == 9.0
    first.csv.unlink()  # a file gone (or edited) is written again
    assert write_table(changed, tmp_path, "verdicts", volatile=("cached",)).written
    assert first.csv.exists()


def test_the_data_is_synced_before_the_rename_and_the_rename_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        events.append(("replace", str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    target = tmp_path / "queue.csv"
    atomic_write_text(target, "id\r\n")
    assert [kind for kind, _ in events] == ["fsync", "replace", "fsync"]
    assert events[0][1].startswith(str(tmp_path / ".queue.csv."))  # the temp file's data
    assert events[2][1] == str(tmp_path)  # the folder's entry: the rename itself
    assert target.read_bytes() == b"id\r\n"


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    private = tmp_path / "review.csv"
    atomic_write_text(private, "id\n")
    private.chmod(0o600)  # its owner keeps the queue to themselves
    atomic_write_text(private, "id\nd/s/1\n")
    assert private.stat().st_mode & 0o777 == 0o600 and private.read_text() == "id\nd/s/1\n"
    fresh = tmp_path / "new.csv"
    atomic_write_text(fresh, "id\n")
    mask = os.umask(0)
    os.umask(mask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask  # a new file: shared as usual
