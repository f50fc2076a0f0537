"""`refinery publish`: build a Hub-ready dataset folder from a run, and push it with ``--push``.

Without ``--push`` it only writes the folder (default ``data/published/<owner>/<name>/``, see
`refinery.publish`) and prints the release's changes and the exact commit a push would make.
With ``--push`` it also sends that commit and tags it; the token comes from ``HF_TOKEN`` or the
saved Hugging Face login.
"""

from __future__ import annotations

import re

import click

from refinery.cli.options import PATH, Args, make_command, option

# The Hub's OWNER/NAME, matched whole (fullmatch, ASCII): no newline, space or control character
# may ride along into a folder name or an upload.
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*", re.ASCII)


def repo_id(ctx: click.Context | None, param: click.Parameter | None, text: str) -> str:
    """`--repo-id`'s value, refused at parse time unless it is a Hub id ``OWNER/NAME``.

    >>> repo_id(None, None, "owner/name")
    'owner/name'
    """
    if not _REPO_ID.fullmatch(text) or ".." in text or "--" in text or len(text) > 96:
        raise click.BadParameter(
            f"{text!r} is not a Hub repository id: expected OWNER/NAME of letters, digits, "
            "'-', '_' and '.'"
        )
    return text


def run(args: Args) -> int:
    """Build a Hub-ready dataset folder from RUN_DIR, a refine or review run folder.

    The folder has the refined, clean and changes configs and the dataset card. Without --push
    nothing is uploaded: the command prints the release's changes and the commit a push would
    make.
    """
    from refinery import publish
    from refinery.runs import load_run

    out = args.out or publish.default_out(args.repo_id)
    built = publish.build(
        load_run(args.run_dir),
        out,
        repo_id=args.repo_id,
        license_name=args.license,
        previous=args.previous,
        tag=args.tag,
        allow_missing_decisions=args.allow_missing_decisions,
    )
    plan = publish.plan_push(out, tag=args.tag)
    print("\n".join(publish.summary_lines(built, plan)))
    if not args.push:
        print("dry run: nothing was uploaded (add --push to publish)")
        return 0
    commit = publish.push(publish.hub_api(), plan)
    publish.record_push(out, plan, commit)
    print(f"pushed {plan.repo_id} {plan.tag}: {commit}")
    return 0


command = make_command(
    "publish",
    run,
    click.argument("run_dir", type=PATH, metavar="RUN_DIR"),
    option("--repo-id", required=True, callback=repo_id, help="Hub dataset repository, OWNER/NAME"),
    option("--out", type=PATH, help="publish folder (default: data/published/<OWNER>/<NAME>)"),
    option(
        "--previous",
        type=PATH,
        help="publish folder of the previous release (default: the last push from --out)",
    ),
    option("--license", help="Hub license id (default: the License: line beside the source)"),
    option("--tag", help="release tag (default: v<version>)"),
    option("--push", is_flag=True, help="upload to the Hub as one commit, then tag it"),
    option(
        "--allow-missing-decisions",
        is_flag=True,
        help="publish even if the run lacks review decisions its queue holds",
    ),
    short_help="build a Hub-ready dataset folder (refined, clean and changes configs; card)",
)
