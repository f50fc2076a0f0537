"""A content-addressed JSON store on SQLite, shared by the product's caches.

One table of `key → JSON text`. WAL mode lets several worker processes read and write one file;
`prepare()` must run once (in the parent) before workers open it, because switching the journal
mode takes an exclusive lock that SQLite's busy timeout does not cover. `path=None` disables the
store: every `get` misses and `put` does nothing. One connection per store, guarded by a lock, so
a store may also be shared by threads (the LLM client's callers may use threads).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any


class JsonStore:
    """`get`/`put` JSON values by string key in table `table` of the SQLite file `path`."""

    def __init__(self, path: Path | None, table: str = "entries") -> None:
        if not table.isidentifier():
            raise ValueError(f"table name must be an identifier, got {table!r}")
        self.path = path
        self.table = table
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def prepare(self) -> None:
        """Create the file, the table and WAL mode (call once, before workers start)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
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
        if self._conn is None:
            self.prepare()  # idempotent; cheap once the table exists
            conn = sqlite3.connect(
                self.path, timeout=60, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA synchronous=NORMAL")
            self._conn = conn
        return self._conn

    def get(self, key: str) -> Any | None:
        with self._lock:
            conn = self._connect()
            row = (
                conn.execute(f"SELECT value FROM {self.table} WHERE key = ?", (key,)).fetchone()
                if conn
                else None
            )
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        text = json.dumps(value, ensure_ascii=False, default=str)
        with self._lock:
            conn = self._connect()
            if conn is not None:
                conn.execute(
                    f"INSERT OR REPLACE INTO {self.table} (key, value) VALUES (?, ?)", (key, text)
                )

    def put_many(self, entries: Iterable[tuple[str, Any]]) -> None:
        """Store several values in one transaction (one commit instead of one per value)."""
        rows = [(key, json.dumps(value, ensure_ascii=False, default=str)) for key, value in entries]
        with self._lock:
            conn = self._connect()
            if conn is not None and rows:
                with conn:  # a transaction: BEGIN … COMMIT
                    conn.execute("BEGIN")
                    conn.executemany(
                        f"INSERT OR REPLACE INTO {self.table} (key, value) VALUES (?, ?)", rows
                    )

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
