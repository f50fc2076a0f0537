"""Content-addressed cache of prover verdicts, so re-running on unchanged data costs almost nothing.

The key is a sha256 over everything that determines an answer: the prover's name and version,
the budget, and the canonical text of the axioms and conjecture. A verdict's evidence (its core,
its countermodel) is part of the stored entry, so a warm run explains as fast as it decides. Definitive answers and budget
exhaustion (timeouts under the same budget recur) are stored; ERROR verdicts are not, since
they may be transient. Storage is `refinery.store.JsonStore` (SQLite, shared by workers).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import fields, replace
from pathlib import Path

from refinery.logic.printer import to_text
from refinery.logic.syntax import Formula
from refinery.prove.countermodel import Countermodel
from refinery.prove.verdict import Budget, Problem, Status, Verdict
from refinery.store import JsonStore


def problem_key(prover: str, version: str, budget: Budget, problem: Problem) -> str:
    """Stable hash of one prover question."""
    return problem_keys(prover, version, budget, problem.axioms, [problem.conjecture])[0]


def problem_keys(
    prover: str,
    version: str,
    budget: Budget,
    axioms: Sequence[Formula],
    conjectures: Sequence[Formula | None],
) -> list[str]:
    """`problem_key` of each question over the same axioms, which are printed and hashed once."""
    payload = {
        "prover": prover,
        "version": version,
        "seconds": budget.seconds,
        "rlimit": budget.rlimit,
        "axioms": [to_text(a) for a in axioms],
    }
    # The hash of json.dumps(payload | {"conjecture": …}), with the shared prefix hashed once.
    prefix = hashlib.sha256(json.dumps(payload, ensure_ascii=False)[:-1].encode())
    prefix.update(b', "conjecture": ')
    keys = []
    for c in conjectures:
        h = prefix.copy()
        h.update(json.dumps(None if c is None else to_text(c), ensure_ascii=False).encode())
        h.update(b"}")
        keys.append(h.hexdigest())
    return keys


#: The verdict cache's table in its SQLite file.
TABLE = "verdicts"


class VerdictCache:
    """Verdicts by `problem_key`; `path=None` disables caching. ERROR verdicts are not stored.

    `store` replaces the file store, e.g. a worker's read-only view (`refinery.store.worker_view`)
    whose new verdicts go back to the driver as `take_recorded()` entries.
    """

    def __init__(self, path: Path | None, *, store: JsonStore | None = None) -> None:
        # a question keeps its first answer and its row: a streamed check plans a chunk while
        # the one before it is still proving (`refinery.check.stream`), so both may ask a
        # question, and a chunk planned later must find it where it found it then
        self._store = store if store is not None else JsonStore(path, TABLE, keep_first=True)
        self.path = self._store.path

    @property
    def hits(self) -> int:
        return self._store.hits

    @property
    def misses(self) -> int:
        return self._store.misses

    def prepare(self) -> None:
        """Create the file before worker processes open it (see `refinery.store`)."""
        self._store.prepare()

    def last_row(self) -> int:
        """The store's newest row: a worker view's `upto` (`refinery.store.worker_view`)."""
        return self._store.last_row()

    def get(self, key: str) -> Verdict | None:
        data = self._store.get(key)
        if data is None:
            return None
        data["status"] = Status(data["status"])
        if data.get("core") is not None:
            data["core"] = tuple(data["core"])
        if data.get("countermodel") is not None:
            data["countermodel"] = Countermodel.from_dict(data["countermodel"])
        return replace(Verdict(**data), cached=True)

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.status is not Status.ERROR:
            self._store.put(key, _stored(verdict))

    def put_many(self, entries: Iterable[tuple[str, Verdict]]) -> None:
        """Store several verdicts in one transaction (ERROR verdicts are skipped)."""
        self._store.put_many(
            (key, _stored(v)) for key, v in entries if v.status is not Status.ERROR
        )

    def take_recorded(self) -> list[tuple[str, str]]:
        """New verdicts of a read-only view, as (key, JSON text) for the driver's `put_raw`,
        then forgotten by the view (`JsonStore.take_recorded`)."""
        return self._store.take_recorded()

    def put_raw(self, entries: list[tuple[str, str]]) -> None:
        """Store verdicts a worker recorded (already without ERROR verdicts)."""
        self._store.put_raw(entries)

    def close(self) -> None:
        self._store.close()


def _stored(verdict: Verdict) -> dict[str, object]:
    data = {f.name: getattr(verdict, f.name) for f in fields(verdict) if f.name != "cached"}
    if verdict.countermodel is not None:
        data["countermodel"] = verdict.countermodel.to_dict()
    return data
