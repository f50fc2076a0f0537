"""Thin Prefect tasks: each wraps one core function and returns plain, serialisable values."""
