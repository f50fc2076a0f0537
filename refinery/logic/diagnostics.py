"""`Issue`: one finding about one item's annotations, as plain data.

Lint rules, syntax errors and loader problems all become `Issue` records that travel with the
item into reports and the review queue; they are never raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from refinery.logic.syntax import Span

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Issue:
    """A finding: `where` is the field (`premises[3]`, `conclusion`, `story`), `kind` a rule name."""

    kind: str
    severity: Severity
    message: str
    where: str = ""
    item_id: str = ""
    span: Span | None = field(default=None, compare=False)

    def render(self) -> str:
        loc = self.where
        if self.span is not None:
            loc += f":{self.span.line}:{self.span.column}"
        return f"{loc}: {self.severity}: {self.kind}: {self.message}"
