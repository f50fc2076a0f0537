"""Prefect flows: one per stage, reading like a script over the tasks."""
