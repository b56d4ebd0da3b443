"""The README cannot drift: its generated sections match the code, and the commands it shows
for running experiments work as shown."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from .conftest import REPO

README = (REPO / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def test_generated_sections_are_current():
    r = subprocess.run([sys.executable, "scripts/gen_readme.py", "--check"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]


def test_validation_example_is_what_validate_prints():
    block = re.search(r"```\n\$ \.venv/bin/harness validate (\S+)\n(.*?)```", README, re.S)
    r = subprocess.run(
        [sys.executable, "-m", "harness", "validate", block.group(1)], cwd=REPO, capture_output=True, text=True
    )
    assert r.returncode == 2
    assert r.stderr == block.group(2)


def test_experiment_commands_run():
    commands = []
    for title in ("Running experiments", "Reproducing Cranfield"):
        for block in re.findall(r"```sh\n(.*?)```", section(title), re.S):
            commands += [
                line.split("#")[0].split() for line in block.splitlines() if line.startswith(".venv/bin/harness")
            ]
    assert len(commands) >= 4
    for argv in commands:
        r = subprocess.run(
            [sys.executable, "-m", "harness", *argv[1:]],
            cwd=REPO,
            capture_output=True,
            text=True,
            env=os.environ.copy(),
            timeout=900,
        )
        assert r.returncode == 0, (argv, r.stderr[-2000:])
