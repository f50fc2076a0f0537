"""Rescoring a model's predictions against a refined split: original and refined labels side by side.

A predictions file is CSV or JSONL with an `id` (or, when no row has one, `example_id`) and a
`label` per row. Labels use the gold spellings True / False / Uncertain (case-insensitive, with
"Unknown" for Uncertain, JSON booleans for True/False); anything else is *unparseable*.

Every item of the split is in the denominator: an unparseable or missing prediction counts as wrong,
and is also counted separately, so a model cannot gain accuracy by abstaining. Predictions for ids
not in the split are reported, never scored. Items whose label a reviewer changed are scored on
their own as well: the whole difference between the two accuracies comes from them.

The split comes from a run folder, a published folder (`refinery publish`) or a published
dataset on the Hub (`load_against`). The clean subset (``clean=True``) scores only the items the
provers or a reviewer settled, as the release's ``clean`` config holds them; predictions for the
other items of the split are counted apart, never scored.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from refinery.datasets.records import read_text_file
from refinery.errors import ConfigError, DataError, RefineryError
from refinery.labels import GOLD_LABELS, Label, normalize_gold_label

KEYS = ("id", "example_id")
ALL = "all"
CLEAN = "clean"
#: How many ids each count lists in the table (the JSON lists them all).
SHOWN_IDS = 3

#: How one prediction scores against one label.
Mark = Literal["correct", "wrong", "unparseable", "missing"]


@dataclass(frozen=True, slots=True)
class Prediction:
    """One usable prediction row: `label` is None when the model's answer is not a gold label."""

    key: str
    label: Label | None
    raw: object
    line: int


@dataclass(frozen=True, slots=True)
class Predictions:
    """A predictions file, read: `key` names the split column (`id` or `example_id`) keys match."""

    key: str
    items: tuple[Prediction, ...]
    bad_rows: tuple[str, ...] = ()  # "line N: why", rows with no usable id (counted, not scored)


@dataclass(frozen=True, slots=True)
class Tally:
    """Predictions scored against one set of gold labels; `items` is the whole denominator."""

    items: int = 0
    correct: int = 0
    unparseable: int = 0  # counted wrong, and here
    missing: int = 0  # counted wrong, and here

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.items if self.items else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "unparseable": self.unparseable,
            "missing": self.missing,
        }


@dataclass(frozen=True)
class Scores:
    """Accuracy on the original and the refined labels, per gold label and overall.

    `original` and `refined` map "True", "False", "Uncertain" and "all" to a `Tally`;
    `changed_original` / `changed_refined` score only the `changed` items (refined label differs
    from the original) against each side. Ids are the keys the predictions file used.
    """

    items: int
    original: dict[str, Tally]
    refined: dict[str, Tally]
    changed: int
    changed_original: Tally
    changed_refined: Tally
    unparseable_ids: tuple[str, ...]
    missing_ids: tuple[str, ...]
    unknown_ids: tuple[str, ...]  # predictions for ids not in the split: not scored
    duplicate_ids: tuple[str, ...]  # repeated predictions: the first one counts
    bad_rows: tuple[str, ...]
    unlabeled: int  # items with no gold label on one side, left out of that side's tallies
    subset: str = ALL  # which items were scored: all of the split, or the clean subset
    split_items: int = 0  # items in the whole split (`items` when the subset is all)
    outside_ids: tuple[str, ...] = ()  # predictions for split items outside the subset

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; accuracies are fractions (None where a category has no items)."""
        return {
            "subset": self.subset,
            "split_items": self.split_items,
            "items": self.items,
            "original": {k: t.to_dict() for k, t in self.original.items()},
            "refined": {k: t.to_dict() for k, t in self.refined.items()},
            "changed": self.changed,
            "changed_original": self.changed_original.to_dict(),
            "changed_refined": self.changed_refined.to_dict(),
            "unparseable": len(self.unparseable_ids),
            "missing": len(self.missing_ids),
            "unknown": len(self.unknown_ids),
            "duplicates": len(self.duplicate_ids),
            "outside": len(self.outside_ids),
            "unlabeled": self.unlabeled,
            "unparseable_ids": list(self.unparseable_ids),
            "missing_ids": list(self.missing_ids),
            "unknown_ids": list(self.unknown_ids),
            "duplicate_ids": list(self.duplicate_ids),
            "outside_ids": list(self.outside_ids),
            "bad_rows": list(self.bad_rows),
        }


def rescore(
    predictions: Predictions, rows: Sequence[Mapping[str, Any]], *, clean: bool = False
) -> Scores:
    """Score `predictions` against the refined split's `rows` (`Run.refined_rows()`).

    Parameters:
        predictions: what `read_predictions` returns (or one built by hand).
        rows: refined rows with `id`, `example_id`, `label` (refined), `original_label` and
            `status`.
        clean: score only the clean subset (status verified, repaired or reviewed); predictions
            for the split's other items are listed in `outside_ids`, not scored.

    Returns:
        `Scores`. Raises `RefineryError` when predictions are keyed by `example_id` and the split
        repeats one (the match would be ambiguous).
    """
    split_keys = [_row_key(row, predictions.key) for row in rows]
    repeated = [k for k, n in Counter(split_keys).items() if n > 1]
    if repeated:
        raise RefineryError(
            f"{predictions.key} {repeated[0]!r} appears {split_keys.count(repeated[0])} times "
            f"in the split; key the predictions by id"
        )
    if clean:
        from refinery.publish.columns import is_clean

        kept = [(row, key) for row, key in zip(rows, split_keys, strict=True) if is_clean(row)]
        rows, keys = [row for row, _ in kept], [key for _, key in kept]
    else:
        keys = split_keys
    by_key: dict[str, Prediction] = {}
    duplicates: list[str] = []
    for p in predictions.items:
        if p.key in by_key:
            duplicates.append(p.key)
        else:
            by_key[p.key] = p
    known, in_subset = set(split_keys), set(keys)

    original: list[tuple[Label, Mark]] = []
    refined: list[tuple[Label, Mark]] = []
    changed_original: list[tuple[Label, Mark]] = []
    changed_refined: list[tuple[Label, Mark]] = []
    unlabeled = changed_items = 0
    for row, key in zip(rows, keys, strict=True):
        prediction = by_key.get(key)
        gold_original = normalize_gold_label(row.get("original_label"))
        gold_refined = normalize_gold_label(row.get("label"))
        unlabeled += gold_original is None or gold_refined is None
        changed = gold_original != gold_refined
        changed_items += changed
        for gold, side, changed_side in (
            (gold_original, original, changed_original),
            (gold_refined, refined, changed_refined),
        ):
            if gold is None:
                continue
            scored = (gold, _mark(prediction, gold))
            side.append(scored)
            if changed:
                changed_side.append(scored)

    return Scores(
        items=len(rows),
        original=_by_label(original),
        refined=_by_label(refined),
        changed=changed_items,
        changed_original=_tally(o for _, o in changed_original),
        changed_refined=_tally(o for _, o in changed_refined),
        unparseable_ids=tuple(k for k in keys if k in by_key and by_key[k].label is None),
        missing_ids=tuple(k for k in keys if k not in by_key),
        unknown_ids=tuple(k for k in by_key if k not in known),
        duplicate_ids=tuple(duplicates),
        bad_rows=predictions.bad_rows,
        unlabeled=unlabeled,
        subset=CLEAN if clean else ALL,
        split_items=len(split_keys),
        outside_ids=tuple(k for k in by_key if k in known and k not in in_subset),
    )


@dataclass(frozen=True)
class Against:
    """The refined split predictions are scored against, and where it came from.

    `kind` is ``run`` (a run folder), ``published`` (a folder `refinery publish` built) or
    ``hub`` (a published dataset downloaded from the Hub, `path` its local copy); `name` says
    which split of what, for the terminal.
    """

    rows: list[dict[str, Any]]
    kind: Literal["run", "published", "hub"]
    path: Path
    split: str
    run_id: str
    name: str


def load_against(spec: str, *, split: str | None = None) -> Against:
    """The split `spec` names: a run folder, a split's folder of runs (its newest run), a
    published folder, or a Hub dataset id.

    A local folder wins over a Hub id of the same spelling; ``hf:OWNER/NAME`` always means the
    Hub. A published folder (local or downloaded) with several splits needs `split`; for a run
    folder `split` must be its own. Raises `RefineryError` (one line) when `spec` is none of
    these, the split is not there, or the download fails (offline, gated, no such dataset).
    """
    from refinery import publish
    from refinery.runs import RUN_FILE, run_folders

    path = Path(spec)
    if not spec.startswith("hf:") and path.is_dir():
        if (path / RUN_FILE).is_file():
            return _run(path, split)
        if publish.published_splits(path):
            return _published(path, "published", split)
        newest = run_folders(path)
        if newest:  # a split's folder of runs: the newest, as `review apply` picks it
            return _run(newest[-1], split, f" (the newest run in {path})")
        raise RefineryError(
            f"{path} is not a run folder (no {RUN_FILE}), a split's folder of runs nor a "
            "published folder (no refined/<split>.parquet beside a publish.json or README.md)"
        )
    if path.exists() and not spec.startswith("hf:"):
        raise RefineryError(f"--against {spec}: a file, not a run folder or a published folder")
    repo_id = spec.removeprefix("hf:")
    try:
        publish.check_repo_id(repo_id)
    except ConfigError:
        raise RefineryError(
            f"--against {spec}: no such folder, and not a Hub dataset id (OWNER/NAME)"
        ) from None
    return _published(publish.download(repo_id), "hub", split)


def _run(path: Path, split: str | None, where: str = "") -> Against:
    """The refined rows of the run folder `path`, whose split `split` (if given) must be."""
    from refinery import publish
    from refinery.runs import load_run

    run = load_run(path)
    own = str(run.meta.get("split", ""))
    if split is not None and split not in (own, publish.hub_split(own)):
        raise ConfigError(f"--split {split}: run {run.run_id} holds split {own!r}")
    return Against(run.refined_rows(), "run", path, own, run.run_id, f"run {run.run_id}{where}")


def _published(folder: Path, kind: Literal["published", "hub"], split: str | None) -> Against:
    """One split of a published folder, chosen by `split` when it has several."""
    from refinery import publish

    splits = publish.published_splits(folder)
    if not splits:
        raise RefineryError(f"{folder} holds no refined split (refined/<split>.parquet)")
    if split is None:
        if len(splits) > 1:
            raise ConfigError(f"{folder} has splits {', '.join(splits)}: choose one with --split")
        split = splits[0]
    elif split not in splits:
        if publish.hub_split(split) not in splits:  # `all` is published as `train`
            raise ConfigError(f"--split {split}: {folder} has {', '.join(splits)}")
        split = publish.hub_split(split)
    rows = publish.read_split(folder, split)
    manifest = publish.read_manifest(folder) or {}
    entry = manifest.get("splits", {}).get(split, {})
    run_id = str(entry.get("run_id") or (rows[0].get("run_id") if rows else "") or "?")
    release = " ".join(str(p) for p in (manifest.get("repo_id"), manifest.get("tag")) if p)
    name = f"{release or folder.name} split {split} (run {run_id})"
    return Against(rows, kind, folder, split, run_id, name)


def _row_key(row: Mapping[str, Any], key: str) -> str:
    text = _key_text(row.get(key))
    if text is None:
        raise RefineryError(f"a split row has no {key} (row id {row.get('id')!r})")
    return text


def _mark(prediction: Prediction | None, gold: Label) -> Mark:
    if prediction is None:
        return "missing"
    if prediction.label is None:
        return "unparseable"
    return "correct" if prediction.label is gold else "wrong"


def _by_label(scored: Sequence[tuple[Label, Mark]]) -> dict[str, Tally]:
    tallies = {label.value: _tally(o for g, o in scored if g is label) for label in GOLD_LABELS}
    return {**tallies, ALL: _tally(o for _, o in scored)}


def _tally(marks: Iterable[Mark]) -> Tally:
    counts = Counter(marks)
    return Tally(
        items=counts.total(),
        correct=counts["correct"],
        unparseable=counts["unparseable"],
        missing=counts["missing"],
    )


def format_table(scores: Scores) -> str:
    """The scores as aligned plain text: one row per gold label, then all items and changed ones."""
    head = f"{'gold label':<14}" + "  items  correct      acc" * 2
    lines = [
        f"{'':<14}  {'original labels':<23}  {'refined labels':<23}".rstrip(),
        head,
    ]
    names = [label.value for label in GOLD_LABELS] + [ALL]
    for name in names:
        lines.append(f"{name:<14}{_cells(scores.original[name])}{_cells(scores.refined[name])}")
    lines.append(
        f"{'labels changed':<14}{_cells(scores.changed_original)}{_cells(scores.changed_refined)}"
    )
    lines.append("")
    counts = [
        ("unparseable predictions", scores.unparseable_ids, "counted wrong"),
        ("missing predictions", scores.missing_ids, "counted wrong"),
        ("unknown ids", scores.unknown_ids, "not scored"),
    ]
    if scores.subset != ALL:
        counts.append(("outside the subset", scores.outside_ids, "not scored"))
    if scores.duplicate_ids:
        counts.append(("duplicate predictions", scores.duplicate_ids, "first one counted"))
    if scores.bad_rows:
        counts.append(("unusable rows", scores.bad_rows, "not scored"))
    for title, ids, effect in counts:
        line = f"{title:<24}{len(ids):>6}"
        if ids:
            line += f"  {effect}: {_some(ids)}"
        lines.append(line)
    if scores.unlabeled:
        lines.append(f"{'items without a label':<24}{scores.unlabeled:>6}  not scored on that side")
    return "\n".join(lines)


def _cells(tally: Tally) -> str:
    accuracy = "-" if tally.accuracy is None else f"{tally.accuracy:.1%}"
    return f"  {tally.items:>5}  {tally.correct:>7}  {accuracy:>7}"


def _some(ids: Sequence[str]) -> str:
    """The first `SHOWN_IDS` ids, each cut to 80 characters (an id is the file's text)."""
    shown = ", ".join(i if len(i) <= 80 else i[:79] + "…" for i in ids[:SHOWN_IDS])
    return shown + (f" (+{len(ids) - SHOWN_IDS} more)" if len(ids) > SHOWN_IDS else "")


def read_predictions(path: Path) -> Predictions:
    """Read a predictions file (`.csv`, UTF-8 with or without BOM, or `.jsonl`).

    A file that cannot be read as a whole (malformed JSON line, no id or label column) raises
    `DataError` naming the file and line; a row without a usable id is recorded in `bad_rows`.
    """
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson"):
        raise DataError(f"{path}: predictions must be a .csv or .jsonl file")
    records = _csv_records(path) if suffix == ".csv" else _jsonl_records(path)
    if not records:
        raise DataError(f"{path}: no predictions")
    present = set().union(*(r for _, r in records))
    key = next((k for k in KEYS if k in present), None)
    if key is None or "label" not in present:
        what = "an id or example_id" if key is None else "a label"
        raise DataError(f"{path}: no row has {what} (found: {', '.join(sorted(present))})")
    items: list[Prediction] = []
    bad: list[str] = []
    for line, record in records:
        text = _key_text(record.get(key))
        if text is None:
            bad.append(f"line {line}: no {key}")
            continue
        raw = record.get("label")
        items.append(Prediction(text, normalize_gold_label(raw), raw, line))
    return Predictions(key=key, items=tuple(items), bad_rows=tuple(bad))


def _key_text(value: object) -> str | None:
    """An id as text: strings stripped, whole numbers as written; anything else is no id."""
    if isinstance(value, bool):
        return None  # JSON true is not an id
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _csv_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    # the BOM spreadsheet programs write is dropped: it would otherwise glue to "id"
    with io.StringIO(read_text_file(path, save_as="CSV UTF-8"), newline="") as f:
        reader = csv.reader(f)
        try:
            header = [name.strip() for name in next(reader, [])]
            records = []
            for cells in reader:
                if any(cell.strip() for cell in cells):
                    record = dict(zip(header, cells, strict=False))
                    records.append((reader.line_num, record))
        except csv.Error as err:
            raise DataError(f"{path}:{reader.line_num}: malformed CSV ({err})") from None
    if not header:
        raise DataError(f"{path}: empty file (expected a header row with id and label)")
    missing = [n for n in ("label",) if n not in header]
    if not any(k in header for k in KEYS):
        missing.insert(0, "id (or example_id)")
    if missing:
        raise DataError(
            f"{path}:1: header has no {' or '.join(missing)} column (columns: {', '.join(header)})"
        )
    return records


def _jsonl_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    records = []
    with io.StringIO(read_text_file(path)) as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise DataError(f"{path}:{number}: not valid JSON ({err.msg})") from None
            except RecursionError:  # json's decoder recurses once per [ or {
                raise DataError(f"{path}:{number}: JSON nested too deep") from None
            if not isinstance(record, dict):
                raise DataError(
                    f"{path}:{number}: expected a JSON object, got {type(record).__name__}"
                )
            records.append((number, record))
    return records
