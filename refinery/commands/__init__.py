"""Subcommands of `refinery` beyond check/lint/refine, one module each.

Every module exposes `register(subparsers)`, which adds its parser and sets `handler` (a function
of the parsed arguments returning the exit code). Modules import only argparse at load time: the
heavy work is imported inside the handler, so `refinery --help` and plain commands start fast.
"""
