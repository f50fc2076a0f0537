"""Provers behind one interface, and the pure label decision over their verdicts."""
