"""`FolSyntaxError`: where a formula fails to parse, what was found and what was expected.

It is a `RefineryError` so callers may raise it, but the checker records it as data: one
unparseable formula never stops a batch. `render()` gives the user-facing form:

    premises[3]:1:17: unexpected '∧'; expected one of: ')', ','
      ∀x (P(x) ∧ Q(x ∧ R(x)))
                     ^
"""

from __future__ import annotations

from dataclasses import dataclass

from refinery.errors import RefineryError


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """Plain-data description of a parse failure (picklable, comparable)."""

    field: str
    line: int
    column: int  # 1-based, in characters
    token: str  # the offending text, or "end of formula"
    expected: tuple[str, ...]
    kind: str  # unbalanced_parentheses | unknown_symbol | unexpected_token | unexpected_end | empty
    source: str

    @property
    def message(self) -> str:
        found = self.token if self.token == "end of formula" else repr(self.token)
        text = f"unexpected {found}"
        if self.kind == "unknown_symbol":
            text = f"unknown symbol {self.token!r}"
        elif self.kind == "empty":
            text = "empty formula"
        if self.expected:
            text += "; expected one of: " + ", ".join(self.expected)
        if self.kind == "unbalanced_parentheses":
            opened, closed = self.source.count("("), self.source.count(")")
            text += f" (unbalanced parentheses: {opened} '(' vs {closed} ')')"
        return text

    def caret(self) -> str:
        """The source line and a caret under the offending column."""
        lines = self.source.split("\n") or [""]
        line = lines[min(self.line, len(lines)) - 1]
        return f"  {line}\n  {' ' * (self.column - 1)}^"

    def render(self) -> str:
        return f"{self.field}:{self.line}:{self.column}: {self.message}\n{self.caret()}"


class FolSyntaxError(RefineryError, ValueError):
    """Raised by `parse_formula` when the text is not a formula of the FOLIO notation."""

    def __init__(self, problem: SyntaxProblem) -> None:
        super().__init__(problem.render())
        self.problem = problem
