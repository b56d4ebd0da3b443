"""`harness lab` and the README's commands, driven through the real CLI in subprocesses.

The lab examples are taken from the README text and run exactly as written; every printed
metric is checked against values computed here independently: by hand in plain Python from
the label strings (following the course lab's stated conventions) for --relevance, and by
trec_eval (pytrec_eval) on the printed ranking for --doc-relevance.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO
from .docs import commands, section  # noqa: F401  (commands is shared with the Docker tests)

HARNESS = [sys.executable, "-m", "harness"]
pytestmark = pytest.mark.usefixtures("sparse_only_processes")  # conftest: BM25, Dirichlet, JM only


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    return tmp_path_factory.mktemp("lab-indexes")


def shell(cmd: str, cwd=REPO, env=None):
    return subprocess.run(
        ["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=600
    )


def lab(*args, indexes: Path, cwd=REPO):
    return subprocess.run(
        [*HARNESS, "lab", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "HARNESS_INDEXES": str(indexes)},
        timeout=600,
    )


# ----------------------------------------------------------------------------- the output
def parse_lab(stdout: str):
    """{query: {"docs": [...], "metrics": {name: value}}}, the means, the convention line."""
    queries, current, means, convention = {}, None, {}, None
    for line in stdout.splitlines():
        if line.startswith("metrics: "):
            convention = line
        elif m := re.match(r"query \d+: (.*)", line):
            current = queries.setdefault(m.group(1), {"docs": [], "metrics": {}})
        elif m := re.match(r"\s+(\d+)\s+(\S+)\s+(-?\d+\.\d+)$", line):
            assert int(m.group(1)) == len(current["docs"]) + 1
            current["docs"].append(m.group(2))
        elif line.startswith("mean over"):
            means = {k: float(v) for k, v in re.findall(r"(\S+)=(\d\.\d{4})", line)}
        elif current is not None and "=" in line:
            current["metrics"] = {k: float(v) for k, v in re.findall(r"(\S+)=(\d\.\d{4})", line)}
    return queries, means, convention


def by_hand(labels: list[int], k: int) -> dict[str, float]:
    """The course lab's conventions, written out in plain Python (see the cases file's "about")."""
    top = labels[:k]
    relevant = sum(1 for x in labels if x >= 1)
    hits, precisions, rr = 0, [], 0.0
    for i, x in enumerate(top, start=1):
        if x >= 1:
            hits += 1
            precisions.append(hits / i)
            rr = rr or 1 / i
    dcg = lambda xs: sum(x / math.log2(i + 1) for i, x in enumerate(xs, start=1))
    ideal = dcg(sorted(labels, reverse=True)[:k])
    return {
        f"P@{k}": hits / min(k, len(labels)),
        f"R@{k}": hits / relevant if relevant else 0.0,
        "AP": sum(precisions) / relevant if relevant else 0.0,
        f"nDCG@{k}": dcg(top) / ideal if ideal else 0.0,
        "RR": rr,
    }


def flag_values(argv: list[str], flag: str) -> list[str]:
    i = argv.index(flag)
    out = []
    for a in argv[i + 1 :]:
        if a.startswith("--"):
            break
        out.append(a)
    return out


def close(printed: dict, expected: dict):
    assert printed.keys() == expected.keys()
    for k, v in expected.items():
        assert abs(printed[k] - v) <= 5.1e-5, (k, printed[k], v)


# ----------------------------------------------------------------------------- README examples
LAB_EXAMPLES = commands("Lab mode")


def test_readme_has_the_four_lab_examples():
    assert len(LAB_EXAMPLES) == 4
    assert all(c.startswith(".venv/bin/harness lab --index corpora ") for c in LAB_EXAMPLES)


@pytest.mark.parametrize("cmd", LAB_EXAMPLES, ids=["relevance-bm25", "doc-relevance", "dirichlet", "jm-unjudged"])
def test_readme_lab_example(cmd, indexes):
    r = shell(cmd, env={"HARNESS_INDEXES": str(indexes)})
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stderr + r.stdout and "\r" not in r.stderr
    argv = shlex.split(cmd)
    k = int(flag_values(argv, "--topk")[0])
    queries = flag_values(argv, "--queries")
    printed, means, convention = parse_lab(r.stdout)
    assert list(printed) == queries
    for q in queries:
        assert 1 <= len(printed[q]["docs"]) <= k
        assert all(d.startswith("sample_docs/") and d.endswith(".txt") for d in printed[q]["docs"])
    sim = flag_values(argv, "--similarity")[0]
    assert re.search(rf"^similarity: {sim}\(", r.stdout, re.M)

    if "--relevance" in argv:
        assert "course lab" in convention
        expected = {}
        for item in flag_values(argv, "--relevance"):
            query, _, labels = item.rpartition(":")
            expected[query] = by_hand([int(x) for x in labels.split(",")], k)
            close(printed[query]["metrics"], expected[query])
        close(means, {m: sum(e[m] for e in expected.values()) / len(expected) for m in expected[queries[0]]})
    elif "--doc-relevance" in argv:
        import pytrec_eval

        assert "trec_eval" in convention
        qrels = {}
        for q, item in zip(queries, flag_values(argv, "--doc-relevance")):
            qrels[q] = {d: int(l) for d, _, l in (t.rpartition(":") for t in item.split())}
        run = {q: {d: float(k - i) for i, d in enumerate(printed[q]["docs"])} for q in queries}
        ev = pytrec_eval.RelevanceEvaluator(qrels, {"P", "recall", "map", "ndcg_cut", "recip_rank"})
        res = ev.evaluate(run)
        expected = {
            q: {
                f"P@{k}": res[q][f"P_{k}"],
                f"R@{k}": res[q][f"recall_{k}"],
                "AP": res[q]["map"],
                f"nDCG@{k}": res[q][f"ndcg_cut_{k}"],
                "RR": res[q]["recip_rank"],
            }
            for q in queries
        }
        for q in queries:
            close(printed[q]["metrics"], expected[q])
        close(means, {m: sum(e[m] for e in expected.values()) / len(expected) for m in expected[queries[0]]})
    else:
        assert not means and "need judgments" in r.stdout
        assert all(not printed[q]["metrics"] for q in queries)


def test_lab_reuses_the_text_folder_index(indexes):
    args = ["--index", "corpora", "--queries", "bm25", "--topk", "3"]
    first = lab(*args, indexes=indexes)
    second = lab(*args, indexes=indexes)
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert "reused from the text folder" in second.stdout
    assert parse_lab(first.stdout)[0] == parse_lab(second.stdout)[0]
    # the built index is a harness index: --index accepts it directly, same results
    built = next(p for p in indexes.iterdir() if (p / "harness-index.json").exists())
    third = lab("--index", str(built), *args[2:], indexes=indexes)
    assert third.returncode == 0, third.stderr
    assert "(harness index)" in third.stdout
    assert parse_lab(third.stdout)[0] == parse_lab(first.stdout)[0]


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "extra, message",
    [
        (["--relevance", "vector space model:1,0,x,0"], "'vector space model': bad relevance label 'x' at rank 3"),
        (["--relevance", "vector space model:1,0,-1"], "'vector space model': bad relevance label '-1' at rank 3"),
        (["--relevance", "vector space model 1,0,1"], "expected 'QUERY:LABELS'"),
        (["--relevance", "language model:1,0,1"], "judges query 'language model', which is not one of --queries"),
        (["--relevance", "vector space model:"], "query 'vector space model': no labels"),
        (["--relevance", "vector space model:1,0; R=x"], "R must be an integer"),
        (
            ["--doc-relevance", "sample_docs/vsm_mixed.txt=1"],
            "query 'vector space model': bad token 'sample_docs/vsm_mixed.txt=1'",
        ),
        (["--doc-relevance", "a.txt:1", "b.txt:1"], "2 string(s) for 1 queries"),
        (["--mu", "1000"], "--mu: applies to --similarity dirichlet, not bm25"),
        (["--k1", "-1"], "bm25 k1 must be in [0, inf) (got -1)"),
        (["--topk", "0"], "--topk: must be an integer >= 1 (got 0)"),
    ],
)
def test_bad_lab_input_is_exit_2_before_java(extra, message, tmp_path):
    indexes = tmp_path / "indexes"
    r = subprocess.run(
        [*HARNESS, "lab", "--index", "corpora", "--queries", "vector space model", *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HARNESS_INDEXES": str(indexes), "HARNESS_JAVA_OPTS": "-Xno-such-option"},
    )
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert r.stderr.startswith("harness: error: ") and "Traceback" not in r.stderr
    assert r.stdout == ""
    assert not indexes.exists()  # nothing built, nothing written (and no JVM started)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--index", "no/such/folder", "--queries", "q"], "no/such/folder: --index: no such folder"),
        (["--index", "topics", "--queries", "q"], "neither an index"),
        (["--index", "README.md", "--queries", "q"], "expected a folder"),
    ],
)
def test_bad_index_is_exit_2(args, message, tmp_path):
    r = lab(*args, indexes=tmp_path / "indexes")
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not (tmp_path / "indexes").exists()


def test_lab_bad_flags_are_exit_2(tmp_path):
    for args in (
        ["--index", "corpora"],
        ["--index", "corpora", "--queries", "q", "--similarity", "lucene"],
        ["--index", "corpora", "--queries", "q", "--relevance", "q:1", "--doc-relevance", "d:1"],
        ["--index", "corpora", "--queries", "q", "--topk", "ten"],
    ):
        r = lab(*args, indexes=tmp_path)
        assert r.returncode == 2 and "usage: harness lab" in r.stderr, (args, r.stderr)


def test_lab_help_shows_the_examples():
    r = subprocess.run([*HARNESS, "lab", "--help"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0
    assert "examples:" in r.stdout and "--doc-relevance" in r.stdout and "--lambda 0.2" in r.stdout


# ----------------------------------------------------------------------------- the README's CLI
def test_readme_command_line_section_runs(tmp_path):
    """Every command of "## Command line", as written, in a copy of the repository's data."""
    for d in ("configs", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / d, tmp_path / d)
    (tmp_path / "indexes").mkdir()
    (tmp_path / ".venv").symlink_to(REPO / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"}
    cmds = commands("Command line")
    assert {c.split()[1] for c in cmds} >= {"validate", "index", "search", "run", "evaluate", "compare", "doctor"}
    outputs = {}
    for cmd in cmds:
        r = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, f"{cmd}\n{r.stderr}"
        assert "\x1b" not in r.stderr and "\r" not in r.stderr
        outputs[cmd] = r.stdout
    index_cmds = [c for c in cmds if " index " in c]
    assert "build (no index there yet)" in outputs[index_cmds[0]]
    assert "built in" in outputs[index_cmds[1]]
    search_dry = next(c for c in cmds if "search --dry-run" in c)
    assert "search (not cached)" in outputs[search_dry] and "reuse (fingerprint matches)" in outputs[search_dry]
    assert len(list((tmp_path / "reports" / "demo" / "runs").glob("*.trec"))) == 5
    evaluate = next(c for c in cmds if " evaluate " in c)
    assert re.fullmatch(r"AP\tall\t0\.\d{4}\nnDCG@10\tall\t0\.\d{4}\nP@10\tall\t0\.\d{4}\n", outputs[evaluate])
    trec_eval = next(c for c in cmds if " trec_eval " in c)
    ap = outputs[evaluate].splitlines()[0].split("\t")[2]
    p10 = outputs[evaluate].splitlines()[2].split("\t")[2]
    assert outputs[trec_eval].splitlines() == [
        f"map                   \tall\t{ap}",
        outputs[trec_eval].splitlines()[1],
        f"P_10                  \tall\t{p10}",
    ]
    assert len(list((tmp_path / "indexes").iterdir())) == 1  # one index, built once, reused
    cache = next(c for c in cmds if " cache " in c)  # the demo's 5 runs, each its text in the report
    assert outputs[cache].count("its text also in 1 report file(s)") == 5, outputs[cache]
    assert "total: 1 index(es)" in outputs[cache] and "5 cached run(s)" in outputs[cache]
    # and `make demo` once more: an example that left a file of its own in reports/demo (issue 36:
    # fuse -o reports/demo/fused.trec) made the harness refuse to replace the folder
    r = subprocess.run(
        [".venv/bin/harness", "run", "configs/demo.yaml"], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert r.returncode == 0, r.stderr
    assert "reused" in r.stderr


def test_lab_on_an_anserini_index_without_a_manifest(indexes, tmp_path):
    """Any Anserini index works; without harness-index.json the analyzer is Anserini's default."""
    args = ["--queries", "bm25 parameters", "--topk", "5"]
    built = lab("--index", "corpora", *args, indexes=indexes)
    assert built.returncode == 0, built.stderr
    source = next(p for p in indexes.iterdir() if (p / "harness-index.json").exists())
    plain = tmp_path / "anserini-index"
    shutil.copytree(source, plain, ignore=shutil.ignore_patterns("harness-index.json", "harness-runs"))
    r = lab("--index", str(plain), *args, indexes=tmp_path / "unused")
    assert r.returncode == 0, r.stderr
    assert "Anserini index, not built by the harness" in r.stdout
    assert parse_lab(r.stdout)[0] == parse_lab(built.stdout)[0]
    assert not (tmp_path / "unused").exists()
