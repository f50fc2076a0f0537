"""A content-addressed JSON store on SQLite, shared by the product's caches.

One table of `key → JSON text`. WAL mode lets several worker processes read and write one file;
`prepare()` must run once (in the parent) before workers open it, because switching the journal
mode takes an exclusive lock that SQLite's busy timeout does not cover. `path=None` disables the
store: every `get` misses and `put` does nothing. One connection per store, guarded by a lock, so
a store may also be shared by threads (the LLM client's callers may use threads).

A `read_only` store is a worker's view of the driver's cache: it reads the file when it exists
(never creating it) and keeps what is `put` in memory, so the driver, the only writer, can store
`recorded()` entries with `put_raw`. `worker_view` opens one only on the driver's machine: SQLite
is never shared across machines.

A cache is never worth a run: when the file cannot be created or written (a full disk, SQLite's
"database or disk is full", a read-only folder) the store warns once (`CacheWriteWarning`) and
stops writing; the run goes on, its results simply not cached.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any


class CacheWriteWarning(UserWarning):
    """A cache file could not be written: the run goes on without caching."""


# What a failed cache write raises: SQLite's own errors (full, locked, read-only) and the OS's.
_WRITE_ERRORS = (sqlite3.DatabaseError, OSError)  # OperationalError (full, locked) is one


class JsonStore:
    """`get`/`put` JSON values by string key in table `table` of the SQLite file `path`."""

    def __init__(
        self,
        path: Path | None,
        table: str = "entries",
        *,
        read_only: bool = False,
        upto: int | None = None,
        keep_first: bool = False,
    ) -> None:
        if not table.isidentifier():
            raise ValueError(f"table name must be an identifier, got {table!r}")
        self.path = path
        self.table = table
        self.read_only = read_only
        self.upto = upto  # read only entries up to this row (`last_row`, `worker_view`)
        # a key written again keeps its first value and its row, unless that value is damaged
        self.keep_first = keep_first
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._recorded: dict[str, str] = {}  # read_only: JSON text put here, for the driver
        self.hits = 0
        self.misses = 0
        self.writes_off = False  # set, with one warning, when a write failed

    def prepare(self) -> None:
        """Create the file, the table and WAL mode (call once, before workers start)."""
        if self.path is None or self.read_only or self.writes_off:
            return
        try:
            self._create(self.path)
        except _WRITE_ERRORS as exc:
            self._stop_writing(exc)

    def _create(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=60, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({self.table})")]
            if columns and columns != ["key", "value"]:
                # a cache written by an older layout: it is only a cache, so start it afresh
                conn.execute(f"DROP TABLE {self.table}")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self.table} (key TEXT PRIMARY KEY, value TEXT)"
            )
        finally:
            conn.close()

    def _connect(self) -> sqlite3.Connection | None:
        if self.path is None:
            return None
        if self._conn is None and self.read_only:
            if not self.path.is_file():
                return None
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            self._conn = sqlite3.connect(uri, uri=True, timeout=60, check_same_thread=False)
        if self._conn is None:
            self.prepare()  # idempotent; cheap once the table exists
            if self.writes_off:  # the file could not be made: nothing to read either
                return None
            try:
                conn = sqlite3.connect(
                    self.path, timeout=60, isolation_level=None, check_same_thread=False
                )
                conn.execute("PRAGMA synchronous=NORMAL")
            except _WRITE_ERRORS as exc:
                self._stop_writing(exc)
                return None
            self._conn = conn
        return self._conn

    def get(self, key: str) -> Any | None:
        with self._lock:
            text = self._recorded.get(key)
            if text is None:
                text = self._select(key)
        value = _json(text)
        if value is _DAMAGED:
            with self._lock:
                self._forget(key)
        if text is None or value is _DAMAGED:
            self.misses += 1
            return None
        self.hits += 1
        return value

    def _select(self, key: str) -> str | None:
        conn = self._connect()
        if conn is None:
            return None
        query = f"SELECT value FROM {self.table} WHERE key = ?"
        args: tuple[object, ...] = (key,)
        if self.upto is not None:
            query, args = query + " AND rowid <= ?", (key, self.upto)
        try:
            row = conn.execute(query, args).fetchone()
        except sqlite3.OperationalError as err:
            if "decode" in str(err):  # a value that is not UTF-8: damaged, so a miss
                self._forget(key)
                return None
            if not self.read_only:
                raise
            return None  # the driver has not created this table yet: nothing cached
        return None if row is None else str(row[0])

    def _forget(self, key: str) -> None:
        """Drop a damaged entry (not UTF-8, not JSON), so that the next run computes and stores
        it afresh instead of meeting it again; a cache that cannot be written keeps it. The
        caller holds the lock."""
        self._recorded.pop(key, None)
        conn = self._connect()
        if conn is None or self.read_only:
            return
        try:
            conn.execute(f"DELETE FROM {self.table} WHERE key = ?", (key,))
            conn.commit()
        except _WRITE_ERRORS:
            pass

    def last_row(self) -> int:
        """The number of the newest row written (0 for none): a view made with it as `upto`
        holds what the store holds now, not what is written after. SQLite numbers each new
        row past the highest, and a key written again is a new row.

        Read on a connection of its own, closed at once: the driver asks this before it forks
        its workers, and a child must not inherit an open connection to a file it then opens
        itself (SQLite's locks and shared memory are per process)."""
        if self.path is None or not self.path.is_file():
            return 0
        conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=60)
        try:
            (last,) = conn.execute(f"SELECT max(rowid) FROM {self.table}").fetchone()
        except sqlite3.OperationalError:
            return 0  # no table yet
        finally:
            conn.close()
        return int(last or 0)

    def put(self, key: str, value: Any) -> None:
        self.put_many([(key, value)])

    def put_many(self, entries: Iterable[tuple[str, Any]]) -> None:
        """Store several values in one transaction (one commit instead of one per value)."""
        self.put_raw(
            (key, json.dumps(value, ensure_ascii=False, default=str)) for key, value in entries
        )

    def recorded(self) -> list[tuple[str, str]]:
        """A read-only store's new entries as (key, JSON text), for the driver's `put_raw`."""
        with self._lock:
            return list(self._recorded.items())

    def take_recorded(self) -> list[tuple[str, str]]:
        """`recorded()`, then forgotten: what is read next comes from the file alone."""
        with self._lock:
            taken, self._recorded = list(self._recorded.items()), {}
        return taken

    def put_raw(self, entries: Iterable[tuple[str, str]]) -> None:
        """Store (key, JSON text) pairs in one transaction; a read-only store keeps them in memory.

        A key the store already holds gets the new value as a new row (see `last_row`); in a
        `keep_first` store it keeps its value and its row, unless that value is no JSON (a
        damaged entry a worker's view met and could not drop is mended in place)."""
        if self.path is None and not self.read_only:
            return  # no store: the values are not even encoded (`put_many`'s are lazy)
        rows = list(entries)
        if self.keep_first:
            sql = (
                f"INSERT INTO {self.table} (key, value) VALUES (?, ?) ON CONFLICT(key) "
                f"DO UPDATE SET value = excluded.value WHERE NOT json_valid({self.table}.value)"
            )
        else:
            sql = f"INSERT OR REPLACE INTO {self.table} (key, value) VALUES (?, ?)"
        with self._lock:
            if self.read_only:
                self._recorded.update(rows)
                return
            if self.writes_off or not rows:
                return
            try:
                conn = self._connect()
                if conn is not None:
                    with conn:  # a transaction: BEGIN … COMMIT (ROLLBACK when it fails)
                        conn.execute("BEGIN")
                        conn.executemany(sql, rows)
            except _WRITE_ERRORS as exc:
                self._stop_writing(exc)

    def _stop_writing(self, exc: BaseException) -> None:
        """Warn once and write no more; reads of what the file already holds go on."""
        self.writes_off = True
        warnings.warn(
            f"cache {self.path}: cannot write ({exc}); going on without caching",
            CacheWriteWarning,
            stacklevel=3,
        )

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


#: What `_json` returns for a value that is not JSON (None is a value JSON can hold).
_DAMAGED = object()


def _json(text: str | None) -> Any:
    """`text` read as JSON (None for None), or `_DAMAGED` when it is not JSON."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return _DAMAGED


def this_host() -> str:
    """This machine's name, as `worker_view` compares it."""
    return socket.gethostname()


def worker_view(path: Path | None, table: str, host: str, upto: int | None = None) -> JsonStore:
    """A worker's read-only view of the driver's cache: the file only on the driver's `host`.

    A worker elsewhere gets an empty view (it recomputes), so SQLite is never read across a
    network filesystem, and never written but by the driver. With `upto` (the driver's
    `last_row` when it planned the run) the view holds only what the cache held then: the
    driver stores each batch's results as they come, and a question two stories share would
    otherwise be answered from the cache or proved again depending on which batch finished
    first, so the same run could report different rows as cached.
    """
    return JsonStore(path if host == this_host() else None, table, read_only=True, upto=upto)
