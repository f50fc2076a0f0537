"""How fast a run's report is written and opens in a browser, at a split's size and ten times it.

    python benchmarks/bench_report.py --run data/refined/folio-v2/train/<run> [--times 10]

Reads the run folder's `outcomes.jsonl`, writes the report as refine does (its edits from the
outcomes; `--times K` repeats every item K times under new ids, so a real split stands in for a
larger one), then opens `report.html` in headless Chromium (Debian's, or $REFINERY_CHROMIUM)
three times at 1,000 and 1,400 px and prints: the file's size, the write time, each load time
(until the `load` event), the page's height and whether anything is wider than the window.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import time
from pathlib import Path

from refinery.outcomes import Outcome, edit_rows
from refinery.report import write_report

CHROMIUM = Path(os.environ.get("REFINERY_CHROMIUM", "/usr/bin/chromium"))


def _outcomes(run: Path, times: int) -> list[Outcome]:
    read = [Outcome.from_dict(json.loads(line)) for line in (run / "outcomes.jsonl").open()]
    if times == 1:
        return read
    return [dataclasses.replace(o, id=f"{o.id}#{k}") for k in range(1, times + 1) for o in read]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a refine run folder")
    parser.add_argument("--times", type=int, default=1, help="repeat every item this many times")
    args = parser.parse_args()
    outcomes = _outcomes(args.run, args.times)
    meta = json.loads((args.run / "run.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        paths = write_report(
            Path(tmp),
            outcomes=outcomes,
            edits=edit_rows(outcomes),
            validations={},
            meta={"run_id": meta.get("run_id", ""), "source": meta.get("source", "")},
        )
        wrote = time.perf_counter() - started
        size = paths["html"].stat().st_size
        print(f"{len(outcomes)} items: report.html {size / 1e6:.1f} MB, written in {wrote:.2f} s")
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
            )
            for width in (1000, 1400):
                loads, height, wide = [], 0, False
                for _ in range(3):
                    page = browser.new_page(viewport={"width": width, "height": 900})
                    started = time.perf_counter()
                    page.goto(paths["html"].as_uri(), wait_until="load", timeout=120_000)
                    loads.append(time.perf_counter() - started)
                    height = page.evaluate("document.documentElement.scrollHeight")
                    wide = page.evaluate("document.documentElement.scrollWidth > innerWidth + 1")
                    page.close()
                shown = ", ".join(f"{t:.2f}" for t in loads)
                print(f"  {width} px: loads in {shown} s; {height:,} px tall; too wide: {wide}")
            browser.close()


if __name__ == "__main__":
    main()
