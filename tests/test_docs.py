"""The documentation: the site builds with --strict, the README stays a front door, and
DEVELOPMENT.md keeps its two checklists.

The site is built into a temporary folder, never into the repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README_MAX_LINES = 250
#: Relative links in the repository-root documents: `[text](target)`, targets without a scheme.
LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s]+)\)")


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)]
        + ["--site-dir", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
        check=False,
    )


def test_site_builds_strict(tmp_path: Path) -> None:
    result = _build(REPO / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "benchmarks" / "index.html").is_file()


@pytest.mark.parametrize(
    ("page", "text"),
    [
        ("cli.md", "\n[a broken link](no-such-page.md)\n"),
        ("cli.md", "\n[a broken anchor](checking.md#no-such-heading)\n"),
        ("unlisted.md", "# A page the nav does not name\n"),
    ],
    ids=["broken-link", "broken-anchor", "page-missing-from-nav"],
)
def test_strict_build_fails_on(tmp_path: Path, page: str, text: str) -> None:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    with (tmp_path / "docs" / page).open("a", encoding="utf-8") as f:
        f.write(text)
    result = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0, result.stdout + result.stderr


def test_readme_is_a_front_door() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; the docs/ hold the rest"
    )
    for command in ("make run", "make test"):
        assert any(command in line for line in lines), command


@pytest.mark.parametrize("heading", ["Add a repair rule", "Add a finding kind"])
def test_development_has_checklist(heading: str) -> None:
    text = (REPO / "DEVELOPMENT.md").read_text(encoding="utf-8")
    match = re.search(rf"^#+ {re.escape(heading)}\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    assert match, f"DEVELOPMENT.md has no section '{heading}'"
    steps = re.findall(r"^\d+\. ", match.group(1), re.M)
    assert len(steps) >= 3, f"'{heading}' should be a numbered checklist"


@pytest.mark.parametrize("document", ["README.md", "DEVELOPMENT.md", "CHANGELOG.md"])
def test_relative_links_resolve(document: str) -> None:
    text = (REPO / document).read_text(encoding="utf-8")
    missing = [
        target for target in LINK.findall(text) if not (REPO / target.split("#", 1)[0]).exists()
    ]
    assert not missing, f"{document} links to missing files: {missing}"
