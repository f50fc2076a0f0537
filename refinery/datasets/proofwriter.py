"""Reading ProofWriter's original release (``meta-*.jsonl``) into `Item` records with generated FOL.

One theory per line: ``id``, ``triples`` and ``rules`` (each ``{"text", "representation"}``) and
``questions`` (``{"question", "answer", "QDep", "representation", ...}``). Every question
becomes one `Item`: dataset ``proofwriter``, the split from the file name (``meta-test`` →
``test``, via `refinery.datasets.folio.infer_names`), ``story_id`` = the theory id (so the check
stage asks each theory's consistency once), ``example_id`` = ``<theory id>_<question key>``
(``AttPos-OWA-BirdsVar1-3_Q7``, the convention of the Logic-LM ProofWriter subset), label
True / False / Uncertain (``"Unknown"``), ``line`` = the theory's physical line and ``raw`` = the
theory row. The premises are the theory's facts then its rules, in file order, each NL text
beside its FOL.

The FOL is generated from the ``representation`` fields, never from the NL and never by a model.
Each representation is parsed into `Statement` values (symbols already sanitised), and those are
turned into AST nodes and printed with `refinery.logic.printer.to_text`:

- ``("Bob" "is" "big" "+")`` → ``Big(bob)``; with ``"-"`` → ``¬Big(bob)``;
- ``("the bald eagle" "likes" "cat" "+")`` → ``Likes(theBaldEagle, cat)``;
- ``((("someone" "is" "big" "+")) -> ("someone" "is" "red" "+"))`` → ``∀x (Big(x) → Red(x))``;
- ``((("something" "chases" "dog" "+") ("dog" "is" "big" "~")) -> ("something" "is" "rough"
  "+"))`` → ``∀x (Chases(x, dog) ∧ ¬Big(dog) → Rough(x))``; a rule without someone/something
  is an implication between ground literals, unquantified.

- ``is`` + an attribute is a unary predicate; a leading article is dropped (``is a bird`` →
  ``Bird``). Any other relation is a binary predicate (``runs through`` → ``RunsThrough``).
- ``someone`` / ``something`` is the rule's one universally quantified variable ``x`` (ProofWriter
  rules have a single variable, whichever word the template used). It may not occur in a fact or
  a question.
- Names are rebuilt from their letters and digits only, so no dataset text reaches the formula
  verbatim: predicates in PascalCase, constants in camelCase (``the bald eagle`` →
  ``theBaldEagle``). A constant that would look like a variable to the linter (one letter, maybe
  a digit: ``x``, ``b2``) or spell a quantifier keyword (``forall``) gets a trailing ``_``,
  which sanitised names never contain, so the variable ``x`` can never capture a constant.
- Polarity ``+`` is the atom, ``-`` its negation; several conditions are a conjunction.

**Negation in conditions (``~``).** Open-world (OWA) theories mark negated rule conditions with
``~`` ("If the circuit does not have the switch then ..."). Under ProofWriter's OWA semantics
such a condition holds only when the negation is *known* (stated or derived), never because the
atom is merely absent, which is classical negation: ``~`` (and ``-``) in a condition becomes
``¬``. ``~`` anywhere else (a fact, a rule's conclusion, a question) is a row error, since there
it can only mean negation as failure.

**Closed-world (CWA) theories are refused.** In ProofWriter's CWA sets, whatever cannot be
derived is false and ``~`` is negation as failure (a non-monotonic, stratified semantics).
Classical provers have no negation as failure: the generated classical theory would not entail
the CWA answers (every "False by failure" question would come out Uncertain), and encoding the
closed world faithfully (a completion per predicate, with the stratification) is a different
product. A path or a theory id with a ``CWA`` token therefore raises `DataError` saying so.

A malformed theory (bad JSON, a missing or mistyped field, an unparseable representation, a
predicate used with two arities) becomes one `LoadError` for its line; a malformed question
becomes a `LoadError` for that question (``Q3: ...``) and the theory's other questions still load.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from refinery.datasets.folio import decode_row, infer_names
from refinery.datasets.records import (
    Item,
    LoadError,
    LoadResult,
    empty_text_reason,
    no_items_reason,
    text_lines,
)
from refinery.errors import DataError, RefineryError
from refinery.labels import Label, normalize_gold_label
from refinery.logic.printer import to_text
from refinery.logic.syntax import And, Const, Forall, Formula, Implies, Not, Pred, Term, Var

DATASET = "proofwriter"
#: The one variable of a rule, in the generated FOL.
VARIABLE = "x"
#: Words that stand for the rule's variable in a representation.
VARIABLE_WORDS = frozenset({"someone", "something"})
_VAR = Var(VARIABLE)
_ARTICLES = frozenset({"a", "an", "the"})
_WORD = re.compile(r"[^\W_]+")  # Unicode letters and digits; "_" is kept for our own suffix
_LINT_VARIABLE_LIKE = re.compile(r"[a-z][0-9]*")  # what the linter could read as a variable
_KEYWORDS = frozenset({"forall", "exists"})
_TOKEN = re.compile(r'\s*(?:(\()|(\))|(->)|"([^"]*)"|(\S))')
_ARROW = object()  # the "->" token in a parsed s-expression
_POLARITIES = frozenset({"+", "-", "~"})


class ProofWriterError(RefineryError, ValueError):
    """Why a theory, a statement or a question cannot be read (becomes a `LoadError`)."""


# --- the parsed representation ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Atom:
    """A sanitised atom: predicate symbol and argument symbols (`VARIABLE` for someone/something)."""

    predicate: str
    args: tuple[str, ...]

    @property
    def has_variable(self) -> bool:
        return VARIABLE in self.args


@dataclass(frozen=True, slots=True)
class Literal:
    """An atom or its negation. ``failure`` records a ``~`` (only allowed in a rule condition)."""

    atom: Atom
    positive: bool
    failure: bool = False


@dataclass(frozen=True, slots=True)
class Rule:
    """``conditions → head``, universally quantified over `VARIABLE` when it occurs."""

    conditions: tuple[Literal, ...]
    head: Literal

    @property
    def has_variable(self) -> bool:
        return any(lit.atom.has_variable for lit in (*self.conditions, self.head))


Statement = Literal | Rule


@dataclass(frozen=True, slots=True)
class Question:
    """One question of a theory: its key (``Q7``), NL text, literal and gold label."""

    key: str
    text: str
    literal: Literal
    label: Label
    raw_label: str


@dataclass(frozen=True, slots=True)
class Theory:
    """A theory's facts and rules, in file order, each with its NL text."""

    id: str
    facts: tuple[tuple[str, Literal], ...]
    rules: tuple[tuple[str, Rule], ...]

    @property
    def statements(self) -> tuple[tuple[str, Statement], ...]:
        return (*self.facts, *self.rules)


# --- names -----------------------------------------------------------------------------------


def constant_name(text: str) -> str:
    """The constant for an entity: its letters and digits in camelCase.

    >>> constant_name("the bald eagle"), constant_name("Bob"), constant_name("light bulb")
    ('theBaldEagle', 'bob', 'lightBulb')
    >>> constant_name("X"), constant_name("forall")
    ('x_', 'forall_')
    """
    words = _words(text, "entity")
    name = words[0].lower() + "".join(w[:1].upper() + w[1:] for w in words[1:])
    if _LINT_VARIABLE_LIKE.fullmatch(name) or name in _KEYWORDS:
        name += "_"
    return name


def predicate_name(text: str, *, attribute: bool = False) -> str:
    """The predicate for a relation or an attribute: its words in PascalCase.

    An attribute's leading article is dropped when other words follow.

    >>> predicate_name("a bird", attribute=True), predicate_name("runs through")
    ('Bird', 'RunsThrough')
    """
    words = _words(text, "attribute" if attribute else "relation")
    if attribute and len(words) > 1 and words[0].lower() in _ARTICLES:
        words = words[1:]
    return "".join(w[:1].upper() + w[1:] for w in words)


def _words(text: str, what: str) -> list[str]:
    words = _WORD.findall(text)
    if not words:
        raise ProofWriterError(f"{what} {text!r} has no letters or digits")
    return words


# --- representation → statements ------------------------------------------------------------


def parse_statement(text: str) -> Statement:
    """Parse one ``representation``: a literal ``("s" "rel" "o" "±")`` or a rule.

    Raises `ProofWriterError` on anything else.

    >>> parse_statement('("Bob" "is" "big" "-")')
    Literal(atom=Atom(predicate='Big', args=('bob',)), positive=False, failure=False)
    >>> rule = parse_statement('((("someone" "is" "big" "+")) -> ("someone" "is" "red" "+"))')
    >>> rule.head.atom, len(rule.conditions)
    (Atom(predicate='Red', args=('x',)), 1)
    """
    tree = _sexpr(text)
    if _is_literal(tree):
        return _literal(tree)
    if isinstance(tree, list) and len(tree) == 3 and tree[1] is _ARROW:
        conditions, head = tree[0], tree[2]
        if (
            isinstance(conditions, list)
            and conditions
            and all(_is_literal(c) for c in conditions)
            and _is_literal(head)
        ):
            return Rule(tuple(_literal(c) for c in conditions), _literal(head))
    raise ProofWriterError(
        f'{_clip(text)} is neither a literal ("subject" "relation" "object" "+|-|~") '
        "nor a rule ((literal ...) -> literal)"
    )


def _sexpr(text: str) -> object:
    stack: list[list[object]] = [[]]
    for match in _TOKEN.finditer(text):
        opening, closing, arrow, string, other = match.groups()
        if opening:
            stack.append([])
        elif closing:
            if len(stack) == 1:
                raise ProofWriterError(f"unbalanced ')' in {_clip(text)}")
            done = stack.pop()
            stack[-1].append(done)
        elif arrow:
            stack[-1].append(_ARROW)
        elif string is not None:
            stack[-1].append(string)
        else:
            raise ProofWriterError(f"unexpected {other!r} in {_clip(text)}")
    if len(stack) != 1:
        raise ProofWriterError(f"unbalanced '(' in {_clip(text)}")
    if len(stack[0]) != 1:
        raise ProofWriterError(f"expected one parenthesised expression in {_clip(text)}")
    return stack[0][0]


def _is_literal(tree: object) -> bool:
    return isinstance(tree, list) and len(tree) == 4 and all(isinstance(t, str) for t in tree)


def _literal(tree: object) -> Literal:
    assert isinstance(tree, list)
    subject, relation, obj, polarity = (str(t) for t in tree)
    if polarity not in _POLARITIES:
        raise ProofWriterError(f"polarity {polarity!r} is not one of '+', '-', '~'")
    if relation.strip().lower() == "is":
        atom = Atom(predicate_name(obj, attribute=True), (_term(subject),))
    else:
        atom = Atom(predicate_name(relation), (_term(subject), _term(obj)))
    return Literal(atom, positive=polarity == "+", failure=polarity == "~")


def _term(text: str) -> str:
    return VARIABLE if text.strip().lower() in VARIABLE_WORDS else constant_name(text)


def _clip(text: str, limit: int = 120) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


# --- statements → FOL ------------------------------------------------------------------------


def to_formula(statement: Statement) -> Formula:
    """The classical FOL of a statement; ``~`` conditions become ``¬`` (see the module docstring).

    >>> to_text(to_formula(parse_statement(
    ...     '((("someone" "likes" "cat" "+") ("cat" "is" "big" "~")) -> ("someone" "is" "red" "-"))')))
    '∀x (Likes(x, cat) ∧ ¬Big(cat) → ¬Red(x))'
    """
    if isinstance(statement, Literal):
        return _literal_formula(statement)
    conditions = [_literal_formula(c) for c in statement.conditions]
    body = conditions[0] if len(conditions) == 1 else And(tuple(conditions))
    implication = Implies(body, _literal_formula(statement.head))
    return Forall(VARIABLE, implication) if statement.has_variable else implication


def _literal_formula(literal: Literal) -> Formula:
    args: tuple[Term, ...] = tuple(_VAR if a == VARIABLE else Const(a) for a in literal.atom.args)
    atom = Pred(literal.atom.predicate, args)
    return atom if literal.positive else Not(atom)


# --- rows → theories and items ---------------------------------------------------------------


def parse_theory(row: object) -> tuple[Theory, list[Question | ProofWriterError]]:
    """A theory row → its `Theory` and, per question in file order, a `Question` or its error.

    Raises `ProofWriterError` when the theory itself is malformed.
    """
    if not isinstance(row, dict):
        raise ProofWriterError("row is not a JSON object")
    theory_id = row.get("id")
    if not isinstance(theory_id, str) or not theory_id.strip():
        raise ProofWriterError("missing or empty 'id'")
    facts = [(t, s) for t, s in _statements(row, "triples") if isinstance(s, Literal)]
    rules = [(t, s) for t, s in _statements(row, "rules") if isinstance(s, Rule)]
    if not facts and not rules:
        raise ProofWriterError("theory has no triples and no rules")
    theory = Theory(theory_id.strip(), tuple(facts), tuple(rules))
    arities: dict[str, int] = {}
    for _, statement in theory.statements:
        _check_arities(statement, arities)
    questions = row.get("questions")
    if not isinstance(questions, dict) or not questions:
        raise ProofWriterError("'questions' must be a non-empty object")
    parsed: list[Question | ProofWriterError] = []
    for key, entry in questions.items():
        try:
            parsed.append(_question(key, entry, arities))
        except ProofWriterError as exc:
            parsed.append(ProofWriterError(f"{key}: {exc}"))
    return theory, parsed


def _statements(row: dict[str, object], name: str) -> Iterator[tuple[str, Statement]]:
    entries = row.get(name, {})
    if not isinstance(entries, dict):
        raise ProofWriterError(f"{name!r} must be an object")
    for key, entry in entries.items():
        if not isinstance(entry, dict):
            raise ProofWriterError(f"{key}: expected an object with 'text' and 'representation'")
        text, rep = entry.get("text"), entry.get("representation")
        if not isinstance(text, str) or not text.strip():
            raise ProofWriterError(f"{key}: missing or empty 'text'")
        if not isinstance(rep, str):
            raise ProofWriterError(f"{key}: missing 'representation'")
        try:
            statement = parse_statement(rep)
        except ProofWriterError as exc:
            raise ProofWriterError(f"{key}: {exc}") from None
        is_fact = name == "triples"
        if isinstance(statement, Literal) != is_fact:
            wanted = "a literal" if is_fact else "a rule"
            raise ProofWriterError(f"{key}: representation is not {wanted}: {_clip(rep)}")
        try:
            if isinstance(statement, Literal):
                _check_ground(statement, "a fact")
            elif statement.head.failure:
                raise ProofWriterError("'~' (negation as failure) in a rule's conclusion")
        except ProofWriterError as exc:
            raise ProofWriterError(f"{key}: {exc}") from None
        yield text.strip(), statement


def _question(key: str, entry: object, arities: dict[str, int]) -> Question:
    if not isinstance(entry, dict):
        raise ProofWriterError("expected an object")
    text, rep = entry.get("question"), entry.get("representation")
    if not isinstance(text, str) or not text.strip():
        raise ProofWriterError("missing or empty 'question'")
    if not isinstance(rep, str):
        raise ProofWriterError("missing 'representation'")
    if "answer" not in entry:
        raise ProofWriterError("missing 'answer'")
    answer = entry["answer"]
    label = normalize_gold_label(answer)
    if label is None:
        raise ProofWriterError(f"answer {answer!r} is not true, false or Unknown")
    statement = parse_statement(rep)
    if not isinstance(statement, Literal):
        raise ProofWriterError(f"representation is not a literal: {_clip(rep)}")
    _check_ground(statement, "a question")
    _check_arities(statement, dict(arities))
    return Question(key, text.strip(), statement, label, str(answer))


def _check_ground(literal: Literal, where: str) -> None:
    if literal.failure:
        raise ProofWriterError(f"'~' (negation as failure) in {where}")
    if literal.atom.has_variable:
        raise ProofWriterError(f"someone/something in {where}")


def _check_arities(statement: Statement, arities: dict[str, int]) -> None:
    """Record each predicate's arity in `arities`; one name with two arities is an error."""
    literals = (
        (statement,) if isinstance(statement, Literal) else (*statement.conditions, statement.head)
    )
    for lit in literals:
        name, n = lit.atom.predicate, len(lit.atom.args)
        if arities.setdefault(name, n) != n:
            raise ProofWriterError(f"predicate {name!r} would be both an attribute and a relation")


def load(source: str | Path, *, dataset: str | None = None, split: str | None = None) -> LoadResult:
    """Load a ProofWriter ``meta-*.jsonl`` file: one `Item` per question, malformed rows recorded.

    Parameters
    ----------
    source
        The ``.jsonl`` path.
    dataset, split
        Names for the items and their ids; default ``proofwriter`` and the split from the file
        name (`refinery.datasets.folio.infer_names`: ``meta-test`` → ``test``).

    Returns
    -------
    LoadResult
        ``items`` in file order (theories, then their questions in key order), ``errors`` with
        the theory's physical line and the reason (``Q3: ...`` for a single question).

    Raises
    ------
    DataError
        The file cannot be read or gives no item (empty, or every row malformed: the first
        reason is given), or it is closed-world (a ``CWA`` token in the path or a theory
        id): CWA needs negation as failure, which classical provers do not have.

    Examples
    --------
    >>> import tempfile, os
    >>> row = {"id": "T-OWA-1", "triples": {"triple1": {"text": "Bob is big.",
    ...   "representation": '("Bob" "is" "big" "+")'}}, "rules": {}, "questions": {"Q1": {
    ...   "question": "Bob is not big.", "answer": False, "representation": '("Bob" "is" "big" "-")'}}}
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "meta-test.jsonl")
    >>> _ = open(path, "w").write(json.dumps(row) + "\\n")
    >>> (item,) = load(path).items
    >>> item.id, item.premises_fol, item.conclusion_fol, item.label.value
    ('proofwriter/test/T-OWA-1_Q1', ('Big(bob)',), '¬Big(bob)', 'False')
    """
    path = Path(source)
    dataset, split = _names(path, dataset, split)
    items: list[Item] = []
    errors: list[LoadError] = []
    for found in iter_items(path, dataset=dataset, split=split):
        if isinstance(found, LoadError):
            errors.append(found)
        else:
            items.append(found)
    if not items:
        raise DataError(f"{path}: {no_items_reason(errors)}")
    return LoadResult(items=tuple(items), errors=tuple(errors), dataset=dataset, split=split)


def iter_items(
    path: Path, *, dataset: str | None = None, split: str | None = None
) -> Iterator[Item | LoadError]:
    """`load`'s items and errors one theory at a time, in file order: a file of any size is read
    in the memory of its longest line. An empty file, an unreadable one and a closed-world one
    raise `DataError` as in `load`; a file with no item does not (the caller counts)."""
    dataset, split = _names(path, dataset, split)
    _refuse_closed_world(str(path), where=str(path))
    seen: dict[str, int] = {}
    blank = True
    for number, line in text_lines(path):
        if not line.strip():
            continue
        blank = False
        try:
            row = decode_row(line)
        except ValueError as exc:
            yield LoadError(str(path), number, str(exc))
            continue
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            _refuse_closed_world(row["id"], where=f"{path}:{number}: theory {row['id']!r}")
        try:
            theory, questions = _parsed(row)
            if theory.id in seen:
                raise ProofWriterError(
                    f"duplicate theory id {theory.id!r} (first at line {seen[theory.id]})"
                )
        except ProofWriterError as exc:
            yield LoadError(str(path), number, str(exc))
            continue
        seen[theory.id] = number
        raw = json.dumps(row, ensure_ascii=False)
        _remember(raw, (theory, questions))
        premises = tuple(t for t, _ in theory.statements)
        premises_fol = tuple(to_text(to_formula(s)) for _, s in theory.statements)
        for question in questions:
            if isinstance(question, ProofWriterError):
                yield LoadError(str(path), number, str(question))
                continue
            yield Item(
                dataset=dataset,
                split=split,
                story_id=theory.id,
                example_id=f"{theory.id}_{question.key}",
                premises=premises,
                premises_fol=premises_fol,
                conclusion=question.text,
                conclusion_fol=to_text(to_formula(question.literal)),
                label=question.label,
                raw_label=question.raw_label,
                source=str(path),
                line=number,
                raw=raw,
            )
    if blank:
        size = path.stat().st_size
        raise DataError(f"{path}: {empty_text_reason('' if size == 0 else ' ')}")


#: A theory parsed: the `Theory` and, per question, a `Question` or its error.
ParsedTheory = tuple[Theory, tuple[Question | ProofWriterError, ...]]
#: Theories `parse_raw` keeps: a check's two chunks in flight hold a few hundred of them.
RECENT_THEORIES = 512
_recent: dict[str, ParsedTheory] = {}  # by the item's `raw`, oldest first
_recent_lock = threading.Lock()


def parse_raw(raw: str) -> ParsedTheory:
    """`parse_theory` of a theory row as an item's `raw` holds it (JSON text), or
    `ProofWriterError`. Loading (`iter_items`) keeps the last `RECENT_THEORIES` it parsed, so
    the dataset's own semantics (`refinery.datasets.proofwriter_semantics`), reading the same
    theories a chunk later, finds them parsed (measured on ProofWriter: 22 µs a question
    before, 3 µs after; loading, which now keeps them, about 4 µs a question more)."""
    found = _recent.get(raw)
    return found if found is not None else _parsed(json.loads(raw))


def _parsed(row: object) -> ParsedTheory:
    theory, questions = parse_theory(row)
    return theory, tuple(questions)


def _remember(raw: str, parsed: ParsedTheory) -> None:
    with _recent_lock:
        _recent[raw] = parsed
        while len(_recent) > RECENT_THEORIES:
            del _recent[next(iter(_recent))]


def _names(path: Path, dataset: str | None, split: str | None) -> tuple[str, str]:
    """The items' dataset and split: as given, else ``proofwriter`` and the file's split."""
    return dataset or DATASET, split or infer_names(path)[1]


def count_questions(path: Path) -> int:
    """How many questions a ProofWriter file asks, counted in its bytes without parsing them
    (each question entry has one ``"question":`` key); a malformed row may be counted though
    `iter_items` skips it. Reads the file in blocks: a file of any size, in little memory.
    """
    key, count, tail = b'"question":', 0, b""
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            # the last bytes of the block before are too short to hold a key, but a key cut by
            # the block boundary is whole here
            data = tail + block
            count += data.count(key)
            tail = data[-(len(key) - 1) :]
    return count


def question_key(item: Item) -> str:
    """The question key (``Q7``) of an item this module loaded."""
    return item.example_id.removeprefix(item.story_id + "_")


def looks_like_proofwriter(path: str | Path) -> bool:
    """Whether a ``.jsonl`` file is in ProofWriter's meta format (name ``meta-*`` or first row).

    Reads at most the first non-blank line; an unreadable file is left to the loader to report.
    """
    path = Path(path)
    if path.suffix.lower() != ".jsonl":
        return False
    if path.name.lower().startswith("meta-"):
        return True
    try:
        with path.open(encoding="utf-8-sig") as fh:
            first = next((line for line in fh if line.strip()), "")
        row = decode_row(first)
    except (OSError, UnicodeDecodeError, ValueError):  # the loader reports a bad row
        return False
    return isinstance(row, dict) and {"triples", "questions"} <= row.keys()


def _refuse_closed_world(name: str, *, where: str) -> None:
    if "cwa" in (t.lower() for t in re.split(r"[-_./\\\s]+", name)):
        raise DataError(
            f"{where}: closed-world (CWA) ProofWriter data is not supported. Under CWA whatever "
            "cannot be derived is false and '~' is negation as failure; classical provers have "
            "no negation as failure, so the generated FOL would not entail the CWA answers. "
            "Use the open-world (OWA) files."
        )
