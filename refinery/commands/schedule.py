"""`refinery schedule`: (being built)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser("schedule", help="(being built)")
    parser.set_defaults(handler=lambda args: 2)
