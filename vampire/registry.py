"""Name → TPTP prover backend, and the default TPTP prover.

This module owns which external provers the product knows. It stays import-light: building a
backend only resolves its binary (no subprocess, no z3 import).
"""

from __future__ import annotations

from collections.abc import Sequence

from refinery.errors import ConfigError, ProverUnavailable
from refinery.prove.verdict import Prover
from vampire.backends import EProver, VampireProver


def tptp_backends() -> dict[str, Prover]:
    """Every TPTP backend by name, available or not; ask each `available()` before use."""
    backends: list[Prover] = [EProver(), VampireProver()]
    return {backend.name: backend for backend in backends}


def default_tptp_prover() -> Prover:
    """Vampire when its binary is found, else E (which may itself be unavailable)."""
    vampire = VampireProver()
    return vampire if vampire.available() else EProver()


#: Names accepted on the command line; "tptp" stands for the default TPTP prover.
KNOWN = ("z3", "eprover", "vampire", "tptp")


def resolve_names(names: Sequence[str]) -> list[str]:
    """Validate prover names and resolve the alias "tptp" to "vampire" or "eprover".

    >>> resolve_names(["z3", "eprover"])
    ['z3', 'eprover']
    """
    out: list[str] = []
    for raw in names:
        name = raw.strip().lower()
        if name not in KNOWN:
            raise ConfigError(f"unknown prover {raw!r}; choose from {', '.join(KNOWN)}")
        if name == "tptp":
            name = default_tptp_prover().name
        if name not in out:
            out.append(name)
    if not out:
        raise ConfigError("no prover selected")
    return out


def build_provers(names: Sequence[str]) -> list[Prover]:
    """Construct the named provers (after `resolve_names`); raises if one is unavailable or a
    TPTP binary fails its start-up probe (`EProver.probe`: once per binary per process).

    A picklable module-level function, so worker processes can build their own provers.
    """
    provers: list[Prover] = []
    for name in resolve_names(names):
        prover: Prover
        if name == "z3":
            from refinery.prove.z3_backend import Z3Prover  # z3 is imported only when asked for

            prover = Z3Prover()
        else:
            prover = tptp_backends()[name]
        if not prover.available():
            raise ProverUnavailable(f"prover {name!r} is not available on this machine")
        probe = getattr(prover, "probe", None)  # the TPTP backends; z3 runs in-process
        if probe is not None:
            probe()
        provers.append(prover)
    return provers
