"""The exception hierarchy: everything FOL Refinery raises derives from `RefineryError`.

Exceptions are for bugs, misconfiguration and missing tools. Bad *data* (a formula that does not
parse, a malformed row) is recorded as an `Issue` or a load error and never aborts a batch.
"""

from __future__ import annotations


class RefineryError(Exception):
    """Root of every exception FOL Refinery raises on purpose."""


class ConfigError(RefineryError, ValueError):
    """A setting or command-line option has a value the product cannot use."""


class DataError(RefineryError, ValueError):
    """A whole input (file, URL) cannot be read at all; single bad rows are recorded instead."""


class LLMTransportError(RefineryError, ConnectionError):
    """The LLM endpoint could not be reached, timed out or failed transiently: worth a retry.

    A bad *reply* is not one: it is recorded in the audit trail and the item goes on.
    """


class ProverUnavailable(RefineryError):
    """A prover backend was asked for but its binary or library is not installed."""


class UnsupportedNode(RefineryError, TypeError):
    """A translation met an AST node it has no rule for; keeps the node and the backend name."""

    def __init__(self, node: object, backend: str) -> None:
        super().__init__(f"{backend}: unsupported node {type(node).__name__}: {node!r}")
        self.node = node
        self.backend = backend
