"""The `refinery` command line (click): one module per subcommand, gathered in one group.

This package is the composition root: the one place that wires the core (`refinery`) to the
prover backends (`vampire`) and to the flows. Each subcommand module has `command` (a
`click.Command` whose handler takes the values as one `Args` and returns the exit code) and
imports only click and light core modules at load time; the heavy work is imported inside the
handler, so `refinery --help` and the plain commands start fast, and none but `refine` and
`schedule` imports Prefect.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import warnings
from collections.abc import Sequence

import click

from refinery import lifeline
from refinery.cli import check, lint, publish, refine, rescore, review, schedule
from refinery.cli.options import Group
from refinery.errors import RefineryError
from refinery.outputs import visible

#: The environment variable a shell's completion script sets when it asks for completions.
COMPLETE_VAR = "_REFINERY_COMPLETE"
SHELLS = ("bash", "zsh", "fish")


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("fol-refinery")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"refinery {_version()}")
        ctx.exit()


@click.command("completion", short_help="print the shell completion script (bash, zsh, fish)")
@click.argument("shell", type=click.Choice(SHELLS))
def _completion(shell: str) -> int:
    """Print the shell completion script for SHELL.

    \b
    bash: eval "$(refinery completion bash)"   (in ~/.bashrc)
    zsh:  eval "$(refinery completion zsh)"    (in ~/.zshrc)
    fish: refinery completion fish > ~/.config/fish/completions/refinery.fish
    """
    from click.shell_completion import get_completion_class

    complete = get_completion_class(shell)
    assert complete is not None  # click knows every name in SHELLS
    click.echo(complete(cli, {}, "refinery", COMPLETE_VAR).source())
    return 0


#: Every subcommand, in the order `refinery --help` lists them.
COMMANDS = (
    check.command,
    lint.command,
    refine.command,
    review.command,
    publish.command,
    rescore.command,
    schedule.command,
    _completion,
)

cli = Group(
    "refinery",
    help="Find and fix errors in first-order-logic reasoning benchmarks.",
    epilog="Exit codes: 0 done; 1 the data fails a gate you asked for (check --fail-on, "
    "refine --fail-on-new-conflicts); 2 bad input or usage (one line on stderr). Every long "
    "option also reads REFINERY_<OPTION> from the environment.",
    commands=COMMANDS,
    params=[
        click.Option(
            ["--version"],
            is_flag=True,
            expose_value=False,
            is_eager=True,
            callback=_show_version,
            help="Show the version and exit.",
        )
    ],
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


#: Exit codes of an interrupted run, as a shell reports a process killed by the signal.
INTERRUPTED, TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; an error is one line on stderr, an interrupt one line and 130 (143)."""
    instruction = os.environ.get(COMPLETE_VAR)
    if instruction:  # a shell asking for completions, through the script `completion` prints
        from click.shell_completion import shell_complete

        return shell_complete(cli, {}, "refinery", COMPLETE_VAR, instruction)
    from vampire.run import kill_running

    if kill_running not in lifeline.on_interrupt:
        lifeline.on_interrupt.append(kill_running)
    try:
        with lifeline.signals_raise():
            return _invoke(list(sys.argv[1:] if argv is None else argv))
    except BaseException as exc:
        if not (lifeline.stopping or isinstance(exc, KeyboardInterrupt)):
            if isinstance(exc, RefineryError):
                print(f"refinery: error: {visible(str(exc))}", file=sys.stderr)
                return 2
            if isinstance(exc, OSError) and exc.errno in _REFUSED_WRITES:
                print(f"refinery: error: {visible(_refused(exc))}", file=sys.stderr)
                return 2
            raise
        # stopped by a signal (whatever the run raised on its way out is that signal's echo);
        # what the caches hold stays: every write is a finished transaction
        lifeline.interrupted()
        # the run's abandoned coroutines (Prefect's crash handling, cut short by the signal)
        # are collected with the traceback: no "never awaited" warning after the one line
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        # the first signal counts: a library may answer Ctrl-C by sending itself SIGTERM
        first = lifeline.stopping or (signal.SIGTERM if isinstance(exc, lifeline.Terminated) else 0)
        terminated = first == signal.SIGTERM
        print(f"refinery: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return TERMINATED if terminated else INTERRUPTED
    finally:
        if lifeline.stopping:
            lifeline.quiet_until_now()


#: What a file system answers a write it refuses: full, over quota, read-only, not allowed.
#: Every writer builds aside and renames, so the files it replaces are as they were.
_REFUSED_WRITES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})


def _refused(exc: OSError) -> str:
    """`exc` as one line: the file the system refused, and why.

    >>> _refused(OSError(errno.ENOSPC, "No space left on device", "out/refined.jsonl"))
    'the file system refused out/refined.jsonl: No space left on device; no file was half-written'
    """
    where = f" {exc.filename}" if exc.filename else ""
    return f"the file system refused{where}: {exc.strerror or exc}; no file was half-written"


def _invoke(argv: list[str]) -> int:
    """Parse `argv` and run its command; a usage error is one line and exit code 2."""
    try:
        with cli.make_context("refinery", argv) as ctx:
            return int(cli.invoke(ctx) or 0)
    except click.exceptions.Exit as done:  # --help, --version
        return done.exit_code
    except click.exceptions.NoArgsIsHelpError as bare:  # `refinery` alone: the help
        click.echo(bare.ctx.get_help() if bare.ctx else "", err=True)
        return 2
    except click.UsageError as err:
        where = err.ctx.command_path if err.ctx else "refinery"
        print(f"{where}: error: {err.format_message()}", file=sys.stderr)
        return err.exit_code


def run() -> None:
    """The `refinery` executable: `main`, and after an interrupt an exit that waits for nothing.

    Threads still busy (a prover call in a task thread) would hold up a normal exit; everything
    the run started is stopped by then, and what it wrote is complete or not there at all.
    """
    code = main()
    if code in (INTERRUPTED, TERMINATED):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
