"""Run files that share a name (issue 47: `harness compare a/runs/bm25.trec b/runs/bm25.trec
--baseline bm25` said "'bm25' is neither one of the runs ... nor a run file"): each is named by
its folders (harness.formats.run_files.names_of_run_files), the same names at every door that
names run files, and `--baseline` takes them. Numbers: pytrec_eval's AP and scipy's paired t-test."""

from __future__ import annotations

import doctest
import os
import re

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from scipy import stats

import harness
from harness.cli import main
from harness.errors import DataError
from harness.formats import run_files
from harness.formats.run_files import names_of_run_files

QRELS = {q: {f"d{i}": int(i % 3 == q % 3) for i in range(12)} for q in range(1, 13)}


def _run(seed: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    return {str(q): {d: float(s) for d, s in zip(judged, rng.random(len(judged)))} for q, judged in QRELS.items()}


def _write(path, run) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, scored in run.items() for d, s in scored.items()))
    return str(path)


def _ap(run) -> np.ndarray:
    qrels = {str(q): judged for q, judged in QRELS.items()}
    res = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return np.array([res[q]["map"] for q in sorted(res)])


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """a/runs/bm25.trec and b/runs/bm25.trec (two runs, one name, one parent folder name), the
    qrels; the current folder is tmp_path, as a user's would be."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text(
        "".join(f"{q} 0 {d} {l}\n" for q, judged in QRELS.items() for d, l in judged.items())
    )
    runs = {"a": _run(1), "b": _run(2), "c": _run(3)}
    for name, run in runs.items():
        _write(tmp_path / name / "runs" / "bm25.trec", run)
    return runs


def _harness(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _rows(out: str) -> dict[str, list[str]]:
    return {
        re.split(r"\s{2,}", line)[1]: re.split(r"\s{2,}", line) for line in out.splitlines() if line.startswith("AP ")
    }


def test_the_rule_names_runs_by_the_nearest_folder_that_tells_them_apart(tmp_path, monkeypatch):
    (tmp_path / "w").mkdir()
    monkeypatch.chdir(tmp_path / "w")
    cases = [
        (["runs/bm25.trec", "runs/ql.trec"], ["bm25", "ql"]),  # a name each: the file name without .trec
        (["a/bm25.trec", "b/bm25.trec"], ["a/bm25", "b/bm25"]),
        (["a/runs/bm25.trec", "b/runs/bm25.trec", "b/runs/ql.trec"], ["a/bm25", "b/bm25", "ql"]),  # `runs` skipped
        (["x/a/bm25.trec", "y/a/bm25.trec", "z/b/bm25.trec"], ["x/a/bm25", "y/a/bm25", "b/bm25"]),  # as many as needed
        (["bm25.trec", "bm25.txt", "bm25"], ["bm25.trec", "bm25.txt", "bm25"]),  # one folder: the extensions
        (["x/bm25.trec", "x/bm25.txt", "y/bm25.trec"], ["x/bm25.trec", "x/bm25.txt", "y/bm25"]),
        (["bm25.trec", "../bm25.trec"], ["w/bm25", f"{tmp_path.name}/bm25"]),  # paths count as absolute
        (["a/run.v2.trec", "b/run.v2.trec"], ["a/run.v2", "b/run.v2"]),  # only the last extension goes
    ]
    for paths, names in cases:
        assert names_of_run_files(paths) == names, paths
        assert names_of_run_files([os.path.abspath(p) for p in paths]) == names  # however the path is written
    assert doctest.testmod(run_files).failed == 0


def test_compare_names_two_runs_of_one_file_name_by_their_folders_and_takes_those_names(folders, capsys):
    runs = ["a/runs/bm25.trec", "b/runs/bm25.trec"]
    code, out, err = _harness(capsys, "compare", *runs, "--qrels", "q.txt", "--baseline", "bm25", "-m", "AP")
    assert code == 2 and not out
    assert err.startswith(
        "harness: error: --baseline: 2 run files are named 'bm25' (a/runs/bm25.trec, b/runs/bm25.trec): "
        "give one of their runs' names, a/bm25, b/bm25, or its path"
    ), err
    ap = {name: _ap(run) for name, run in folders.items()}
    for baseline, base, other in (("a/bm25", "a", "b"), ("b/bm25", "b", "a"), ("b/runs/bm25.trec", "b", "a")):
        code, out, err = _harness(capsys, "compare", *runs, "--qrels", "q.txt", "--baseline", baseline, "-m", "AP")
        assert code == 0, err
        lines = out.splitlines()
        assert lines[0].startswith("2 run files are named 'bm25', so the runs are named by their folders: ")
        assert f"a/bm25 is {runs[0]}" in lines[0] and f"b/bm25 is {runs[1]}" in lines[0]
        assert lines[1].startswith(f"baseline: {base}/bm25; 12 topics")
        (row,) = _rows(out).values()
        assert row[1] == f"{other}/bm25" and row[2:4] == [f"{ap[other].mean():.4f}", f"{ap[base].mean():.4f}"]
        assert row[6] == f"{stats.ttest_rel(ap[other], ap[base]).pvalue:.4f}"


def test_a_baseline_file_of_the_runs_file_name_is_named_with_them(folders, capsys):
    code, out, err = _harness(
        capsys, "compare", "a/runs/bm25.trec", "b/runs/bm25.trec", "--qrels", "q.txt", "--baseline", "c/runs/bm25.trec"
    )
    assert code == 0, err
    assert "baseline: c/bm25;" in out and {"a/bm25", "b/bm25"} == set(_rows(out))


def test_the_api_names_a_file_as_compare_does_and_says_how_to_name_two_of_one_file_name(folders, capsys):
    """harness.evaluate takes one run: two files of one name, concatenated for harness.compare,
    were "given twice" without a word on why; `name=` with the names `harness compare` gives
    reproduces its table."""
    paths = ["a/runs/bm25.trec", "b/runs/bm25.trec"]
    tables = [harness.evaluate(p, "q.txt", ["AP"])[0] for p in paths]
    assert [set(t["run"]) for t in tables] == [{"bm25"}, {"bm25"}]  # the name harness compare gives a lone run
    with pytest.raises(DataError, match=r"given twice\. Two runs named 'bm25'\? .* name=, e\.g\. .*name='a/bm25'"):
        harness.compare(pd.concat(tables), baseline="bm25")
    names = names_of_run_files(paths)
    per_topic = pd.concat([harness.evaluate(p, "q.txt", ["AP"], name=n)[0] for p, n in zip(paths, names)])
    api = harness.compare(per_topic, baseline="a/bm25", test="t").set_index("run")
    code, out, err = _harness(capsys, "compare", *paths, "--qrels", "q.txt", "--baseline", "a/bm25", "-m", "AP")
    assert code == 0, err
    assert _rows(out)["b/bm25"][6] == f"{api.loc['b/bm25', 'p']:.4f}"
    assert api.loc["b/bm25", "p"] == stats.ttest_rel(_ap(folders["b"]), _ap(folders["a"])).pvalue
