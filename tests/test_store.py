"""The SQLite JSON store behind the caches."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from refinery.store import JsonStore


def test_round_trip_and_counts(tmp_path: Path) -> None:
    store = JsonStore(tmp_path / "c.sqlite", "things")
    assert store.get("k") is None
    store.put("k", {"a": [1, "∀x"]})
    assert store.get("k") == {"a": [1, "∀x"]}
    assert (store.hits, store.misses) == (1, 1)
    assert JsonStore(tmp_path / "c.sqlite", "things").get("k") == {"a": [1, "∀x"]}  # persisted


def test_disabled_store_keeps_nothing() -> None:
    store = JsonStore(None)
    store.put("k", 1)
    assert store.get("k") is None

    def entries() -> Iterator[tuple[str, int]]:
        raise AssertionError("a store without a file encodes nothing")
        yield "k", 1

    store.put_many(entries())  # a run without a cache spends nothing on it

    class Unwritable:
        def __str__(self) -> str:
            raise AssertionError("a store without a file encodes nothing")

    store.put("k", Unwritable())


def test_a_table_from_an_older_layout_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, verdict TEXT)")
    conn.execute("INSERT INTO verdicts VALUES ('k', '{}')")
    conn.commit()
    conn.close()
    store = JsonStore(path, "verdicts")
    store.prepare()
    assert store.get("k") is None
    store.put("k", 2)
    assert store.get("k") == 2


def test_table_names_must_be_identifiers() -> None:
    with pytest.raises(ValueError, match="identifier"):
        JsonStore(None, "x; DROP TABLE y")


def test_put_many_stores_everything_in_one_go(tmp_path: Path) -> None:
    store = JsonStore(tmp_path / "c.sqlite", "things")
    store.put_many([("a", 1), ("b", {"x": "∃"})])
    store.put_many([])
    assert (store.get("a"), store.get("b")) == (1, {"x": "∃"})


@pytest.mark.parametrize(
    "damage",
    [b"\xff\xfe not UTF-8", b'{"cut off'],  # bytes no decoder reads; text no JSON reads
)
def test_a_damaged_entry_is_a_miss_and_is_dropped_so_later_runs_go_on(
    tmp_path: Path, damage: bytes
) -> None:
    path = tmp_path / "c.sqlite"
    store = JsonStore(path, "things")
    store.prepare()
    store.put("good", 1)
    store.put("bad", 2)
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE things SET value = CAST(? AS TEXT) WHERE key = 'bad'", (damage,))
    conn.commit()
    conn.close()
    again = JsonStore(path, "things")
    assert again.get("bad") is None and again.get("good") == 1  # a miss, not a crash
    assert (again.hits, again.misses) == (1, 1)
    again.close()
    left = sqlite3.connect(path).execute("SELECT key FROM things ORDER BY key").fetchall()
    assert left == [("good",)]  # dropped: the next run stores it afresh


@pytest.mark.parametrize("damage", [b"\xff\xfe not UTF-8", b'{"cut off'])
def test_a_keep_first_store_mends_a_damaged_entry_a_view_could_not_drop(
    tmp_path: Path, damage: bytes
) -> None:
    path = tmp_path / "c.sqlite"
    driver = JsonStore(path, "things", keep_first=True)
    driver.put_many([("bad", 2), ("good", 1)])
    driver.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE things SET value = CAST(? AS TEXT) WHERE key = 'bad'", (damage,))
    view = JsonStore(path, "things", read_only=True)
    assert view.get("bad") is None  # a miss; a view writes nothing, so the entry stays
    view.close()
    driver.put_raw([("bad", "3"), ("good", "4")])  # what the worker proved, stored by the driver
    rows = sqlite3.connect(path).execute("SELECT rowid, key, value FROM things ORDER BY key")
    assert rows.fetchall() == [(1, "bad", "3"), (2, "good", "1")]  # mended in place; kept first
