"""`balance_parentheses`: insert or delete one parenthesis per unmatched one.

Where the partner goes: at the end, where the parser stopped, after a leading ¬, or splitting a
name glued to its argument (`Dogx)`, `CityInlyon, spain)`) where the item's names or the
sentence's words say where. Results are ranked by how an annotator writes: needless
parentheses, a variable left outside its quantifier's group and unparenthesised ∧/∨ mixtures
are unlikely (`redundant_pairs`, `scope_leaks`, `mixed_precedence`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence

from refinery.agents.models import Edit, ErrorClass, ItemContext, Where
from refinery.agents.reading.spelling import Words
from refinery.agents.reading.words import CAMEL_WORDS
from refinery.agents.repairs.edits import (
    BINARY,
    MAX_CANDIDATES,
    Candidate,
    Fix,
    RuleTag,
    TextEdit,
    broken_fields,
    edits_for,
    error_position,
    free_variable_count,
    grouping,
    is_name_char,
    joint,
    paren_chars,
    paren_pairs,
    shape,
    splice,
)
from refinery.agents.repairs.located import item_vocabulary, sentence_words
from refinery.logic.analysis import subformulas
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import parses, try_parse
from refinery.logic.syntax import Exists, Forall, Formula, Implies, Not, Pred

TAG = RuleTag("balance_parentheses", ErrorClass.UNBALANCED_PARENTHESES)


def unmatched_parens(text: str) -> tuple[list[int], list[int]]:
    """Indices of the ')' that close nothing and of the '(' never closed (greedy matching).

    Parentheses inside quoted strings do not count.

    >>> unmatched_parens("P(a)) ∧ (Q(b)")
    ([4], [8])
    >>> unmatched_parens('P("(")')
    ([], [])
    """
    stack: list[int] = []
    extra: list[int] = []
    for i, ch in paren_chars(text):
        if ch == "(":
            stack.append(i)
        elif stack:
            stack.pop()
        else:
            extra.append(i)
    return extra, stack


def widens_over_the_rest(before: str, after: str) -> bool:
    """Whether `after` only appends the missing `)` at the very end and thereby puts a rule
    inside a nested ∃ or a ¬: `∀x (A(x) ∨ ∃y (B(x, y) → C(x))` closed at the end makes the
    rule's consequent part of the ∃ (`∃y (B → C)` holds of nearly anything), where the
    sentence's structure puts the `)` before the →.

    >>> widens_over_the_rest("∀x (A(x) ∨ ∃y (B(x, y) → C(x))", "∀x (A(x) ∨ ∃y (B(x, y) → C(x)))")
    True
    >>> widens_over_the_rest("∀x (P(x) → Q(x)", "∀x (P(x) → Q(x))")
    False
    """
    if after.rstrip() != before.rstrip() + ")":
        return False
    f = parses(after)
    if f is None:
        return False
    while isinstance(f, Forall | Exists):  # the leading quantifiers scope over all of it
        f = f.body
    return any(isinstance(g, Exists | Not) and isinstance(g.body, Implies) for g in subformulas(f))


def close_points(text: str) -> list[int]:
    """Where a ')' may go: right after a name, a string or a ')', before anything but '('.

    >>> close_points("∀x (P(x) ∨ Q")
    [2, 7, 8, 12]
    """
    out = []
    for i in range(1, len(text) + 1):
        prev, nxt = text[i - 1], text[i] if i < len(text) else " "
        if (is_name_char(prev) or prev in ')"') and not (is_name_char(nxt) or nxt == "("):
            out.append(i)
    return out


def open_points(text: str) -> list[int]:
    """Where a '(' may go: right before a formula can start (a name, '(', ¬ or a quantifier).

    >>> open_points("¬P(x) ∨ Q)")
    [0, 1, 3, 8]
    """
    out = []
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else " "
        starts_name = is_name_char(ch) and not (is_name_char(prev) or prev in "-.'’")
        if starts_name or ch in "¬~!∀∃" or (ch == "(" and grouping(text, i)):
            out.append(i)
    return out


def _end(text: str) -> int:
    """Index just past the formula's last character (trailing blanks and a final '.' aside)."""
    end = len(text.rstrip())
    if end and text[end - 1] == "." and text[: end - 1].rstrip().endswith(")"):
        end = len(text[: end - 1].rstrip())
    return end


Option = tuple[float, TextEdit]

#: Weight of the distance to the error: a tie-breaker, weaker than the kind of edit.
_NEAR = 0.25


def _close_options(text: str, p: int, err: int) -> list[Option]:
    """Ways to balance the never-closed '(' at `p`, with a cost (lower = more plausible)."""
    n = max(len(text), 1)
    end = _end(text)
    points = [q for q in close_points(text) if p < q <= end]
    at_error = max((q for q in points if q <= err), default=-1)
    out: list[Option] = []
    for q in points:
        if _closes_inequality(text, q):
            cost = -0.2  # `¬(a=b)`, FOLIO's a≠b, is the likeliest group to have lost its ')'
        elif q == end:
            cost = 0.0  # a formula's closers pile up at its end, where one is easily lost
        elif q == at_error:
            cost = 0.5  # the parser stopped right after this: a ')' lets it go on
        elif text[q - 1] == ")":
            cost = 1.0 + _NEAR * abs(err - q) / n  # inside a run of closers
        else:
            cost = 2.0 + _NEAR * abs(err - q) / n
        out.append((cost, (q, q, ")")))
    for q, ch in paren_chars(text):
        # deleting an argument list's '(' would glue the predicate to its argument (`Dogx`)
        if ch == "(" and q >= p and (grouping(text, q) or not is_name_char(text[q + 1 : q + 2])):
            doubled = text[q + 1 : q + 2] == "(" or text[q - 1 : q] == "("
            cost = (0.75 if doubled else 1.0) + _NEAR * abs(err - q) / n
            if _doubled_inequality(text, q):
                cost = -0.2  # `¬((a=b)`: one '(' too many around FOLIO's a≠b
            out.append((cost, (q, q + 1, "")))
    return out


def _open_options(
    text: str, p: int, err: int, vocabulary: frozenset[str], words: Words
) -> list[Option]:
    """Ways to balance the ')' at `p` that closes nothing, with a cost."""
    n = max(len(text), 1)
    start = len(text) - len(text.lstrip())
    out: list[Option] = []
    for q, ch in paren_chars(text):
        if ch == ")" and q <= p:
            # the offending ')' first; any other ')' of its run gives the same text
            same_run = text[q:p].strip(") ") == ""
            in_run = text[q - 1 : q] == ")" or text[q + 1 : q + 2] == ")"
            cost = 0.0 if same_run else (0.3 if in_run else 1.0) + _NEAR * abs(p - q) / n
            out.append((cost, (q, q + 1, "")))
    # where a lost '(' stood says the grouping, not the distance to the error (always at `p`)
    out += [(_open_cost(text, q, p, start), (q, q, "(")) for q in open_points(text) if q < p]
    out += _split_options(text, p, vocabulary, words)
    return out


def _open_cost(text: str, q: int, p: int, start: int) -> float:
    """How plausible a lost '(' at `q` is, given that it would close at `p`."""
    group = text[q:p]
    extra, unclosed = unmatched_parens(group)
    if unclosed or len(extra) > 1:
        return 3.0  # a larger rearrangement
    shift = 0.0
    if extra:
        # the new '(' pairs with an earlier ')', whose group the ')' at `p` closes instead: a
        # '(' lost inside a group (`∃y (A → B ∨ C) ∧ D)` for `∃y (A → (B ∨ C) ∧ D)`)
        group, shift = group[: extra[0]], 0.5
    before = text[start:q].rstrip()
    if before.endswith(("¬", "~", "!")):
        # `¬(A ∧ B)` is FOLIO's idiom; a group that itself holds a ¬ (`¬A ∧ ¬B)`) is more
        # likely a stray ')' after a conjunction of negations, and one holding a rule (`¬A → B)`)
        # a stray ')' after the rule's conclusion
        return shift + (-0.1 if not any(c in group for c in "¬~!→↔") else 0.9)
    if q == start:
        return shift + 0.75
    if before.endswith(tuple(BINARY)) or before.endswith(("&", "|", "->", "<->")):
        return shift + 1.0
    return shift + 2.0


_NAME = re.compile(r"[\w+]+(?:[-.'’]\w+)*")


def _split_options(text: str, p: int, vocabulary: frozenset[str], words: Words) -> list[Option]:
    """A lost argument-list '(' glues a predicate to its first argument: `Dogx)` for `Dog(x)`.

    Only a name outside any argument list that runs into ',' or ')' is split (FOLIO has no
    propositional atoms: such a name is a predicate with its argument list's '(' lost). Evidence,
    strongest first: the tail is a known term (a quantified variable or a name of the item) and
    the head a known predicate; the head a known predicate and the tail lowercase (a constant);
    the tail a known term and the head capitalised; else the sentence's words (see
    `_sentence_split`). Without evidence nothing is split: a guessed split invents a predicate.
    """
    bound = set(re.findall(r"[∀∃]\s*([\w']+)", text))
    args = set(re.findall(r"[(,]\s*([\w'’.+-]+)\s*(?=[,)])", text))
    predicates = set(re.findall(r"([\w'’.+-]+)\s*\(", text))
    out: list[Option] = []
    for m in formula_level_names(text[: p + 1]):
        name = m.group()
        options: list[Option] = []
        for k in range(1, len(name)):
            head, tail = name[:k], name[k:]
            known_head = head in predicates or head in vocabulary
            if not (tail in bound or tail in vocabulary or (tail in args and tail != name)):
                if known_head and tail[:1].islower():
                    options.append((-0.1, (m.start() + k, m.start() + k, "(")))
                continue
            # a name that runs into ')' outside an argument list is strong evidence already
            if known_head:
                cost = -0.25
            elif head[:1].isupper() and not tail[:1].isupper():
                cost = 0.0
            else:
                continue
            options.append((cost, (m.start() + k, m.start() + k, "(")))
        if not options:
            at = _sentence_split(name, words)
            options = [] if at is None else [(0.0, (m.start() + at, m.start() + at, "("))]
        out += options
    return out


def formula_level_names(text: str) -> Iterator[re.Match[str]]:
    """Names outside any argument list that run into ',' or ')': glued to their argument.

    >>> [m.group() for m in formula_level_names("¬CityInlyon, spain) ∧ P(a, b)")]
    ['CityInlyon']
    >>> [m.group() for m in formula_level_names("∀x (Dogx) → Animal(x))")]
    ['Dogx']
    >>> [m.group() for m in formula_level_names("∀x (Man(x) → ¬Faster(xm bolt))")]
    []
    """
    for m in _NAME.finditer(text):
        if not re.match(r"\s*[,)]", text[m.end() :]) or text[: m.start()].rstrip().endswith(
            (",", "=")
        ):
            continue  # not followed by an argument list's rest, or an argument itself
        opened = [i for i, ch in paren_chars(text[: m.start()]) if ch == "("]
        closed = set(paren_pairs(text[: m.start()]))
        innermost = next((i for i in reversed(opened) if i not in closed), None)
        if innermost is None or grouping(text, innermost):
            yield m


def _sentence_split(name: str, words: Words) -> int | None:
    """Where the sentence's words say a glued `name` splits into a predicate and a constant.

    The constant (lowerCamel) starts with a lowercase word the predicate's last word absorbed:
    `CityInlyon` is `CityIn` + `lyon`. A split qualifies when the constant's
    first word run is spelled entirely with the sentence's words, or is some of its words run
    together (`Supportsa-2017` for "A-2017 supports …"); of those, the one whose glued
    camel word the words cover most (the predicate's last word counting when it is a word of
    the sentence too) wins — a tie splits nothing.

    >>> _sentence_split("CityInlyon", Words.of("Lyon is not a city in Spain."))
    6
    >>> w = Words.of("Ann is the first guest at Bob's party.")
    >>> _sentence_split("FirstGuestAtbobsparty", w)  # `At`|`bobsparty` beats `Atbob`|`sparty`
    12
    >>> _sentence_split("Producesparamount", Words.of("It was made.")) is None
    True
    """
    scored: list[tuple[int, int]] = []
    for k in range(1, len(name)):
        head, tail = name[:k], name[k:]
        if not (head[:1].isupper() and tail[:1].islower()):
            continue
        run = "".join(ch for ch in re.sub(r"[A-Z].*", "", tail) if ch.isalnum())
        if not (words.spells(run) or words.phrase(run)):
            continue
        last = CAMEL_WORDS.findall(head)
        glued = last[-1] if last else head
        scored.append((len(run) + (len(glued) if words.known(glued) else 0), k))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    return scored[0][1]


def new_propositions(f: Formula, known: Iterable[str]) -> bool:
    """Whether `f` has a propositional atom the item does not use: a glued name, not a formula.

    FOLIO has none (every predicate takes arguments), so one appearing in a repair is a name
    glued to its lost argument list (`ChessClubmarlow`).

    >>> from refinery.logic.parse import parse
    >>> new_propositions(parse("Rain ∧ Wet(road)"), {"Rain"}), new_propositions(parse("Rainy"), ())
    (False, True)
    """
    names = set(known)
    return any(isinstance(n, Pred) and not n.args and n.name not in names for n in subformulas(f))


def _closes_inequality(text: str, q: int) -> bool:
    """Whether a ')' at `q` would close `¬(a=b`: FOLIO writes a≠b as `¬(a=b)`.

    >>> _closes_inequality("¬(y=z ∧ Leg(y)", 6), _closes_inequality("¬(y=z ∧ Leg(y)", 14)
    (True, False)
    """
    if text[q:].lstrip().startswith(")"):
        return False  # that one is closed already
    return re.search(r"¬\s*\(\s*[\w'’.+-]+\s*=\s*[\w'’.+-]+\s*$", text[:q]) is not None


def _doubled_inequality(text: str, q: int) -> bool:
    """Whether deleting the '(' at `q` leaves `¬(a=b)`: `¬((a=b)` has one '(' too many.

    >>> _doubled_inequality("¬((a=b) ∧ P(a)", 1), _doubled_inequality("¬((a=b) ∧ P(a)", 2)
    (True, False)
    """
    return text[:q].rstrip().endswith("¬") and bool(
        re.match(r"\(\s*[\w'’.+-]+\s*=\s*[\w'’.+-]+\s*\)", text[q + 1 :])
    )


def mixed_precedence(text: str) -> int:
    """Groups that chain ∧ with ∨ or ⊕ (or ∨ with ⊕) unparenthesised, leaving it to precedence.

    FOLIO groups such mixtures (11 of 3,151 formulas do not): a repair that leaves one has
    most likely dropped a group's ')' instead of restoring its '('. → and ↔ bind loosest, and
    chaining them with the others is common, so they split a group into parts.

    >>> mixed_precedence("A(a) ∧ B(a) ⊕ C(a)"), mixed_precedence("A(a) ∧ (B(a) ⊕ C(a)) → D(a) ∨ E(a)")
    (1, 0)
    """
    groups: list[list[str]] = [[]]
    done: list[list[str]] = []
    for ch in re.sub(r'"[^"]*"', "", text):
        if ch == "(":
            groups.append([])
        elif ch == ")":
            if len(groups) > 1:
                done.append(groups.pop())
        elif ch in BINARY:
            groups[-1].append(ch)
    count = 0
    for ops in done + groups:
        count += sum(len(set(part)) > 1 for part in "".join(ops).replace("↔", "→").split("→"))
    return count


def scope_leaks(text: str) -> int:
    """Quantifiers whose variable is used after the ')' that closes their parenthesised body.

    The parser extends a quantifier to the end of its group, so `∀x (A(x)) ∧ B(x)` binds both;
    but an annotator closes the scope where it ends, and FOLIO almost never leaves a variable
    outside it (4 of 3,151 formulas): a repair that does so has put a ')' in the wrong place.

    >>> scope_leaks("∀x (G(x) → S(x)) ⊕ M(x)"), scope_leaks("∀x (G(x) → S(x) ⊕ M(x))")
    (1, 0)
    >>> scope_leaks("(∀x (P(x))) ∧ Q(x)"), scope_leaks("∀x (P(x)) ∧ ∀x (Q(x))")
    (0, 0)
    """
    pairs = paren_pairs(text)
    leaks = 0
    for m in re.finditer(r"[∀∃]\s*([\w']+)\s*(?=\()", text):
        var, close = m.group(1), pairs.get(m.end())
        if close is None:
            continue
        end = min((j for i, j in pairs.items() if i < m.start() and j > close), default=len(text))
        rest = text[close + 1 : end]
        rebound = re.search(rf"[∀∃]\s*{re.escape(var)}(?![\w'])", rest)
        rest = rest[: rebound.start()] if rebound else rest
        leaks += re.search(rf"(?<![\w'’.+-]){re.escape(var)}(?![\w'’(+-])", rest) is not None
    return leaks


def redundant_pairs(text: str) -> int:
    """Grouping parentheses that change nothing: around one atom, around a pair, or everything.

    Used to prefer, among repairs, the text an annotator would have written.

    >>> redundant_pairs("¬(P(a)) ∧ ((Q(b)))"), redundant_pairs("¬(x=y) ∧ (P(a) ∨ Q(b))")
    (3, 0)
    """
    pairs = paren_pairs(text)
    start, end = _stripped(text, 0, len(text))
    count = 0
    for i, j in pairs.items():
        if not grouping(text, i):
            continue
        lo, hi = _stripped(text, i + 1, j)  # the group's content without its blanks
        wraps_pair = pairs.get(lo) == hi - 1
        inner = text[lo:hi]
        atom = re.fullmatch(r"[\w'’.+-]+(\s*\(.*\))?", inner) is not None and _one_group(inner)
        everything = (i, j + 1) == (start, end)
        count += wraps_pair or atom or everything
    return count


def _stripped(text: str, lo: int, hi: int) -> tuple[int, int]:
    """`text[lo:hi]` without leading and trailing blanks, as indices."""
    while lo < hi and text[lo].isspace():
        lo += 1
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    return lo, hi


def propositions(f: Formula) -> int:
    """How many propositional (0-ary) atoms `f` has; FOLIO rarely uses them.

    >>> from refinery.logic.parse import parse
    >>> propositions(parse("Rain ∧ Wet(road)"))
    1
    """
    return sum(1 for n in subformulas(f) if isinstance(n, Pred) and not n.args)


def _one_group(inner: str) -> bool:
    """Whether an atom-shaped text `Name(...)` really is one atom (its '(' closes at the end)."""
    k = inner.find("(")
    return k < 0 or paren_pairs(inner).get(k) == len(inner) - 1


def paren_repairs(
    text: str,
    error_index: int | None = None,
    vocabulary: Iterable[str] = (),
    words: Words | None = None,
) -> list[Fix]:
    """Texts that parse after one insertion or deletion per unmatched parenthesis.

    Each unmatched parenthesis gets its own options — insert its missing partner, delete it,
    or (for a ')' whose argument list lost its '(') split a glued name using `vocabulary`, the
    names known from the item's other formulas, or `words`, the sentence's (see
    `_split_options`). Results that parse are grouped by meaning-preserving shape (each keeping
    its most natural text), kept only if they leave the fewest free variables, and ordered by
    plausibility: a `¬(a=b` closed right after the equation, the end of the formula and the
    error position first, then runs of ')', then farther away; needless parentheses cost extra,
    a variable left outside its quantifier's parentheses (`scope_leaks`) much more. A result
    with a propositional atom the item does not use is dropped: that is a name glued to its
    lost argument list, and deleting the ')' would make it a new predicate.

    >>> [t for t, _ in paren_repairs("∀x (Dog(x) → Animal(x)")]
    ['∀x (Dog(x) → Animal(x))']
    >>> [t for t, _ in paren_repairs("P(a) ∨ Q(b)) ∧ R(c)")]  # ∨ and ∧ unparenthesised: unlikely
    ['(P(a) ∨ Q(b)) ∧ R(c)', 'P(a) ∨ Q(b) ∧ R(c)']
    >>> [t for t, _ in paren_repairs("P(a ∧ Q(b)")]
    ['P(a) ∧ Q(b)']
    >>> [t for t, _ in paren_repairs("∀x (Dogx) → Animal(x))")]
    ['∀x (Dog(x) → Animal(x))']
    >>> [t for t, _ in paren_repairs("¬(a=b ∧ ¬(a=c)")]
    ['¬(a=b) ∧ ¬(a=c)', '¬(a=b ∧ ¬(a=c))']
    """
    words = Words() if words is None else words
    if error_index is None:
        problem = try_parse(text)
        error_index = error_position(problem) if isinstance(problem, SyntaxProblem) else 0
    vocab = frozenset(vocabulary)
    extra, unclosed = unmatched_parens(text)
    per_paren = [_open_options(text, p, error_index, vocab, words) for p in extra]
    per_paren += [_close_options(text, p, error_index) for p in unclosed]
    if not per_paren or len(per_paren) > 3:
        return []
    width = {1: 10_000, 2: 16, 3: 8}[len(per_paren)]  # keeps the search to a few hundred parses
    combos: list[tuple[float, tuple[TextEdit, ...]]] = []
    for choice in itertools.product(*(sorted(opts)[:width] for opts in per_paren)):
        edits = tuple(e for _, e in choice)
        spots = [e[0] for e in edits]
        if len(set(spots)) == len(spots):
            combos.append((sum(c for c, _ in choice), edits))
    combos.sort(key=lambda c: (c[0], sorted(e[0] for e in c[1])))
    groups: dict[Formula, tuple[float, str, tuple[TextEdit, ...], int]] = {}
    seen: set[str] = set()
    for cost, edits in combos:
        after = splice(text, edits)
        if after in seen:
            continue
        seen.add(after)
        f = parses(after)
        if f is None or new_propositions(f, vocab):
            continue  # a name glued to its lost argument list (`Dogx`) is not a proposition
        # needless parentheses and a variable left outside its quantifier's group are unlikely
        score = cost + 0.5 * redundant_pairs(after) + 0.5 * propositions(f)
        score += 2.0 * scope_leaks(after) + 1.5 * mixed_precedence(after)
        key = shape(f)
        if key not in groups or (score, after) < groups[key][:2]:
            groups[key] = (score, after, edits, free_variable_count(f))
        if len(seen) >= 400 or len(groups) >= 4 * MAX_CANDIDATES:
            break
    if not groups:
        return []
    fewest = min(g[3] for g in groups.values())
    ranked = sorted((g for g in groups.values() if g[3] == fewest), key=lambda g: (g[0], g[1]))
    return [(after, _describe_parens(edits)) for _, after, edits, _ in ranked[:MAX_CANDIDATES]]


def _describe_parens(edits: Sequence[TextEdit]) -> str:
    parts = []
    for start, _, new in sorted(edits):
        if new:
            parts.append(f"insert {new!r} at column {start + 1}")
        else:
            parts.append(f"delete the parenthesis at column {start + 1}")
    return "; ".join(parts)


_PAREN_KINDS = {"unbalanced_parentheses", "unexpected_end"}


def _is_paren_problem(problem: SyntaxProblem) -> bool:
    return problem.kind in _PAREN_KINDS or (
        problem.kind == "unexpected_token" and problem.token in {"(", ")"}
    )


def paren_edits(findings: ItemContext) -> dict[Where, list[Edit]]:
    out: dict[Where, list[Edit]] = {}
    vocabulary: frozenset[str] | None = None
    for where, problem in broken_fields(findings).items():
        if _is_paren_problem(problem):
            vocabulary = item_vocabulary(findings) if vocabulary is None else vocabulary
            fixes = paren_repairs(
                problem.source, error_position(problem), vocabulary, sentence_words(findings, where)
            )
            before = findings.fol[where]
            # closing only at the end under a nested ∃ or ¬ may put the rule in the wrong
            # place: a guess the gate leaves a proposal
            out[where] = [
                e.model_copy(update={"guess": True}) if widens_over_the_rest(before, e.after) else e
                for e in edits_for(where, before, fixes, TAG)
            ]
    return out


def propose(findings: ItemContext) -> list[Candidate]:
    """Insert the missing or delete the extra parenthesis where the parser stopped.

    >>> f = ItemContext("i", "s", {"premises[0]": "∀x (P(x) → Q(x)", "conclusion": "Q(a)"}, {}, None)
    >>> [[e.after for e in c] for c in propose(f)]
    [['∀x (P(x) → Q(x))']]
    """
    return joint(paren_edits(findings))
