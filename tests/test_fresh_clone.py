"""The README's demo command on a fresh clone: a new HOME, a new .venv installed from the
package registries, nothing from this checkout's environment. This is what a new user runs, here
with PYTHONDONTWRITEBYTECODE set (as on many CI machines and in containers): Python then writes
no bytecode itself, and set-up's scripts/bytecode.py must have written it for what the harness
imports, or every process compiles pandas, pyarrow and the rest again (1.4 s of CPU for a
command refusing a bad config, against 0.48 s)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import REPO


def test_make_demo_from_a_fresh_clone(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON", "JAVA_HOME", "PIP_"))}
    # A new HOME hides pyenv's default root, so name this interpreter's own Python explicitly.
    env.update(HOME=str(home), PYTHON=getattr(sys, "_base_executable", sys.executable), PIP_NO_CACHE_DIR="1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    r = subprocess.run(["make", "demo"], cwd=clone, env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    report = clone / "reports" / "demo"
    summary = json.loads((report / "summary.json").read_text())
    runs = [row["run"] for row in summary["runs"]]  # each run's name, then the spec it stands for
    assert list(zip(runs, (row["spec"] for row in summary["runs"]))) == [
        ("bm25", "bm25(k1=0.9,b=0.4)"),
        ("dirichlet mu=500", "dirichlet(mu=500)"),
        ("dirichlet mu=1000", "dirichlet(mu=1000)"),
        ("dirichlet mu=2000", "dirichlet(mu=2000)"),
        ("jm", "jm(lambda=0.1)"),
    ]
    assert all(0 < row["AP"] <= 1 for row in summary["runs"])
    files = ["bm25.trec", "dirichlet_mu=500.trec", "dirichlet_mu=1000.trec", "dirichlet_mu=2000.trec", "jm.trec"]
    described = [f.removesuffix(".trec") + ".ir-metadata.yml" for f in files]  # each run's ir_metadata beside it
    assert sorted(p.name for p in (report / "runs").iterdir()) == sorted(files + described)
    manifest = json.loads((report / "manifest.json").read_text())
    assert manifest["index"]["stats"]["documents"] == len(list((clone / "corpora" / "sample_docs").glob("*.txt")))
    assert Path(manifest["index"]["path"]).is_relative_to(clone / "indexes")
    assert "| bm25 |" in r.stdout  # the summary table is printed
    site = next((clone / ".venv" / "lib").glob("python3*/site-packages"))
    modules = [
        site / m for m in ("numpy/__init__.py", "pandas/core/frame.py", "pyarrow/parquet/core.py", "jnius/reflect.py")
    ]
    modules += [site / "scipy" / "stats" / "__init__.py", clone / "harness" / "cli" / "__init__.py"]
    assert [m for m in modules if not Path(importlib.util.cache_from_source(m)).exists()] == []
    assert not (home / ".ir_datasets").exists()  # bytecode.py leaves ir_datasets, which makes it, alone
