"""The real command line, in subprocesses: exit codes, messages, nothing half-written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import BLAS_THREADS

from .conftest import REPO

HARNESS = [sys.executable, "-m", "harness"]


def harness(*args, cwd=REPO, env=None):
    return subprocess.run(
        [*HARNESS, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=600
    )


def demo_copy(tmp_path: Path, **replace: str) -> Path:
    """configs/demo.yaml rewritten with absolute paths into tmp_path, with lines replaced."""
    text = (REPO / "configs" / "demo.yaml").read_text()
    for rel in ("../corpora", "../topics/demo.tsv", "../qrels/demo.txt"):
        text = text.replace(rel, str((REPO / "configs" / rel).resolve()))
    text = text.replace("../reports/demo", str(tmp_path / "report"))
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    cfg = tmp_path / "demo.yaml"
    cfg.write_text(text)
    return cfg


def test_validate_ok():
    r = harness("validate", "configs/demo.yaml")
    assert r.returncode == 0, r.stderr
    assert "5 run(s)" in r.stdout and "jm(lambda=0.1)" in r.stdout


def test_validate_reports_every_problem_without_java(tmp_path):
    cfg = demo_copy(
        tmp_path, **{"index: {stemmer: porter": "index: {stemer: porter", "jm: {lambda: 0.1}": "jm: {lambda: 0}"}
    )
    r = harness("validate", str(cfg), env={"JAVA_HOME": "/nonexistent"})
    assert r.returncode == 2
    assert "index.stemer: unknown key 'stemer'; did you mean 'stemmer'?" in r.stderr
    assert "runs[2].jm.lambda: must be in (0, 1] (got 0)" in r.stderr
    assert "Traceback" not in r.stderr


def test_missing_file_is_exit_2_and_names_key(tmp_path):
    cfg = demo_copy(tmp_path)
    cfg.write_text(cfg.read_text().replace(str((REPO / "qrels/demo.txt").resolve()), str(tmp_path / "nope.txt")))
    r = harness("run", str(cfg))
    assert r.returncode == 2
    assert "qrels" in r.stderr and "nope.txt" in r.stderr
    assert not (tmp_path / "report").exists()


def test_bad_flag_is_exit_2():
    r = harness("run", "--no-such-flag", "configs/demo.yaml")
    assert r.returncode == 2 and "unrecognized arguments" in r.stderr


@pytest.mark.java
def test_run_writes_report_and_checks_expectations(tmp_path):
    cfg = demo_copy(tmp_path)
    r = harness("run", str(cfg), env={"HARNESS_INDEXES": str(tmp_path / "indexes")})
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert [row["run"] for row in summary["runs"]] == [
        "bm25",
        "dirichlet mu=500",
        "dirichlet mu=1000",
        "dirichlet mu=2000",
        "jm",
    ]
    ap = summary["runs"][0]["AP"]
    # An expectation off by 0.01 fails the run with exit 1 -- after writing the report.
    shutil.rmtree(tmp_path / "report")
    cfg.write_text(cfg.read_text() + f'expect: {{"bm25(k1=0.9,b=0.4)": {{AP: {ap + 0.01}}}}}\n')  # a spec names it too
    r = harness("run", str(cfg), env={"HARNESS_INDEXES": str(tmp_path / "indexes")})
    assert r.returncode == 1
    assert "[FAIL] bm25 AP" in r.stderr
    assert (tmp_path / "report" / "summary.json").exists()
    assert "index reused" in r.stderr and "reused 15 topics" in r.stderr


@pytest.mark.java
def test_doctor():
    r = harness("doctor")
    assert r.returncode == 0, r.stdout + r.stderr
    for key in ("python", "pyserini", "anserini", "java_home", "lucene"):
        assert key in r.stdout
    assert "lucene     10." in r.stdout and "jvm        started" in r.stdout


# ----------------------------------------------------------------------------- issue 5 commands
COMMANDS = ("run", "validate", "index", "search", "evaluate", "compare", "lab", "doctor")
NO_JVM = {"HARNESS_JAVA_OPTS": "-Xno-such-option"}  # any JVM start would fail: proves none starts


@pytest.mark.parametrize("command", COMMANDS)
def test_help_everywhere_with_examples(command):
    r = harness(command, "--help")
    assert r.returncode == 0, r.stderr
    assert "examples:" in r.stdout and f"harness {command}" in r.stdout
    assert "exit codes:" in r.stdout


def test_top_level_help_lists_every_command():
    r = harness("--help")
    assert r.returncode == 0
    for command in COMMANDS:
        assert command in r.stdout


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    """The demo config in a temp folder, its index built by `harness index` and its runs
    written by `harness search` (each once for the module)."""
    tmp = tmp_path_factory.mktemp("cli")
    cfg = demo_copy(tmp)
    env = {"HARNESS_INDEXES": str(tmp / "indexes")}
    before = harness("index", "--dry-run", str(cfg), env={**env, **NO_JVM})
    index = harness("index", str(cfg), env=env)
    search = harness("search", str(cfg), env=env)
    return tmp, cfg, env, before, index, search


def test_index_builds_then_reuses(searched):
    tmp, cfg, env, before, index, _ = searched
    assert before.returncode == 0, before.stderr
    assert "build (no index there yet)" in before.stdout
    assert index.returncode == 0, index.stderr
    assert re.search(r"^status\s+built in", index.stdout, re.M)
    assert re.search(r"^fingerprint\s+[0-9a-f]{64}$", index.stdout, re.M)
    assert re.search(r"^documents\s+45$", index.stdout, re.M)
    path = re.search(r"^index\s+(\S+)$", index.stdout, re.M).group(1)
    assert Path(path).parent == tmp / "indexes" and (Path(path) / "harness-index.json").exists()
    again = harness("index", str(cfg), env=env)
    assert again.returncode == 0 and re.search(r"^status\s+reused$", again.stdout, re.M)


def test_search_writes_runs_and_no_report(searched):
    tmp, cfg, env, _, _, search = searched
    assert search.returncode == 0, search.stderr
    runs = sorted(p.name for p in (tmp / "report" / "runs").iterdir() if p.suffix == ".trec")
    # each run's ir_metadata beside it (issue 50)
    assert sorted(p.name for p in (tmp / "report" / "runs").iterdir() if p.suffix != ".trec") == sorted(
        r.removesuffix(".trec") + ".ir-metadata.yml" for r in runs
    )
    # named without spaces (issue 36: `runs/dirichlet mu=500.trec` needed quotes in every command)
    assert runs == sorted(
        [
            "bm25.trec",
            "dirichlet_mu=500.trec",
            "dirichlet_mu=1000.trec",
            "dirichlet_mu=2000.trec",
            "jm.trec",
        ]
    )
    printed = [line.split("\t") for line in search.stdout.splitlines()]
    assert [(name, Path(path).name) for name, _, path in printed] == [
        ("bm25", "bm25.trec"),
        ("dirichlet mu=500", "dirichlet_mu=500.trec"),
        ("dirichlet mu=1000", "dirichlet_mu=1000.trec"),
        ("dirichlet mu=2000", "dirichlet_mu=2000.trec"),
        ("jm", "jm.trec"),
    ]
    assert not (tmp / "report" / "summary.json").exists()
    first = (tmp / "report" / "runs" / runs[0]).read_text().splitlines()[0].split()
    assert first[0] == "1" and first[1] == "Q0" and first[3] == "1" and first[5] == "bm25(k1=0.9,b=0.4)"


def test_dry_run_reports_reuse_without_starting_java(searched):
    tmp, cfg, env, *_ = searched
    for command in ("run", "search"):
        r = harness(command, "--dry-run", str(cfg), env={**env, **NO_JVM})
        assert r.returncode == 0, r.stderr
        assert "reuse (fingerprint matches)" in r.stdout
        assert r.stdout.count("reuse bm25(k1=0.9,b=0.4).") == 1 and "not cached" not in r.stdout
    assert not (tmp / "report" / "summary.json").exists()  # nothing written
    # a new run parameter is planned as a search; nothing else changes
    cfg2 = tmp / "dry.yaml"
    cfg2.write_text(cfg.read_text().replace("jm: {lambda: 0.1}", "jm: {lambda: 0.3}"))
    # (another config file: its own report folder, as demo.yaml's is another experiment's to it)
    r = harness("run", "--dry-run", str(cfg2), "--output", str(tmp / "dry-report"), env={**env, **NO_JVM})
    assert re.search(r"^run\s+jm\(lambda=0\.3\)\s+search \(not cached\)$", r.stdout, re.M), r.stdout


def test_dry_run_plans_an_empty_index_folder_as_a_build(tmp_path):
    """An index.path naming an empty folder (made by the user beforehand) is built into, as
    ensure_index does; the plan said "error" there. A folder with other files stays an error."""
    folder = tmp_path / "myindex"
    folder.mkdir()
    text = (REPO / "configs" / "demo.yaml").read_text()
    text = text.replace("../corpora", str(REPO / "corpora")).replace("../topics", str(REPO / "topics"))
    text = text.replace("../qrels", str(REPO / "qrels")).replace("../reports/demo", str(tmp_path / "out"))
    text = text.replace("index: {stemmer: porter", f"index: {{path: {folder}, stemmer: porter")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    r = harness("run", "--dry-run", str(cfg), env={**os.environ, **NO_JVM})
    assert r.returncode == 0, r.stderr
    assert re.search(r"^\s+fingerprint \w+: build \(into the empty folder there\)$", r.stdout, re.M), r.stdout
    (folder / "notes.txt").write_text("mine")
    r = harness("run", "--dry-run", str(cfg), env={**os.environ, **NO_JVM})
    assert r.returncode == 2 and "is not empty and was not built by the harness" in r.stderr, r.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_evaluate_equals_trec_eval(searched):
    import pytrec_eval

    tmp, *_ = searched
    run_file = tmp / "report" / "runs" / "bm25.trec"
    qrels_file = REPO / "qrels" / "demo.txt"
    r = harness("evaluate", str(run_file), str(qrels_file), "-m", "AP", "nDCG@10", "-m", "P@10", "-q")
    assert r.returncode == 0, r.stderr
    run, qrels = {}, {}
    for line in run_file.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    for line in qrels_file.read_text().splitlines():
        q, _, d, l = line.split()
        qrels.setdefault(q, {})[d] = int(l)
    res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut", "P"}).evaluate(run)
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}
    lines = [l.split("\t") for l in r.stdout.splitlines()]
    assert [l[0] for l in lines[-3:]] == ["AP", "nDCG@10", "P@10"] and all(l[1] == "all" for l in lines[-3:])
    for m, topic, value in lines:
        expected = (sum(v[names[m]] for v in res.values()) / len(res)) if topic == "all" else res[topic][names[m]]
        assert value == f"{expected:.4f}", (m, topic)
    assert len(lines) == 3 * len(qrels) + 3
    assert "policy: ties=trec_eval, missing_topics=zero" in r.stderr


def test_evaluate_bad_input_is_exit_2(searched, tmp_path):
    tmp, *_ = searched
    run_file = str(tmp / "report" / "runs" / "bm25.trec")
    qrels_file = str(REPO / "qrels" / "demo.txt")
    cases = [
        (
            ("evaluate", run_file, qrels_file, "-m", "MAPP"),
            "unknown measure 'MAPP' in 'MAPP'; did you mean 'map' (= AP)?",
        ),
        (("evaluate", str(tmp_path / "none.trec"), qrels_file, "-m", "AP"), "none.trec: run file not found"),
        (("evaluate", qrels_file, run_file, "-m", "AP"), "the order is RUN QRELS"),
        (("evaluate", run_file, qrels_file, "-m", "AP", "--ties", "random"), "invalid choice: 'random'"),
    ]
    bad = tmp_path / "bad.trec"
    bad.write_text("1 Q0 d1 1 x tag\n")
    cases.append((("evaluate", str(bad), qrels_file, "-m", "AP"), "bad.trec:1"))
    for args, message in cases:
        r = harness(*args)
        assert r.returncode == 2 and message in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr and r.stdout == ""


def test_compare_equals_scipy_and_counts(searched):
    import numpy as np
    import pytrec_eval
    from scipy import stats

    tmp, *_ = searched
    runs = tmp / "report" / "runs"
    files = [runs / "bm25.trec", runs / "dirichlet_mu=1000.trec", runs / "jm.trec"]
    r = harness(
        "compare",
        *map(str, files),
        "--qrels",
        str(REPO / "qrels" / "demo.txt"),
        "--baseline",
        str(files[0]),
        "-m",
        "AP",
        "--test",
        "t",
        "--correction",
        "none",
    )
    assert r.returncode == 0, r.stderr
    qrels = {}
    for line in (REPO / "qrels" / "demo.txt").read_text().splitlines():
        q, _, d, l = line.split()
        qrels.setdefault(q, {})[d] = int(l)

    def ap(path):
        run = {}
        for line in path.read_text().splitlines():
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
        res = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
        return np.array([res[q]["map"] for q in sorted(qrels)])

    base = ap(files[0])
    # columns are two spaces or more apart (a run's name may hold one space)
    rows = {re.split(r"\s{2,}", l)[1]: re.split(r"\s{2,}", l) for l in r.stdout.splitlines() if l.startswith("AP ")}
    assert set(rows) == {"dirichlet_mu=1000", "jm"}  # a run is named by its file
    for f in files[1:]:
        row, y = rows[f.stem], ap(f)
        assert row[2] == f"{y.mean():.4f}" and row[3] == f"{base.mean():.4f}"
        assert row[4] == f"{y.mean() - base.mean():+.4f}"
        p = stats.ttest_rel(y, base).pvalue
        assert row[6] == f"{p:.4f}" and row[7] == f"{p:.4f}"  # correction none: p = corrected p
        assert row[8] == f"{(y > base).sum()}/{(y == base).sum()}/{(y < base).sum()}"
    assert "paired t-test; no correction" in r.stdout and "baseline: bm25; 15 topics" in r.stdout


def test_compare_bad_input_is_exit_2(searched):
    tmp, *_ = searched
    run = str(tmp / "report" / "runs" / "jm.trec")
    other = str(tmp / "report" / "runs" / "dirichlet_mu=500.trec")
    qrels = str(REPO / "qrels" / "demo.txt")
    for args, message in [
        ((run, "--qrels", qrels, "--baseline", "nope", "-m", "AP"), "'nope' is neither one of the runs"),
        ((run, "--qrels", qrels, "--baseline", run, "-m", "AP"), "needs at least one run besides the baseline"),
        (
            (run, other, "--qrels", qrels + ".missing", "--baseline", run, "-m", "AP"),
            "demo.txt.missing: file not found",
        ),
        ((run, "--qrels", qrels, "--baseline", "x", "-m", "AP", "--test", "z"), "invalid choice: 'z'"),
        (
            (run, other, "--qrels", qrels, "--baseline", run, "-m", "AP", "--alpha", "2"),
            "alpha must be a number in (0, 1)",
        ),
        ((run, run, "--qrels", qrels, "--baseline", run, "-m", "AP"), "run file given twice"),
    ]:
        r = harness("compare", *args)
        assert r.returncode == 2 and message in r.stderr, (args, r.stderr)


def test_index_and_search_missing_config_is_exit_2(tmp_path):
    for command in ("index", "search", "run"):
        r = harness(command, str(tmp_path / "nope.yaml"), env=NO_JVM)
        assert r.returncode == 2 and "nope.yaml" in r.stderr and "Traceback" not in r.stderr
        r = harness(command, "--dry-run", "--no-such", "configs/demo.yaml")
        assert r.returncode == 2 and "unrecognized arguments: --no-such" in r.stderr


def test_engine_failure_is_exit_3(tmp_path):
    cfg = demo_copy(tmp_path)
    r = harness("index", str(cfg), env={"HARNESS_INDEXES": str(tmp_path / "ix"), **NO_JVM})
    assert r.returncode == 3 and "could not start the JVM" in r.stderr and "Traceback" not in r.stderr
    r = harness("--debug", "index", str(cfg), env={"HARNESS_INDEXES": str(tmp_path / "ix"), **NO_JVM})
    assert "Traceback" in r.stderr


# ----------------------------------------------------------------------------- progress
def test_no_progress_codes_in_captured_output(searched):
    tmp, cfg, env, _, index, search = searched
    r = harness("run", str(cfg), env=env)
    for out in (index, search, r):
        assert "\x1b" not in out.stderr + out.stdout and "\r" not in out.stderr + out.stdout


def test_progress_draws_only_on_a_terminal(monkeypatch):
    import io

    from harness.cli.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    with Progress(4, "searching", stream=tty) as bar:
        for _ in range(4):
            bar.update()
    assert "\x1b[K" in tty.getvalue() and "4/4" in tty.getvalue()
    pipe = io.StringIO()
    with Progress(4, "searching", stream=pipe) as bar:
        bar.update(4)
    assert pipe.getvalue() == ""
    monkeypatch.setenv("HARNESS_PROGRESS", "never")
    quiet = Tty()
    with Progress(4, "searching", stream=quiet) as bar:
        bar.update(4)
    assert quiet.getvalue() == ""


def test_progress_bar_on_a_real_terminal(searched):
    """stderr on a pseudo-terminal: the bar is drawn there, and stdout (a pipe) stays clean."""
    import pty

    tmp, *_ = searched
    run_file = str(tmp / "report" / "runs" / "bm25.trec")
    master, slave = pty.openpty()
    try:
        p = subprocess.run(
            [*HARNESS, "evaluate", run_file, str(REPO / "qrels" / "demo.txt"), "-m", "AP"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=slave,
            timeout=120,
        )
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert p.returncode == 0
    assert b"\x1b[K" in seen and b"evaluating 1 measures" in seen
    assert b"\x1b" not in p.stdout


def test_evaluate_and_compare_without_measures_use_a_configs_default_measures(tmp_path):
    """Issue 36: `harness evaluate RUN QRELS` without -m was an error; it evaluates the measures
    a config without `measures:` evaluates (harness.policies), as pytrec_eval computes them."""
    import numpy as np
    import pytrec_eval

    from harness.verbs.run import load

    qrels_file = REPO / "qrels" / "demo.txt"
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_file.read_text().splitlines():
        q, _, d, label = line.split()
        qrels.setdefault(q, {})[d] = int(label)
    rng = np.random.default_rng(7)
    docs = sorted({d for judged in qrels.values() for d in judged})
    runs = {}
    for name in ("a", "b"):
        runs[name] = {q: {d: float(s) for d, s in zip(docs, rng.random(len(docs)))} for q in qrels}
        lines = [f"{q} Q0 {d} 1 {s!r} {name}" for q, scored in runs[name].items() for d, s in scored.items()]
        (tmp_path / f"{name}.trec").write_text("\n".join(lines) + "\n")
    r = harness("evaluate", str(tmp_path / "a.trec"), str(qrels_file), env=NO_JVM)
    assert r.returncode == 0, r.stderr
    defaults = [str(m) for m in load(demo_copy(tmp_path, **{"measures: [AP, P@10, nDCG@10, RR, R@1000]": ""})).measures]
    lines = [line.split("\t") for line in r.stdout.splitlines()]
    assert [m for m, _, _ in lines] == defaults == ["AP", "P@10", "nDCG@10", "RR", "R@1000"]
    names = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "R@1000": "recall_1000"}
    res = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(runs["a"])
    for m, topic, value in lines:
        assert topic == "all" and value == f"{np.mean([v[names[m]] for v in res.values()]):.4f}", m
    r = harness(
        "compare", str(tmp_path / "a.trec"), str(tmp_path / "b.trec"), "--qrels", str(qrels_file), "--baseline", "a"
    )
    assert r.returncode == 0, r.stderr
    assert [line.split()[0] for line in r.stdout.splitlines() if line.split()[1:2] == ["b"]] == defaults


def test_evaluate_duplicates_flag(tmp_path):
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n1 Q0 d1 3 0.5 t\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    r = harness("evaluate", str(run), str(qrels), "-m", "P@2")
    assert r.returncode == 2 and "r.trec:3" in r.stderr and "d1" in r.stderr
    r = harness("evaluate", str(run), str(qrels), "-m", "P@2", "--duplicates", "drop")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "P@2\tall\t0.5000"  # d1 relevant, d2 not: 1/2


def test_evaluate_warns_when_no_retrieved_id_is_judged(tmp_path):
    """The ids of a run and of its qrels that never meet (a prefix, an extension) make every score
    0: a warning says so. One shared id, however deep in the run, silences it."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 doc7 1\n2 0 doc40000 1\n")
    lines = [f"{1 + i // 20000} Q0 d{i} {1 + i % 20000} {1 - i / 1e6} t" for i in range(40_000)]
    run = tmp_path / "r.trec"
    run.write_text("\n".join(lines) + "\n")
    r = harness("evaluate", str(run), str(qrels), "-m", "AP")
    assert r.returncode == 0 and r.stdout.strip() == "AP\tall\t0.0000"
    assert "none of its document ids is judged" in r.stderr and "r.trec" in r.stderr
    lines[-1] = lines[-1].replace(" d39999 ", " doc40000 ")  # the last line of 40,000
    run.write_text("\n".join(lines) + "\n")
    r = harness("evaluate", str(run), str(qrels), "-m", "AP")
    assert r.returncode == 0 and "none of its document ids" not in r.stderr
    assert r.stdout.strip() == "AP\tall\t0.0000"  # topic 2: AP 1/20,000 (its relevant doc at rank 20,000); topic 1: 0


def _runs_on_different_topics(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two runs and qrels where run b does not answer topic 3 (scored only under drop)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{q}{i} {i % 2}\n" for q in (1, 2, 3, 4) for i in range(4)))
    a, b = tmp_path / "a.trec", tmp_path / "b.trec"
    a.write_text("".join(f"{q} Q0 d{q}{i} {i + 1} {10 - i} a\n" for q in (1, 2, 3, 4) for i in range(4)))
    order = {1: (1, 3, 0, 2), 2: (3, 2, 1, 0), 4: (1, 0, 2, 3)}  # P@2: 1, 0.5, 0.5 (a: 0.5 on every topic)
    b.write_text("".join(f"{q} Q0 d{q}{d} {i + 1} {10 - i} b\n" for q, ds in order.items() for i, d in enumerate(ds)))
    return a, b, qrels


def test_compare_is_strict_about_topics_unless_asked_to_align_on_common_ones(tmp_path):
    import scipy.stats as sps

    a, b, qrels = _runs_on_different_topics(tmp_path)
    args = [
        "compare",
        str(a),
        str(b),
        "--qrels",
        str(qrels),
        "--baseline",
        "a",
        "-m",
        "P@2",
        "--missing-topics",
        "drop",
    ]
    r = harness(*args, env=NO_JVM)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "run 'b' and run 'a' are scored on different topics: 1 topic(s) only 'a' has ('3')" in r.stderr
    assert "--align common" in r.stderr
    r = harness(*args, "--align", "common", env=NO_JVM)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "baseline: a; 3 topics (1 not evaluated for every run left out)"
    row = next(line.split() for line in r.stdout.splitlines() if line.startswith("P@2"))
    expected = sps.ttest_rel([1.0, 0.5, 0.5], [0.5, 0.5, 0.5]).pvalue  # topics 1, 2, 4
    assert row[1:5] == ["b", "0.6667", "0.5000", "+0.1667"]
    assert row[8] == f"{expected:.4f}" == "0.4226"
    # without drop, the missing topic scores 0 and every topic is compared
    r = harness(*args[:-2], env=NO_JVM)
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "baseline: a; 4 topics"


@pytest.mark.parametrize("case", ["command", "told otherwise", "numpy already imported"])
def test_a_command_runs_openblas_on_one_thread(case):
    """harness.cli.main asks OpenBLAS for one thread before numpy is imported (it started a
    spinning thread per core, 0.13 s of CPU per command here). The oracle is the kernel's count of
    the process's threads once numpy is imported: one, the main thread; unless the environment
    chose a number, or numpy was imported before (a notebook), when the count is what a process
    importing numpy alone gets with the same environment."""
    first = "import numpy; " if case == "numpy already imported" else ""
    count = "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))"
    code = f"{first}import os; from harness.cli import _one_blas_thread; _one_blas_thread(); import numpy; {count}"
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}  # Dask's nannies set one
    if case == "told otherwise":
        env["OMP_NUM_THREADS"] = "2"

    def threads(code: str) -> tuple[str, str]:
        r = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
        return tuple(r.stdout.split())

    got = threads(code)
    if case == "command":
        assert got == ("1", "1")
    else:
        assert got == threads(f"import os, numpy; {count}") and got[0] == "None"
        assert case != "told otherwise" or got[1] == "2"
