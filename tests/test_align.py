"""One topic-alignment rule (harness.stats.align) behind every door: the command line, the
Python API and configs pair topics in trec_eval's order, so seeded p-values and intervals do not
depend on the order a file lists its topics in."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import harness
from harness.errors import DataError
from harness.stats import bootstrap_ci, randomization
from harness.stats.align import align

from .conftest import REPO

TOPICS = [str(q) for q in (1, 2, 3, 10, 11, 20, 100, 7, 8, 9)]


def test_strict_pairs_in_string_order_and_common_counts_the_rest():
    per = {
        "a": {"AP": {"2": 0.2, "10": 0.1, "1": 0.3}},
        "b": {"AP": {"1": 0.6, "2": 0.5, "10": 0.4}},
    }
    got = align(per, ["AP"])
    assert got.topics == ("1", "10", "2") and got.dropped == ()
    assert got.scores["a"]["AP"].tolist() == [0.3, 0.1, 0.2]
    assert got.scores["b"]["AP"].tolist() == [0.6, 0.4, 0.5]
    per["b"]["AP"].pop("10")
    per["b"]["AP"]["99"] = 0.9
    with pytest.raises(DataError) as e:
        align(per, ["AP"], hint="use --align common")
    assert str(e.value) == (
        "runs: AP: run 'b' and run 'a' are scored on different topics: 1 topic(s) only 'a' has ('10'); "
        "1 topic(s) only 'b' has ('99'); paired tests need every run scored on the same topics (use --align common)"
    )
    got = align(per, ["AP"], "common")
    assert got.topics == ("1", "2") and got.dropped == ("10", "99")
    with pytest.raises(ValueError, match="align must be one of"):
        align(per, ["AP"], "loose")


def _write_runs(folder: Path, seed: int) -> tuple[list[Path], Path]:
    """Five runs over ten topics; the baseline lists its topics in a shuffled order."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(30)]
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {int(rng.random() < 0.3)}\n" for q in TOPICS for d in docs))
    paths = []
    for r in range(5):
        order = list(TOPICS)
        if r == 0:
            rng.shuffle(order)
        lines = []
        for q in order:
            ranked = rng.sample(docs, 20)
            lines += [f"{q} Q0 {d} {i + 1} {20 - i} r{r}\n" for i, d in enumerate(ranked)]
        p = folder / f"r{r}.trec"
        p.write_text("".join(lines))
        paths.append(p)
    return paths, qrels


def test_the_command_line_and_the_api_give_the_same_seeded_p_values(tmp_path):
    paths, qrels = _write_runs(tmp_path, 3)
    out = subprocess.run(
        [sys.executable, "-m", "harness", "compare", *map(str, paths), "--qrels", str(qrels)]
        + ["--baseline", "r0", "-m", "AP", "--test", "randomization"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"HARNESS_JAVA_OPTS": "-Xno-such-option", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    cli = {line.split()[1]: line.split() for line in out.stdout.splitlines() if line.startswith("AP ")}
    per_topic = pd.concat([harness.evaluate(p, qrels, "AP")[0] for p in paths])
    api = harness.compare(per_topic, baseline="r0", test="randomization").set_index("run")
    # the independent oracle: the seeded tests on vectors paired in string order
    ap = per_topic.pivot(index="qid", columns="run", values="value").sort_index()
    assert list(ap.index) == sorted(TOPICS)
    for run in ("r1", "r2", "r3", "r4"):
        p = randomization(ap[run].to_numpy(), ap["r0"].to_numpy())
        lo, hi = bootstrap_ci(ap[run].to_numpy(), ap["r0"].to_numpy())
        assert api.loc[run, "p"] == p
        assert (api.loc[run, "ci_low"], api.loc[run, "ci_high"]) == (lo, hi)
        assert cli[run][7] == f"{p:.4f}"
        assert cli[run][5:7] == [f"[{lo:+.4f},", f"{hi:+.4f}]"]
    # and whatever order the table lists its rows in
    shuffled = per_topic.sample(frac=1.0, random_state=1)
    again = harness.compare(shuffled, baseline="r0", test="randomization").set_index("run")
    np.testing.assert_array_equal(again.loc[api.index, "p"], api["p"])
