"""The README and docs/ as the tests read them: one reader of sections for every test that runs
or checks what the documentation shows."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _headings(text: str) -> list[tuple[int, int, str]]:
    """(offset, level, title) of every Markdown heading outside fenced code blocks."""
    out, fenced, offset = [], False, 0
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            marks = len(line) - len(line.lstrip("#"))
            if line[marks : marks + 1] == " ":
                out.append((offset, marks, line[marks + 1 :].strip()))
        offset += len(line)
    return out


def section(title: str, level: int = 2) -> str:
    """The text of the ``## title`` (or ``### title``) section, wherever it is: from its heading
    to the next heading of the same level or higher (code blocks are not headings)."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        heads = _headings(text)
        for i, (start, lvl, name) in enumerate(heads):
            if lvl == level and name == title:
                end = next((o for o, lv, _ in heads[i + 1 :] if lv <= level), None)
                return text[start:end]
    raise AssertionError(f"no section {'#' * level} {title!r} in README.md or docs/")


def page_of(title: str, level: int = 2) -> Path:
    mark = "#" * level + " " + title + "\n"
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if text.startswith(mark) or "\n" + mark in text:
            return page
    raise AssertionError(f"no section {mark.strip()!r}")


def commands(title: str) -> list[str]:
    """The commands of the section's ```sh blocks, continuation lines joined."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", section(title), re.S):
        for cmd in block.replace("\\\n", " ").splitlines():
            if cmd.strip():
                out.append(cmd.strip())
    return out
