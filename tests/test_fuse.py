"""harness fuse against pyserini.fusion 2.4.0 (the oracle, run in this process on the same
files), and the methods pyserini lacks against values worked out by hand."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.errors import DataError
from harness.formats.runs import read_run
from harness.fusion import fuse as fuse_runs
from harness.policies import FusionPolicy
from harness.verbs.fuse import fuse

from .conftest import examples

METHODS = ("rrf", "interpolation", "average", "normalize")


@pytest.fixture(autouse=True, params=["one sort", "topic by topic"])
def sorting(request, monkeypatch):
    """harness.fusion sorts all rows at once or topic by topic (by rows per topic): every test
    here runs both ways, so both are held to the oracle."""
    import harness.fusion.order

    monkeypatch.setattr(harness.fusion.order, "_LONG_TOPICS", 10**9 if request.param == "one sort" else 0)
    return request.param


def _write_run(path, rows):
    path.write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n" for q, d, r, s in rows))
    return path


def _random_runs(tmp_path, seed: int, n_runs: int, topics, shuffled_ranks: bool = False):
    """Runs with tied scores, documents missing from some runs, a constant-score topic."""
    rng = random.Random(seed)
    pool = [f"doc{i:03d}" for i in range(40)] + ["D-7", "a", "b.x"]
    paths = []
    for r in range(n_runs):
        rows = []
        for t, q in enumerate(topics):
            docs = rng.sample(pool, rng.randint(1, 25))
            if t == 1:  # every score equal: min-max gives 1.0
                scores = [2.5] * len(docs)
            else:
                scores = sorted(
                    (rng.choice([1.0, 1.5, 2.0, round(rng.uniform(-3, 30), 4)]) for _ in docs), reverse=True
                )
            ranks = list(range(1, len(docs) + 1))
            if shuffled_ranks:
                rng.shuffle(ranks)
            rows += [(q, d, k, s) for d, k, s in zip(docs, ranks, scores)]
        paths.append(_write_run(tmp_path / f"run{r}.trec", rows))
    return paths


def _pyserini(paths, method, out, depth, k, **kw):
    from pyserini.fusion import average, interpolation, normalize, reciprocal_rank_fusion
    from pyserini.trectools import TrecRun

    runs = [TrecRun(filepath=str(p)) for p in paths]
    fn = {"rrf": reciprocal_rank_fusion, "interpolation": interpolation, "average": average, "normalize": normalize}
    fn[method](runs, depth=depth, k=k, **kw).save_to_txt(str(out), tag="t")
    return out.read_text().splitlines()


def _as_pyserini_writes(lines, numeric_topics: bool):
    """pyserini reads topic ids with pandas: all-integer ids become integers (001 -> 1)."""
    out = []
    for line in lines:
        q, rest = line.split(" ", 1)
        out.append(f"{int(q) if numeric_topics else q} {rest}")
    return out


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("seed", "topics", "n_runs", "depth", "k", "shuffled"),
    [
        (1, ["001", "002", "010", "3"], 2, None, None, False),
        (2, ["q1", "q2", "Q10", "b"], 2, 7, 9, False),
        (3, ["1", "2", "11"], 3, 12, 5, True),
        (4, ["050", "0", "7", "100"], 4, 3, None, False),
    ],
)
def test_equal_to_pyserini(tmp_path, method, seed, topics, n_runs, depth, k, shuffled):
    if method == "interpolation":
        n_runs = 2
    paths = _random_runs(tmp_path, seed, n_runs, topics, shuffled)
    kw = {"rrf": {"rrf_k": 60}, "interpolation": {"alpha": 0.3}}.get(method, {})
    expected = _pyserini(paths, method, tmp_path / "pyserini.trec", depth, k, **kw)
    out = tmp_path / "harness.trec"
    fuse(paths, FusionPolicy(method, depth=depth, k=k, **kw), out, "t")
    ours = out.read_text().splitlines()
    numeric = all(t.isdigit() for t in topics)
    assert _as_pyserini_writes(ours, numeric) == expected
    if numeric:  # topic ids as written
        assert {line.split()[0] for line in ours} == set(topics)


# pandas 3.1 sums pyserini's groups with numpy's add.reduceat when each (topic, doc)'s rows
# follow one another in the runs read one after the other, and with its compensated sum from
# 0.0 otherwise (harness.fusion.sums._pandas_sums_by_reduceat): the sign of a zero, and the last bit
# of a three-run sum, follow the layout.
LAYOUTS = {
    # runs that share no document: a lone -0.0 (alpha 1.0 times a negative score) stays -0.0
    "disjoint, interpolation": ("interpolation", {"alpha": 1.0}, [
        [("1", "a", 2.0), ("1", "b", -1.5)], [("1", "c", -3.0), ("1", "d", -4.0)]]),
    # the same with one shared document elsewhere: every group is summed from 0.0
    "shared, interpolation": ("interpolation", {"alpha": 1.0}, [
        [("1", "a", 2.0), ("1", "b", -1.5)], [("1", "a", -3.0), ("1", "d", -4.0)]]),
    # a chain: a is run 1's last row, run 2's only row and run 3's first, so the rows follow
    # one another: 1e16/3 + (1e16/3 + 1e8/3) by reduceat (6666666700000000.0), not the
    # compensated sum (6666666699999999.0)
    "chain, average": ("average", {}, [
        [("1", "x", 5.0), ("1", "a", 1e16)], [("1", "a", 1e16)], [("1", "a", 1e8), ("1", "y", 0.5)]]),
    "chain broken, average": ("average", {}, [
        [("1", "a", 1e16), ("1", "x", 5.0)], [("1", "a", 1e16)], [("1", "a", 1e8), ("1", "y", 0.5)]]),
}  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
def test_sums_follow_pandas_by_layout(tmp_path, layout):
    method, kw, runs = LAYOUTS[layout]
    paths = [_write_run(tmp_path / f"r{i}.trec", [(q, d, n, s) for n, (q, d, s) in enumerate(rows, 1)])
             for i, rows in enumerate(runs)]  # fmt: skip
    expected = _pyserini(paths, method, tmp_path / "p.trec", None, None, **kw)
    out = tmp_path / "o.trec"
    fuse(paths, FusionPolicy(method, **kw), out, "t")
    assert _as_pyserini_writes(out.read_text().splitlines(), True) == expected
    if layout.startswith("disjoint"):
        assert "-0.0" in out.read_text()
    if layout.startswith("chain"):  # the two sums differ, each taken where pandas takes it
        assert ("6666666700000000.0" if layout == "chain, average" else "6666666699999999.0") in out.read_text()


def test_three_runs_sum_as_pandas_does(tmp_path):
    """pyserini's groupby sum is compensated (Kahan): 1e16 + 1 + 1 is 1e16 + 2, not 1e16."""
    paths = [
        _write_run(tmp_path / f"r{i}.trec", [("1", "d", 1, s), ("1", "e", 2, 0.0)])
        for i, s in enumerate([1e16 * 3, 3.0, 3.0])
    ]
    run = fuse(paths, FusionPolicy("average", depth=None, k=None))
    assert run.ranked("1")[1].tolist()[0] == 1e16 + 2.0 != (1e16 + 1.0) + 1.0
    assert _pyserini(paths, "average", tmp_path / "p.trec", None, None)[0].split()[4] == repr(1e16 + 2.0)


def test_rrf_reads_the_rank_column(tmp_path):
    a = _write_run(tmp_path / "a.trec", [("1", "x", 5, 9.0), ("1", "y", 1, 8.0)])
    b = _write_run(tmp_path / "b.trec", [("1", "y", 3, 1.0)])
    run = fuse([a, b], FusionPolicy("rrf", rrf_k=10))
    docs, scores = run.ranked("1")
    assert docs == ["y", "x"]
    assert scores.tolist() == [1 / 11 + 1 / 13, 1 / 15]


def test_a_method_that_reads_no_rank_takes_any_rank_column_as_pyserini_does(tmp_path):
    """Only rrf reads the rank column (the registry's ``ranks``), so only rrf reads and checks
    it, in every door (a config's `fuse:` entry read it so already): pyserini fuses such a run
    by average; rrf refuses it naming the line."""
    a = _write_run(tmp_path / "a.trec", [("1", "x", "first", 3.0), ("1", "y", "2.5", 1.0)])
    b = _write_run(tmp_path / "b.trec", [("1", "y", 1, 10.0), ("1", "w", 2, 4.0)])
    out = tmp_path / "o.trec"
    fuse([a, b], FusionPolicy("average"), out, "t")
    assert out.read_text().splitlines() == _pyserini([a, b], "average", tmp_path / "p.trec", 1000, 1000)
    assert main(["fuse", str(a), str(b), "--method", "combsum", "-o", str(tmp_path / "cli.trec")]) == 0
    with pytest.raises(DataError, match="rank") as e:
        fuse([a, b], FusionPolicy("rrf"))
    assert str(e.value).startswith(f"{a}:1:")


# ------------------------------------------------------------- beyond pyserini, by hand
def _two(tmp_path):
    a = _write_run(tmp_path / "a.trec", [("1", "x", 1, 3.0), ("1", "y", 2, 1.0), ("1", "z", 3, 2.0)])
    b = _write_run(tmp_path / "b.trec", [("1", "y", 1, 10.0), ("1", "w", 2, 4.0)])
    return [a, b]


def test_combsum_weighted_raw(tmp_path):
    run = fuse(_two(tmp_path), FusionPolicy("combsum", weights=(2, 0.5)))
    # a x 2: x 6, y 2, z 4; b x 0.5: y 5, w 2
    assert run.ranked("1")[0] == ["y", "x", "z", "w"]
    assert run.ranked("1")[1].tolist() == [7.0, 6.0, 4.0, 2.0]


def test_combmnz_minmax(tmp_path):
    # a: x 1, y 0, z 0.5; b: y 1, w 0 -> y (0 + 1) * 2 runs = 2
    run = fuse(_two(tmp_path), FusionPolicy("combmnz", norm="minmax"))
    assert run.ranked("1")[0] == ["y", "x", "z", "w"]
    assert run.ranked("1")[1].tolist() == [2.0, 1.0, 0.5, 0.0]


def test_zscore_and_rank_norms(tmp_path):
    # a: scores 3, 1, 2: mean 2, population sd sqrt(2/3); b: 10, 4: mean 7, sd 3
    sd = (2 / 3) ** 0.5
    run = fuse(_two(tmp_path), FusionPolicy("combsum", norm="zscore"))
    got = dict(zip(*run.ranked("1")))
    assert got == pytest.approx({"x": 1 / sd, "y": -1 / sd + 1.0, "z": 0.0, "w": -1.0}, abs=1e-15)
    # rank: a gives 1, 2/3, 1/3 by file position; b gives 1, 1/2
    run = fuse(_two(tmp_path), FusionPolicy("combsum", norm="rank"))
    assert dict(zip(*run.ranked("1"))) == pytest.approx({"y": 2 / 3 + 1, "x": 1.0, "w": 0.5, "z": 1 / 3}, abs=1e-15)


# ------------------------------------------------------------- doors and errors
def test_cli_verb_and_api_agree(tmp_path):
    import harness

    paths = _random_runs(tmp_path, 9, 2, ["1", "2"])
    argv = [
        "fuse",
        *map(str, paths),
        "--method",
        "normalize",
        "--depth",
        "5",
        "-k",
        "all",
        "-o",
        str(tmp_path / "cli.trec"),
    ]
    assert main(argv) == 0
    fuse(paths, FusionPolicy("normalize", depth=5, k=None), tmp_path / "verb.trec")
    df = harness.fuse([str(p) for p in paths], "normalize", depth=5, k=None)
    cli = (tmp_path / "cli.trec").read_text()
    assert cli == (tmp_path / "verb.trec").read_text()
    rows = [line.split() for line in cli.splitlines()]
    assert df["qid"].tolist() == [r[0] for r in rows]
    assert df["docno"].tolist() == [r[2] for r in rows]
    assert df["rank"].tolist() == [int(r[3]) for r in rows]
    assert df["score"].tolist() == [float(r[4]) for r in rows]
    assert {r[5] for r in rows} == {"harness.fuse"}


def test_duplicate_line_is_an_error_naming_file_and_line(tmp_path):
    a = _write_run(tmp_path / "a.trec", [("1", "x", 1, 3.0), ("1", "y", 2, 2.0), ("1", "x", 3, 1.0)])
    b = _write_run(tmp_path / "b.trec", [("1", "x", 1, 3.0)])
    with pytest.raises(DataError) as e:
        fuse([a, b], FusionPolicy())
    assert str(e.value).startswith(f"{a}:3: duplicate document") and "first seen on line 1" in str(e.value)


def test_other_errors(tmp_path, capsys):
    a, b = _two(tmp_path)
    empty = tmp_path / "empty.trec"
    empty.write_text("")
    with pytest.raises(DataError, match="no lines"):
        fuse([a, empty], FusionPolicy())
    with pytest.raises(DataError, match="at least two runs"):
        fuse([a], FusionPolicy())
    with pytest.raises(DataError, match="exactly two runs"):
        fuse([a, b, a], FusionPolicy("interpolation"))
    with pytest.raises(DataError, match="one weight per run"):
        fuse([a, b], FusionPolicy("combsum", weights=(1.0,)))
    bad = _write_run(tmp_path / "bad.trec", [("1", "x", "first", 1.0)])
    with pytest.raises(DataError, match="rank") as e:
        fuse([a, bad], FusionPolicy())
    assert str(e.value).startswith(f"{bad}:1:")
    with pytest.raises(SystemExit) as exit_:
        main(["fuse", str(a), str(b), "--method", "combsum", "--norm", "nope", "-o", "x"])
    assert exit_.value.code == 2
    assert main(["fuse", str(a), str(b), "--method", "rrf", "--norm", "minmax", "-o", str(tmp_path / "o")]) == 2
    assert "combsum and combmnz only" in capsys.readouterr().err


def test_read_run_keeps_ranks_only_when_asked(tmp_path):
    a = _write_run(tmp_path / "a.trec", [("2", "x", 7, 3.0), ("1", "y", 4, 2.0), ("2", "z", 9, 1.0)])
    assert read_run(a).ranks is None
    assert read_run(a, ranks=True).ranks.tolist() == [7, 9, 4]


# ------------------------------------------------------------- random runs, pyserini as the oracle
_RUN = st.lists(
    st.tuples(
        st.sampled_from(["1", "2", "07", "30"]),
        st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "AA", "b2"]),
        st.sampled_from([0.0, -0.0, 1.0, 1.5, -2.0, 3.25, 7.0, 1e-3, 12345.678]),
    ),
    min_size=1,
    max_size=25,
    unique_by=lambda row: (row[0], row[1]),
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    runs=st.lists(_RUN, min_size=2, max_size=3),
    method=st.sampled_from(METHODS),
    depth=st.sampled_from([None, 1, 3, 10]),
    k=st.sampled_from([None, 1, 4]),
)
def test_random_runs_equal_pyserini(tmp_path, runs, method, depth, k):
    if method == "interpolation":
        runs = runs[:2]
    paths = []
    for i, rows in enumerate(runs):
        rows = sorted(rows, key=lambda r: int(r[0]))  # each topic's rows together, in the drawn order
        ranked = []
        for q in dict.fromkeys(r[0] for r in rows):
            ranked += [(q, d, n, s) for n, (_, d, s) in enumerate((r for r in rows if r[0] == q), 1)]
        paths.append(_write_run(tmp_path / f"h{i}.trec", ranked))
    expected = _pyserini(paths, method, tmp_path / "p.trec", depth, k)
    out = tmp_path / "o.trec"
    fuse(paths, FusionPolicy(method, depth=depth, k=k), out, "t")
    assert _as_pyserini_writes(out.read_text().splitlines(), True) == expected


def test_api_takes_tables_and_dicts(tmp_path):
    import pandas as pd

    import harness

    a, b = _two(tmp_path)
    from_files = harness.fuse([str(a), str(b)], "combmnz", norm="minmax")
    table = pd.DataFrame({"qid": ["1"] * 3, "docno": ["x", "y", "z"], "score": [3.0, 1.0, 2.0]})
    from_tables = harness.fuse([table, {"1": {"y": 10.0, "w": 4.0}}], "combmnz", norm="minmax")
    pd.testing.assert_frame_equal(from_files, from_tables, check_like=False)
    assert from_files["docno"].tolist() == ["y", "x", "z", "w"]
    assert from_files["score"].tolist() == [2.0, 1.0, 0.5, 0.0]


# ------------------------------------------------------------- the stage's tables
def test_the_dispatch_tables_implement_the_registry_and_the_doctests_hold():
    """harness.fusion's dispatch tables are the registry's methods and normalisations, in its
    order (CLI choices, config checks, the JSON Schema and the docs read the registry)."""
    import doctest
    import importlib

    from harness.fusion import METHODS, NORMS
    from harness.policies import FUSION_METHODS, NORMALIZATIONS

    assert list(METHODS) == list(FUSION_METHODS)
    assert list(NORMS) == list(NORMALIZATIONS)
    assert doctest.testmod(importlib.import_module("harness.fusion.fused")).failed == 0


def test_every_door_reads_the_registry():
    """The command line's choices, defaults and help, the config's `fuse:` keys and the JSON
    Schema name exactly the registry's methods and normalisations, and the options each reads."""
    import argparse

    from harness.cli import build_parser
    from harness.config.json_schema import json_schema
    from harness.config.sources import FUSE_KEY
    from harness.policies import FUSION_METHODS, NORMALIZATIONS

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    flags = {a.dest: a for a in sub.choices["fuse"]._actions}
    keys = {k.name: k for k in FUSE_KEY.keys}
    assert tuple(flags["method"].choices) == keys["method"].choices == tuple(FUSION_METHODS)
    assert tuple(flags["norm"].choices) == keys["norm"].choices == tuple(NORMALIZATIONS)
    for name, m in FUSION_METHODS.items():
        assert f"{name}: {m.doc}" in flags["method"].help
    for option, flag in (("norm", "norm"), ("weights", "weights"), ("rrf_k", "rrf_k"), ("alpha", "alpha")):
        users = [name for name, m in FUSION_METHODS.items() if option in m.options]
        assert flags[flag].help.startswith("/".join(users) + ": ")
        assert keys[option].doc.startswith(", ".join(users) + ": ")
    fuse_entry = next(
        e["properties"]["fuse"]
        for e in json_schema()["properties"]["runs"]["items"]["oneOf"]
        if "fuse" in e.get("properties", {})
    )
    assert fuse_entry["properties"]["method"]["enum"] == list(FUSION_METHODS)
    assert fuse_entry["properties"]["norm"]["enum"] == list(NORMALIZATIONS)


@pytest.mark.parametrize(
    ("method", "n", "weights", "problem"),
    [
        ("rrf", 1, None, ("runs", "rrf fuses at least two runs (got 1)")),
        ("interpolation", 3, None, ("runs", "interpolation fuses exactly two runs (got 3)")),
        ("combsum", 3, (1, 2), ("weights", "one weight per run (3 runs, 2 weights)")),
        ("average", 4, None, None),
    ],
)
def test_the_number_of_runs_is_checked_once_for_every_door(tmp_path, method, n, weights, problem):
    """FusionPolicy.runs_problem, from the registry's ``runs``: the stage, the verb (before any
    file is read: these files do not exist) and the config give its message."""
    policy = FusionPolicy(method, weights=weights)
    assert policy.runs_problem(n) == problem
    if problem is None:
        return
    text = problem[1] if problem[0] == "runs" else f"{problem[0]}: {problem[1]}"
    with pytest.raises(DataError, match=f"^fuse: {re.escape(text)}$"):
        fuse([tmp_path / f"missing{i}.trec" for i in range(n)], policy)
    with pytest.raises(ValueError, match=re.escape(text)):
        fuse_runs([read_run(p) for p in _two(tmp_path)[:1]] * n, policy)
