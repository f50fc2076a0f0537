"""The run report: `report.md`, `report.html` and their figures.

- `data`: what the report says, as typed records (counts, tables, items, edits, history);
- `diff`: what changed inside a formula (token segments, a unified diff);
- `figures`: the charts as PNG bytes;
- `render`: the Jinja2 templates in `templates/` rendered and the files written.
"""

from refinery.report.render import run_history, write_report

__all__ = ["run_history", "write_report"]
