"""Writing result files atomically: a temp file in the target folder, then a rename.

A crash mid-write leaves the previous file (or none), never half of a new one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def atomic_write(path: Path, write: Callable[[Path], None]) -> Path:
    """Call `write(tmp)` on a temp path next to `path`, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files; outputs are shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically."""

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding=encoding)

    return atomic_write(path, write)


def write_table(rows: Sequence[dict[str, Any]], out_dir: Path, stem: str) -> tuple[Path, Path]:
    """Write rows as `<stem>.parquet` and `<stem>.csv` (UTF-8) in `out_dir`, atomically."""
    import pandas as pd  # not at module level: the review commands must start fast

    frame = pd.DataFrame(list(rows))
    parquet = atomic_write(
        out_dir / f"{stem}.parquet", lambda tmp: frame.to_parquet(tmp, index=False)
    )
    csv = atomic_write(out_dir / f"{stem}.csv", lambda tmp: frame.to_csv(tmp, index=False))
    return parquet, csv
