"""Critique and refiner agents: they diagnose and propose edits; only the gate accepts them."""
