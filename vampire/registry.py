"""Name → TPTP prover backend, and the default TPTP prover.

This module owns which external provers the product knows. It stays import-light: building a
backend only resolves its binary (no subprocess, no z3 import).
"""

from __future__ import annotations

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
