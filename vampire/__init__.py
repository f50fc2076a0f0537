"""TPTP prover backends (E and Vampire): problem files, a subprocess runner and SZS parsing.

Everything here talks to external prover binaries; the logic itself lives in `refinery`.
"""
