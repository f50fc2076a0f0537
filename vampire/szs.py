"""Prover stdout → `Status` and the SZS output block, with anchored regexes.

This module owns the reading of SZS result lines. Only lines that *start* with a comment
character and `SZS status` count: `% SZS status Theorem` (E 3.x, Vampire), `# SZS status …`
(E 2.x) and `%% SZS status ResourceOut` (E 3.5 when its CPU limit strikes). Exit codes are never
consulted. A missing status line or a word outside the table gives `Status.ERROR`, keeping the
raw line, so unrecognised output is a recorded result, not a guess.

>>> parse_szs("% SZS status Theorem for problem\\n").status
<Status.THEOREM: 'Theorem'>
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from refinery.prove.verdict import Status

# Each is matched at the start of a line that holds its words (`_line_starts`): scanning the
# whole output with a `^`-anchored pattern cost 89 µs per call on E's 6 kB answers (of about
# 1 ms of Python per ProofWriter question); finding the words first, 10 µs.
_STATUS_LINE = re.compile(r"[%#]+[ \t]*SZS status[ \t]+(\w+)[^\n]*")
_BLOCK_START = re.compile(r"[%#]+[ \t]*SZS output start[ \t]+(\w+)[^\n]*\n")
_BLOCK_END = re.compile(r"[%#]+[ \t]*SZS output end\b")
# An input formula quoted in a TPTP proof: `file('<stdin>', p3)` (E), `file(unknown,p3)` (Vampire
# with --output_axiom_names on, reading stdin). The name is the problem's own statement name.
_INPUT_NAME = re.compile(r"\bfile\(\s*(?:'[^']*'|\w+)\s*,\s*(\w+)\s*\)")

# SZS ontology words → our statuses. Subclasses of a success status map to it (e.g.
# Equivalent ⊂ Theorem); anything not listed is ERROR, never a guess.
SZS_WORDS: dict[str, Status] = {
    "Theorem": Status.THEOREM,
    "Equivalent": Status.THEOREM,
    "TautologousConclusion": Status.THEOREM,
    "WeakerConclusion": Status.THEOREM,
    "CounterSatisfiable": Status.COUNTER_SATISFIABLE,
    "Satisfiable": Status.SATISFIABLE,
    "FinitelySatisfiable": Status.SATISFIABLE,
    "Unsatisfiable": Status.UNSATISFIABLE,
    "ContradictoryAxioms": Status.CONTRADICTORY_AXIOMS,
    "Timeout": Status.TIMEOUT,
    "GaveUp": Status.GAVE_UP,
    "Incomplete": Status.GAVE_UP,
    "Inappropriate": Status.GAVE_UP,
    "Unknown": Status.GAVE_UP,
    "ResourceOut": Status.RESOURCE_OUT,
    "MemoryOut": Status.RESOURCE_OUT,
    "Error": Status.ERROR,
    "OSError": Status.ERROR,
    "InputError": Status.ERROR,
    "UsageError": Status.ERROR,
    "SyntaxError": Status.ERROR,
    "SemanticError": Status.ERROR,
    "TypeError": Status.ERROR,
}

_UNSAT = frozenset({Status.THEOREM, Status.UNSATISFIABLE, Status.CONTRADICTORY_AXIOMS})

# Progress reports some provers print around the result (E's `SZS status Started for …`).
_PROGRESS_WORDS = frozenset({"Started", "Ended"})


@dataclass(frozen=True, slots=True)
class SzsResult:
    """The parsed result: status, the status line as printed, and the first SZS output block."""

    status: Status
    raw: str  # the deciding status line, stripped; "" when there is none
    output_kind: str | None = None  # e.g. "Saturation", "FiniteModel", "CNFRefutation"
    output: str | None = None  # the block's lines between start and end

    @property
    def model(self) -> str | None:
        """The output block when it witnesses satisfiability (a model or a saturation)."""
        if self.status in (Status.SATISFIABLE, Status.COUNTER_SATISFIABLE):
            return self.output
        return None

    @property
    def inputs_used(self) -> tuple[str, ...] | None:
        """The input statements a proof (refutation) quotes, in order; None without a proof.

        >>> proof = "% SZS status Theorem\\n% SZS output start CNFRefutation\\n" \\
        ...     "fof(p2, axiom, q, file('problem.p', p2)).\\n" \\
        ...     "fof(goal, conjecture, q, file('problem.p', goal)).\\n% SZS output end CNFRefutation\\n"
        >>> parse_szs(proof).inputs_used
        ('p2', 'goal')
        """
        if self.status not in _UNSAT or self.output is None:
            return None
        return tuple(dict.fromkeys(_INPUT_NAME.findall(self.output)))


def parse_szs(stdout: str) -> SzsResult:
    """Read the SZS status and output block from a prover's stdout.

    Several status lines can appear (a scheduler's workers, progress reports). A single
    definitive status among them wins, since provers only claim those when sure; two
    different definitive statuses contradict each other and give ERROR; otherwise the last
    status line decides.

    Parameters:
        stdout: the prover's standard output, already decoded.

    Returns:
        An `SzsResult`; its status is ERROR when no line matches or the word is unknown.
    """
    kind, output = _output_block(stdout)
    lines = [(word, line) for word, line in _status_lines(stdout) if word not in _PROGRESS_WORDS]
    if not lines:
        return SzsResult(Status.ERROR, "", kind, output)
    known = [(SZS_WORDS[word], line) for word, line in lines if word in SZS_WORDS]
    if not known:
        return SzsResult(Status.ERROR, lines[-1][1], kind, output)
    definitive = {status: line for status, line in known if status.is_definitive}
    if len(definitive) > 1:
        return SzsResult(Status.ERROR, " / ".join(definitive.values()), kind, output)
    status, line = next(iter(definitive.items())) if definitive else known[-1]
    return SzsResult(status, line, kind, output)


def _status_lines(stdout: str) -> list[tuple[str, str]]:
    """Every status line: its word and the line, stripped."""
    found = (_STATUS_LINE.match(stdout, at) for at in _line_starts(stdout, "SZS status"))
    return [(m.group(1), m.group(0).strip()) for m in found if m is not None]


def _output_block(stdout: str) -> tuple[str | None, str | None]:
    """The first output block's kind and its lines: from a start line to the first end line
    after it (an empty block when the end line comes next)."""
    for at in _line_starts(stdout, "SZS output start"):
        start = _BLOCK_START.match(stdout, at)
        if start is None:
            continue
        body = start.end()
        for end in _line_starts(stdout, "SZS output end", body):
            if _BLOCK_END.match(stdout, end):
                return start.group(1), stdout[body:end]
        return None, None  # no end line after this start, so none after a later one either
    return None, None


def _line_starts(text: str, words: str, start: int = 0) -> Iterator[int]:
    """Where each line of `text` (from offset `start`, itself a line start) that holds `words`
    begins, in order; a line is counted once however often it holds them.

    >>> list(_line_starts("a\\nx SZS status y SZS status\\n% SZS status z", "SZS status"))
    [2, 28]
    """
    at = text.find(words, start)
    while at >= 0:
        yield max(start, text.rfind("\n", start, at) + 1)
        end = text.find("\n", at)
        if end < 0:
            return
        at = text.find(words, end)
