"""`refinery review status|work|serve|check|apply|split|merge|recover|agreement`: the annotators'
commands.

None of them imports Prefect or great-expectations, so they start at once. The queue defaults to
the only `review/*.csv` (shards excluded); with several, pass `--queue`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from refinery import config
from refinery.cli.options import PATH, Args, Group, make_command, option, prover_options
from refinery.errors import RefineryError


def _queues() -> list[Path]:
    """The queues under review/ (a shard a reviewer works on alone is not one)."""
    return sorted(p for p in Path("review").glob("*.csv") if ".shard-" not in p.name)


def _queue(args: Args) -> Path:
    if args.queue:
        if not args.queue.is_file():
            raise RefineryError(f"no review queue at {args.queue}")
        return Path(args.queue)
    found = _queues()
    if len(found) == 1:
        return found[0]
    if not found:
        raise RefineryError("no review/*.csv; run `refinery refine` first or pass --queue")
    raise RefineryError(
        "several queues in review/; pass --queue one of: " + ", ".join(map(str, found))
    )


def _engine(args: Args) -> Any:
    from refinery.prove.verdict import Budget
    from refinery.review.feedback import FeedbackEngine
    from vampire.registry import build_provers, resolve_names

    names = resolve_names(args.provers.split(","))
    cache = config.state_dir() / "cache" / "verdicts.sqlite"
    return FeedbackEngine(build_provers(names), Budget(seconds=args.budget), cache)


def _status(args: Args) -> int:
    """Counts by reason, decision, reviewer and flag; what is left."""
    from refinery.review.journal import journal_gaps
    from refinery.review.ledger import queue_status
    from refinery.review.sheet import last_written, read_queue

    def summary(queue: Path) -> dict[str, dict[str, int]]:
        rows = read_queue(queue)
        status = queue_status(rows)
        total = status["total"]
        print(
            f"{queue}: {total.get('items', 0)} items, {total.get('decided', 0)} decided, "
            f"{total.get('left', 0)} left"
        )
        lost, wrote = journal_gaps(queue, rows), last_written(queue)[1]
        if lost or len(rows) < wrote:
            print(
                f"  warning: {len(rows)} rows where FOL Refinery last wrote {wrote}, "
                f"{len(lost)} journaled decision(s) missing: another program changed the queue; "
                f"`refinery review recover --queue {queue}` puts them back"
            )
        return status

    if not args.queue and len(_queues()) > 1:
        # several queues: a line each, where every other command needs --queue to pick one
        for queue in _queues():
            summary(queue)
        print("pass --queue for one queue's counts by reason, decision, reviewer and flag")
        return 0
    status = summary(_queue(args))
    for table in ("reason", "decision", "reviewer", "flag"):
        if status[table]:
            print(f"by {table}:")
            for key, n in sorted(status[table].items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"  {key:<32} {n:>6}")
    return 0


def _reviewer(args: Args) -> str:
    import getpass

    # --reviewer reads $REFINERY_REVIEWER itself (`option`)
    return str(args.reviewer or getpass.getuser())


def _work(args: Args) -> int:
    """Decide items one at a time in the terminal."""
    from refinery.review.terminal import ReviewSession

    queue = _queue(args)
    reviewer = _reviewer(args)
    session = ReviewSession(
        queue,
        _engine(args),
        reviewer=reviewer,
        reasons=args.reason,
        include_decided=args.all,
    )
    session.run()
    return 0


def _serve(args: Args) -> int:
    """Decide items in the browser: a local page with live prover feedback."""
    import secrets

    from refinery.review.web.app import serve

    # a token by default: any local user can reach 127.0.0.1, and would decide as you
    token = None if args.no_token else (args.token or secrets.token_urlsafe(16))
    queue = _queue(args)
    serve(
        queue.resolve(),
        _engine(args),
        reviewer=_reviewer(args),
        host=args.host,
        port=args.port,
        token=token,
        announce=lambda line: print(line, flush=True),
    )
    return 0


def _check(args: Args) -> int:
    """Validate a queue edited in a spreadsheet (FILE, default: --queue); exit 1 on problems."""
    from refinery.review.decide import check_queue
    from refinery.review.seal import queue_key
    from refinery.review.sheet import read_queue_lines

    path = args.file or _queue(args)
    lines = read_queue_lines(path)
    tool_rows, run_id = None, ""
    if args.run:  # the run the queue came from: an edited tool-owned cell is named with its value
        from refinery import runs
        from refinery.review.queue import queue_row

        run = runs.load_run(args.run)
        tool_rows, run_id = {o.id: queue_row(o) for o in run.outcomes}, run.run_id
    key = queue_key(config.state_dir())
    problems, valid = check_queue(lines, _engine(args), tool_rows=tool_rows, run_id=run_id, key=key)
    for problem in problems:
        print(problem.render(str(path)))
    decided = sum(1 for entry in lines if entry.item.decision.strip())
    print(
        f"{path}: {len(lines)} rows, {decided} decided, {len(valid)} valid, "
        f"{len({p.item_id for p in problems})} with problems"
    )
    return 1 if problems else 0


def _apply(args: Args) -> int:
    """Merge valid decisions into the refined split as a new version."""
    from refinery import runs
    from refinery.review.apply import apply_review
    from refinery.review.seal import queue_key
    from refinery.review.sheet import read_queue

    queue = _queue(args)
    if args.run:
        run = runs.load_run(args.run)
    else:
        rows = read_queue(queue)
        if not rows:
            raise RefineryError(f"{queue} is empty")
        base = Path(config.DEFAULT_RUNS_DIR) / rows[0].dataset / rows[0].split
        folders = runs.run_folders(base)
        if not folders:
            raise RefineryError(f"no run folder under {base}; pass --run")
        run = runs.load_run(folders[-1])
    key = queue_key(config.state_dir())
    applied = apply_review(queue, run, _engine(args), reviewer=args.reviewer, key=key)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(applied.decisions.items())) or "none"
    print(f"applied to run {applied.parent}: {counts}")
    print(f"  labels changed: {applied.changed_labels}; FOL changed: {applied.changed_fol} items")
    print(f"  new version: {applied.run_dir}")
    return 0


def _split(args: Args) -> int:
    """Split the queue into SHARDS shards by story, one per annotator."""
    from refinery.review.shards import manifest_path, split_queue

    queue = _queue(args)
    for path in split_queue(queue, args.shards, args.out, overlap=args.overlap):
        print(path)
    print(f"manifest: {manifest_path(queue)}")
    return 0


def _merge(args: Args) -> int:
    """Merge SHARD files back into the queue; conflicts are flagged, not lost (exit 1)."""
    from refinery.review.shards import format_conflicts, merge_shards

    queue = _queue(args)
    missing = [str(p) for p in args.shard_files if not p.is_file()]
    if missing:
        raise RefineryError(f"no such shard: {', '.join(missing)}")
    result = merge_shards(queue, args.shard_files)
    print(f"{queue}: {len(result.taken)} decision(s) merged from shards")
    for shard, item_id in result.unknown:
        print(f"  {shard}: {item_id} is not in the queue; ignored")
    if result.conflicts:
        print(format_conflicts(result))
        print(
            f"{len(result.conflicts)} conflict(s) flagged merge_conflict in {queue}: settle each "
            "decision there and clear the flag"
        )
        return 1
    return 0


def _recover(args: Args) -> int:
    """Put back the rows and decisions the queue lost, from its decision journal."""
    from refinery.review.journal import journal_path, recover

    queue = _queue(args)
    if not journal_path(queue).is_file():
        raise RefineryError(f"no decision journal beside {queue}: nothing to recover from")
    done = recover(queue)
    print(
        f"{queue}: {len(done.rows)} row(s) and {len(done.decisions)} decision(s) put back "
        "from the journal"
    )
    for item_id in done.differ:
        print(f"  {item_id}: the queue holds another decision than the journal's; left as it is")
    return 0


def _agreement(args: Args) -> int:
    """How often two annotators agree on the items they share (default: the split's shards)."""
    from refinery.review.agreement import measure_agreement
    from refinery.review.shards import shard_files

    shards = list(args.shard_files) or shard_files(_queue(args))
    missing = [str(p) for p in shards if not p.is_file()]
    if not shards or missing:
        raise RefineryError(
            f"no such shard: {', '.join(missing)}"
            if missing
            else "no shards: name them, or split the queue with --overlap first"
        )
    print(measure_agreement(shards).render())
    return 0


def _subcommand(name: str, handler: Any, *params: Any, provers: bool = False) -> click.Command:
    """A `review` subcommand: --queue, the prover options where it proves, then its own."""
    queue = option("--queue", type=PATH, help="review CSV (default: the only review/*.csv)")
    shared = [queue, prover_options(workers=False)] if provers else [queue]
    return make_command(name, handler, *shared, *params)


_REVIEWER = option("--reviewer", help="your name (default: $USER)")

command = Group(
    "review",
    help="Work the review queue. The queue defaults to the only review/*.csv (shards excluded); "
    "with several, pass --queue.",
    short_help="work the review queue: status, work, serve, check, apply, split, merge, "
    "recover, agreement",
    commands=[
        _subcommand("status", _status),
        _subcommand(
            "work",
            _work,
            _REVIEWER,
            option("--reason", multiple=True, help="only items with this reason (repeatable)"),
            option("--all", is_flag=True, help="also show items already decided"),
            provers=True,
        ),
        _subcommand(
            "serve",
            _serve,
            _REVIEWER,
            option("--host", default="127.0.0.1", show_default=True, help="address to listen on"),
            option("--port", type=int, default=8765, show_default=True, help="0 picks a free port"),
            option(
                "--token",
                is_flag=False,
                flag_value="",
                help="the token every request must carry (default: a random one, in the "
                "printed address)",
            ),
            option(
                "--no-token",
                is_flag=True,
                help="no token (127.0.0.1 only): any user of this machine can then decide as you",
            ),
            provers=True,
        ),
        _subcommand(
            "check",
            _check,
            click.argument("file", required=False, type=PATH),
            option(
                "--run",
                type=PATH,
                help="the run folder the queue came from: an edited tool-owned cell is named",
            ),
            provers=True,
        ),
        _subcommand(
            "apply",
            _apply,
            option("--run", type=PATH, help="run folder to start from (default: newest)"),
            option("--reviewer", default="", help="reviewer for rows that name none"),
            provers=True,
        ),
        _subcommand(
            "split",
            _split,
            click.argument("shards", type=int),
            option("--out", type=PATH, help="folder for the shards (default: beside the queue)"),
            option(
                "--overlap",
                type=int,
                default=0,
                metavar="K",
                help="also give K items to a second annotator, for `review agreement`",
            ),
        ),
        _subcommand(
            "merge",
            _merge,
            click.argument("shard_files", nargs=-1, required=True, type=PATH, metavar="SHARD..."),
        ),
        _subcommand("recover", _recover),
        _subcommand(
            "agreement",
            _agreement,
            click.argument("shard_files", nargs=-1, type=PATH, metavar="[SHARD]..."),
        ),
    ],
)
