"""The rows the tool itself wrote: a keyed seal over a row's tool-owned cells.

`row_hash` catches a cell edited by mistake, but anyone can recompute it. A row whose proposal
differs from what the current run proposes (a decision kept from an earlier run) is trusted only
when its `row_seal` is an HMAC of its tool-owned cells under the key in the state folder
(``<state>/queue.key``, made on first use, readable by its owner only): a proposal edited by
hand, its hash recomputed, fails the seal, and the row is compared with the run's own row.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from refinery.review.queue import tool_text

KEY_FILE = "queue.key"


def queue_key(state: str | os.PathLike[str], *, create: bool = False) -> bytes | None:
    """The state folder's sealing key; made (0600) when `create` and there is none, else None."""
    path = Path(state) / KEY_FILE
    try:
        return path.read_bytes()
    except FileNotFoundError:
        if not create:
            return None
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: theirs is the key
        return path.read_bytes()
    try:
        os.write(fd, secrets.token_bytes(32))
        os.fsync(fd)
    finally:
        os.close(fd)
    return path.read_bytes()


def seal(cells: Mapping[str, str], key: bytes) -> str:
    """The seal of a row's tool-owned cells under `key`."""
    return hmac.new(key, tool_text(cells).encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def sealed(cells: Mapping[str, str], key: bytes | None) -> bool:
    """Whether the row's `row_seal` is the tool's seal of its tool-owned cells."""
    stored = cells.get("row_seal", "").strip()
    return key is not None and bool(stored) and hmac.compare_digest(stored, seal(cells, key))
