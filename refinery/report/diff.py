"""What changed inside a formula, for the run report: token-level segments and a unified diff.

An edit replaces one line of FOL by another; a line diff only says "this line changed". Here the
two lines are split into tokens (names, runs of white space, single symbols) and compared with
`difflib.SequenceMatcher`, so the report can mark the one token that changed (``v`` → ``∨``).
Stdlib only; the templates turn segments into ``<del>``/``<ins>`` (HTML) or a short list
(Markdown).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

SegmentKind = Literal["same", "del", "ins"]

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
#: Below this token similarity (difflib's ratio), a line is shown as rewritten, not edited.
REWRITE_BELOW = 0.4


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text that both lines share (`same`), or only the old (`del`) or new (`ins`)."""

    kind: SegmentKind
    text: str


def tokens(text: str) -> list[str]:
    """Names, runs of white space and single symbols, in order; joined they give `text` back.

    >>> tokens("∀x (Dog(x) → Bark(x))")
    ['∀', 'x', ' ', '(', 'Dog', '(', 'x', ')', ' ', '→', ' ', 'Bark', '(', 'x', ')', ')']
    """
    return _TOKEN.findall(text)


def inline_diff(before: str, after: str) -> tuple[Segment, ...]:
    """`before` → `after` as segments; neighbours of one kind are merged.

    >>> [(s.kind, s.text) for s in inline_diff("Bark(rex) v Cat(rex)", "Bark(rex) ∨ Cat(rex)")]
    [('same', 'Bark(rex) '), ('del', 'v'), ('ins', '∨'), ('same', ' Cat(rex)')]
    >>> [(s.kind, s.text) for s in inline_diff("∀x (Dog(x) → Bark(x))", "P(a) & <b>")]
    [('del', '∀x (Dog(x) → Bark(x))'), ('ins', 'P(a) & <b>')]
    """
    old, new = tokens(before), tokens(after)
    # autojunk off: FOL lines repeat "(", "x" and " " far more than prose, and they still matter
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    if matcher.ratio() < REWRITE_BELOW:
        # little in common: marking the shared brackets and spaces would only hide the change
        return tuple(s for s in (Segment("del", before), Segment("ins", after)) if s.text)
    out: list[Segment] = []

    def add(kind: SegmentKind, text: str) -> None:
        if not text:
            return
        if out and out[-1].kind == kind:
            out[-1] = Segment(kind, out[-1].text + text)
        else:
            out.append(Segment(kind, text))

    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            add("same", "".join(old[i1:i2]))
        else:
            add("del", "".join(old[i1:i2]))
            add("ins", "".join(new[j1:j2]))
    return tuple(out)


def changes(segments: tuple[Segment, ...]) -> list[tuple[str, str]]:
    """The (old, new) text of each change, in order; "" where text was only added or removed.

    >>> changes(inline_diff("∀x (Dog(x) → Bark(x)", "∀x (Dog(x) → Bark(x))"))
    [('', ')')]
    """
    out: list[tuple[str, str]] = []
    pending: tuple[str, str] | None = None
    for s in segments:
        if s.kind == "same":
            if pending:
                out.append(pending)
            pending = None
            continue
        old, new = pending or ("", "")
        pending = (old + s.text, new) if s.kind == "del" else (old, new + s.text)
    if pending:
        out.append(pending)
    return out


def unified_diff(before: str, after: str, where: str) -> list[str]:
    """A unified diff of the two texts, file names ``a/<where>`` and ``b/<where>``.

    >>> unified_diff("P(a)", "P(b)", "conclusion")
    ['--- a/conclusion', '+++ b/conclusion', '@@ -1 +1 @@', '-P(a)', '+P(b)']
    """
    return list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile=f"a/{where}",
            tofile=f"b/{where}",
            lineterm="",
        )
    )
