"""The command line and the Python API are adapters over the same verbs: on the same inputs they
hold the same lock, run the same checks and warn the same way."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import harness
from harness.cli import main
from harness.errors import DataError, HarnessWarning

from .conftest import REPO, demo_config

PROBE = """
import sys
from harness.folders import locked
with locked(sys.argv[1], blocking=False) as got:
    print("free" if got else "held")
"""


class Stop(Exception):
    pass


@pytest.mark.parametrize("door", ["cli", "api"])
def test_run_holds_the_output_lock_while_the_experiment_runs(tmp_path, monkeypatch, door):
    import harness.experiment.execute

    cfg = demo_config(tmp_path)
    seen = []

    def probe(cfg, on=None):
        out = subprocess.run([sys.executable, "-c", PROBE, str(cfg.output)], capture_output=True, text=True, check=True)
        seen.append(out.stdout.strip())
        raise Stop

    monkeypatch.setattr(harness.experiment.execute, "session", probe)
    with pytest.raises(Stop):
        if door == "cli":
            main(["--debug", "run", str(cfg)])
        else:
            harness.run(cfg)
    assert seen == ["held"]
    after = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "report")], capture_output=True, text=True)
    assert after.stdout.strip() == "free"


def _swapped(tmp_path: Path) -> tuple[Path, Path]:
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    qrels.write_text("1 0 a 1\n")
    return run, qrels


def test_swapped_arguments_are_the_same_error_from_both_doors(tmp_path, capsys):
    run, qrels = _swapped(tmp_path)
    assert main(["evaluate", str(qrels), str(run), "-m", "AP"]) == 2
    cli = capsys.readouterr().err
    with pytest.raises(DataError) as e:
        harness.evaluate(qrels, run, "AP")
    assert str(e.value) in cli
    assert "the order is RUN QRELS" in str(e.value)


def test_a_run_sharing_no_judged_id_warns_from_both_doors(tmp_path, capsys):
    run, qrels = _swapped(tmp_path)
    qrels.write_text("1 0 zzz 1\n")
    assert main(["evaluate", str(run), str(qrels), "-m", "AP"]) == 0
    cli = capsys.readouterr()
    assert cli.out == "AP\tall\t0.0000\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HarnessWarning)
        _, means = harness.evaluate(run, qrels, "AP")
    [w] = [w for w in caught if issubclass(w.category, HarnessWarning)]
    assert str(w.message) in cli.err and "none of its document ids is judged" in str(w.message)
    assert means.loc["run", "AP"] == 0.0


@pytest.mark.java
def test_lab_has_a_python_entry_point_with_the_cli_numbers(tmp_path, monkeypatch):
    """verbs.lab.lab on the README's dirichlet example equals what `harness lab` prints."""
    from harness.verbs.lab import LabRequest, lab
    from harness.verbs.similarity import parse_similarity

    monkeypatch.setenv("HARNESS_INDEXES", str(tmp_path / "indexes"))
    monkeypatch.chdir(REPO)
    req = LabRequest(
        "corpora",
        ["language model", "query likelihood"],
        parse_similarity("dirichlet", {"mu": 2000}),
        5,
        relevance=["language model:1,1,0,0,0", "query likelihood:1,0,1,0,0"],
    )
    out = lab(req)
    golden = (REPO / "tests" / "golden" / "demo" / "lab-dirichlet.stdout").read_text()
    assert out.convention == "lab" and out.judged == 2
    line = next(x for x in golden.splitlines() if x.startswith("mean over"))
    assert line == "mean over 2 judged queries: " + "  ".join(f"{m}={v:.4f}" for m, v in out.means.items())


@pytest.mark.java
def test_a_run_cache_file_that_cannot_be_written_fails_the_run_with_no_report(tmp_path, monkeypatch, capsys):
    """The searched runs are written to the cache on a background thread while the run verb
    goes on (evaluation, the explorer's documents): a write that fails there (here a full disk)
    still fails the run, from both doors, before any report is written, and the cache keeps
    nothing of it."""
    import errno

    import harness.experiment.cache as cache

    real = cache.store_run

    def full(path, run, tag, *times, **kw):  # the times of the search, when searched
        real(path, run, tag, *times, **kw)
        Path(path).unlink()  # as the atomic writer leaves it: nothing
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(cache, "store_run", full)
    cfg = demo_config(tmp_path)
    assert main(["run", str(cfg)]) == 3
    assert "No space left on device" in capsys.readouterr().err
    assert not (tmp_path / "report").exists()
    with pytest.raises(OSError) as e:
        harness.run(cfg)
    assert e.value.errno == errno.ENOSPC and not (tmp_path / "report").exists()
    assert not list((tmp_path / "index" / "harness-runs").glob("*.trec"))
    monkeypatch.setattr(cache, "store_run", real)
    assert main(["run", str(cfg)]) == 0  # once there is room, the run works
    assert len(list((tmp_path / "index" / "harness-runs").glob("*.trec"))) == 5


@pytest.mark.java
def test_the_experiment_returns_with_every_run_file_written(tmp_path):
    from harness.config import load_config
    from harness.experiment.execute import run_experiment

    result = run_experiment(load_config(demo_config(tmp_path)))
    assert all(r.path.stat().st_size > 0 for r in result.runs)
