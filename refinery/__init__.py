"""FOL Refinery: check, repair and publish first-order-logic reasoning benchmarks."""

__version__ = "0.1.0"
