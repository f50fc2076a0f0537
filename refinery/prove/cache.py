"""Content-addressed cache of prover verdicts, so re-running on unchanged data costs almost nothing.

The key is a sha256 over everything that determines an answer: the prover's name and version,
the budget, and the canonical text of the axioms and conjecture. Definitive answers and budget
exhaustion (timeouts under the same budget recur) are stored; ERROR verdicts are not, since
they may be transient. SQLite in WAL mode lets several worker processes share one file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, replace
from pathlib import Path

from refinery.logic.printer import to_text
from refinery.prove.verdict import Budget, Problem, Status, Verdict


def problem_key(prover: str, version: str, budget: Budget, problem: Problem) -> str:
    """Stable hash of one prover question."""
    payload = {
        "prover": prover,
        "version": version,
        "seconds": budget.seconds,
        "rlimit": budget.rlimit,
        "axioms": [to_text(a) for a in problem.axioms],
        "conjecture": None if problem.conjecture is None else to_text(problem.conjecture),
    }
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


class VerdictCache:
    """A SQLite table `verdicts(key TEXT PRIMARY KEY, verdict TEXT)`; `path=None` disables it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0

    def prepare(self) -> None:
        """Create the file, table and WAL mode once, before worker processes open it.

        Switching the journal mode takes an exclusive lock that SQLite's busy timeout does not
        cover, so concurrent first opens would fail with "database is locked".
        """
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT)")
        finally:
            conn.close()

    def _connect(self) -> sqlite3.Connection | None:
        if self.path is None:
            return None
        if self._conn is None:
            if not self.path.exists():
                self.prepare()
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._conn = conn
        return self._conn

    def get(self, key: str) -> Verdict | None:
        conn = self._connect()
        row = (
            conn.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
            if conn
            else None
        )
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        data = json.loads(row[0])
        data["status"] = Status(data["status"])
        return replace(Verdict(**data), cached=True)

    def put(self, key: str, verdict: Verdict) -> None:
        conn = self._connect()
        if conn is None or verdict.status is Status.ERROR:
            return
        data = asdict(verdict)
        data.pop("cached")
        conn.execute(
            "INSERT OR REPLACE INTO verdicts (key, verdict) VALUES (?, ?)",
            (key, json.dumps(data, ensure_ascii=False)),
        )

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
