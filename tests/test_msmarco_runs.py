"""MS MARCO's run layout (qid<TAB>pid<TAB>rank) at every door that reads or writes runs: `harness
evaluate`, `compare`, `fuse` (--run-format msmarco), `search` (writes it), `file:` runs with
`format: msmarco`, and the Python API. The oracle: Anserini's documented conversion to a TREC run
(castorini/anserini-tools scripts/msmarco/convert_msmarco_to_trec_run.py: score 1.0 / rank,
written with Python's str) scored by the trec_eval binary and fused by pyserini.fusion 2.4.0."""

from __future__ import annotations

import contextlib
import random
import subprocess

import pytest

import harness
from harness.cli import main
from harness.errors import DataError, HarnessWarning
from harness.formats.msmarco import read_msmarco_run, write_msmarco_run
from harness.formats.runs import read_run

from .conftest import REPO
from .test_trec_eval_binary import trec_eval  # noqa: F401 (the fixture)

FLAGS = ["-m", "map", "-m", "recip_rank", "-m", "P.5", "-m", "ndcg_cut.10", "-m", "num_ret", "-m", "bpref"]
MEASURES = ["AP", "RR", "P@5", "nDCG@10", "NumRet", "bpref"]
TREC = {"AP": "map", "RR": "recip_rank", "P@5": "P_5", "nDCG@10": "ndcg_cut_10", "NumRet": "num_ret", "bpref": "bpref"}


def _as_anserini_converts(text: str) -> str:
    """convert_msmarco_to_trec_run.py's rule, as its source states it: each line split on tabs
    into (qid, pid, rank), written as 'qid Q0 pid rank score anserini' with score = 1.0 / rank."""
    out = []
    for line in text.splitlines():
        q, d, r = line.strip().split("\t")
        out.append(f"{q} Q0 {d} {r} {1.0 / int(r)} anserini\n")
    return "".join(out)


def _msmarco_run(seed: int, topics, docs, gaps: bool = False, repeats: bool = False) -> str:
    rng = random.Random(seed)
    lines = []
    for q in topics:
        picked = rng.sample(docs, rng.randint(1, 15))
        rank = 0
        for d in picked:
            rank += rng.choice([1, 1, 2, 3]) if gaps else 1
            if repeats and rank > 1 and rng.random() < 0.2:
                rank -= 1  # the rank of the row before: a tie
            lines.append(f"{q}\t{d}\t{rank}\n")
    if seed % 2:
        rng.shuffle(lines)  # rows in any order: the ranks order them
    return "".join(lines)


def _qrels(seed: int, topics, docs) -> str:
    rng = random.Random(seed + 100)
    lines = []
    for q in topics:
        for d in rng.sample(docs, 8):
            lines.append(f"{q} 0 {d} {rng.choice([0, 0, 1, 2])}\n")
    return "".join(lines)


TOPICS = ["1", "2", "30", "1048585", "7"]
DOCS = [str(n) for n in (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181)]


def _harness(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(("seed", "gaps", "repeats"), [(1, False, False), (2, True, False), (3, True, True)])
def test_evaluate_equals_trec_eval_on_anserinis_conversion(trec_eval, tmp_path, capsys, seed, gaps, repeats):  # noqa: F811
    text = _msmarco_run(seed, TOPICS[:-1], DOCS, gaps, repeats)
    (tmp_path / "run.tsv").write_text(text)
    (tmp_path / "run.trec").write_text(_as_anserini_converts(text))
    (tmp_path / "qrels.txt").write_text(_qrels(seed, TOPICS, DOCS))
    ref = subprocess.run(
        [trec_eval, "-c", "-q", *FLAGS, "qrels.txt", "run.trec"], cwd=tmp_path, capture_output=True, text=True
    )
    assert ref.returncode == 0, ref.stderr
    expected = {}
    for line in ref.stdout.splitlines():
        name, topic, value = line.split()
        expected[(name, topic)] = value
    if True:  # the CLI prints warnings on stderr
        code, out, err = _harness(
            capsys, "evaluate", tmp_path / "run.tsv", tmp_path / "qrels.txt", "--run-format", "msmarco", "-q",
            "-m", *MEASURES,
        )  # fmt: skip
    assert code == 0, err
    assert ("is given twice for topic" in err) == repeats, err
    got = {}
    for line in out.splitlines():
        name, topic, value = line.split("\t")
        got[(TREC[name], topic)] = value
    want = {k: v for k, v in expected.items() if k[0] in TREC.values()}  # trec_eval -q skips a topic the run lacks
    assert {k: got.get(k) for k in want} == want and all(got[k] in ("0.0000", "0") for k in set(got) - set(want))
    # the Python API: the same numbers (means) from the same file
    with pytest.warns(HarnessWarning) if repeats else contextlib.nullcontext():
        _, means = harness.evaluate(tmp_path / "run.tsv", tmp_path / "qrels.txt", MEASURES, run_format="msmarco")
    for m in MEASURES:
        if m != "NumRet":  # a count: trec_eval's "all" line is its sum, the API's means its mean
            assert f"{means.loc['run', m]:.4f}" == expected[(TREC[m], "all")], m


def test_scores_are_one_over_rank_and_ranks_are_kept(tmp_path):
    (tmp_path / "r.tsv").write_text("q1\td2\t2\nq1\td1\t1\nq2\td9\t7\n")
    run = read_msmarco_run(tmp_path / "r.tsv")
    docs, scores = run.ranked("q1")
    assert docs == ["d2", "d1"] and scores.tolist() == [0.5, 1.0]
    assert run.ranks.tolist() == [2, 1, 7] and run.ranked("q2")[1].tolist() == [1.0 / 7]
    # the TREC text Anserini's conversion writes reads back to the same floats, bit for bit
    (tmp_path / "r.trec").write_text(_as_anserini_converts((tmp_path / "r.tsv").read_text()))
    assert read_run(tmp_path / "r.trec").scores.tobytes() == run.scores.tobytes()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1\td1\t1\n1\td2\t0\n", "r.tsv:2: rank (field 3) must be 1 or more, got 0"),
        ("1\td1\t1\n1\td2\t-3\n", "r.tsv:2: rank (field 3) must be 1 or more, got -3"),
        ("1\td1\t1.5\n", "r.tsv:1: rank (field 3) must be an integer"),
        ("1 Q0 d1 1 2.5 tag\n", "Six fields are a TREC run"),
        ("1\td1\n", "r.tsv:1: expected 3"),
        (
            "1\td1\t1\n1\td1\t2\n",
            "r.tsv:2: duplicate document for topic '1', document 'd1' (first seen on line 1)",
        ),  # a passage twice for one topic: both lines named
    ],
)
def test_bad_lines_are_named(tmp_path, capsys, text, message):
    (tmp_path / "r.tsv").write_text(text)
    (tmp_path / "q.txt").write_text("1 0 d1 1\n")
    code, out, err = _harness(capsys, "evaluate", tmp_path / "r.tsv", tmp_path / "q.txt", "--run-format", "msmarco")
    assert code == 2 and message in err, err


def test_a_repeated_rank_is_a_warning_naming_both_lines(tmp_path):
    (tmp_path / "r.tsv").write_text("1\td1\t1\n1\td2\t2\n1\td3\t2\n")
    with pytest.warns(HarnessWarning, match=r"rank 2 is given twice for topic '1' \(lines 2 and 3\)"):
        run = read_msmarco_run(tmp_path / "r.tsv")
    assert run.scores.tolist() == [1.0, 0.5, 0.5]


def test_a_trec_run_read_as_msmarco_and_back(tmp_path, capsys):
    """The 3-field hint names the flag; the 6-field hint names the other way round."""
    (tmp_path / "r.tsv").write_text("1\td1\t1\n")
    (tmp_path / "q.txt").write_text("1 0 d1 1\n")
    code, _, err = _harness(capsys, "evaluate", tmp_path / "r.tsv", tmp_path / "q.txt")
    assert code == 2 and "--run-format msmarco" in err


def test_written_runs_read_back_as_written(tmp_path):
    run = read_run(_write(tmp_path / "r.trec", "2 Q0 b 1 3.5 t\n2 Q0 a 2 1.25 t\n1 Q0 c 1 9 t\n"))
    write_msmarco_run(tmp_path / "r.tsv", run)
    assert (tmp_path / "r.tsv").read_text() == "2\tb\t1\n2\ta\t2\n1\tc\t1\n"
    back = read_msmarco_run(tmp_path / "r.tsv")
    assert back.topics() == run.topics() and [back.ranked(q)[0] for q in back.topics()] == [
        run.ranked(q)[0] for q in run.topics()
    ]


def test_each_layout_of_the_table_is_written_and_read_back_by_its_own_reader_and_writer(tmp_path):
    """policies.RUN_FORMATS is the one list of layouts: each has its reader and writer in
    harness.formats.run_files (a layout added without them fails here), and writes what its
    value says of it: the file's extension, the tag column of a tagged layout."""
    from harness.formats.run_files import read_run_file, write_run_file
    from harness.policies import RUN_FORMATS, ReadPolicy

    run = read_run(_write(tmp_path / "r.trec", "2 Q0 b 1 3.5 t\n2 Q0 a 2 1.25 t\n1 Q0 c 1 9 t\n"))
    written = {}
    for name, layout in RUN_FORMATS.items():
        path = tmp_path / layout.file_name("bm25(k1=0.9,b=0.4).trec")
        write_run_file(path, run, layout, "mine")
        back = read_run_file(path, ReadPolicy(run_format=name))
        assert [back.ranked(q)[0] for q in back.topics()] == [run.ranked(q)[0] for q in run.topics()]
        assert path.read_text().splitlines()[0].endswith(" mine") == layout.tagged, name
        written[name] = (path.name, path.read_text())
    assert written == {
        "trec": ("bm25(k1=0.9,b=0.4).trec", "2 Q0 b 1 3.5 mine\n2 Q0 a 2 1.25 mine\n1 Q0 c 1 9.0 mine\n"),
        "msmarco": ("bm25(k1=0.9,b=0.4).tsv", "2\tb\t1\n2\ta\t2\n1\tc\t1\n"),  # Pyserini's layout
    }


def _write(path, text):
    path.write_text(text)
    return path


def test_fuse_reads_and_writes_msmarco_runs_as_pyserini_fuses_the_conversions(tmp_path, capsys):
    from pyserini.fusion import reciprocal_rank_fusion
    from pyserini.trectools import TrecRun

    paths, converted = [], []
    for seed in (4, 6):
        text = _msmarco_run(seed, TOPICS, DOCS)
        paths.append(_write(tmp_path / f"r{seed}.tsv", text))
        converted.append(_write(tmp_path / f"r{seed}.trec", _as_anserini_converts(text)))
    out = tmp_path / "fused.tsv"
    code, _, err = _harness(capsys, "fuse", *paths, "--run-format", "msmarco", "-o", out, "--method", "rrf")
    assert code == 0, err
    ref = tmp_path / "pyserini.trec"
    reciprocal_rank_fusion([TrecRun(filepath=str(p)) for p in converted], rrf_k=60, depth=1000, k=1000).save_to_txt(
        str(ref), tag="t"
    )
    expected = [line.split()[:4] for line in ref.read_text().splitlines()]
    got = [line.split("\t") for line in out.read_text().splitlines()]
    assert [[q, d, r] for q, _, d, r in expected] == got
    # an existing MS MARCO file there has no tag to say the harness wrote it: never replaced
    code, _, err = _harness(capsys, "fuse", *paths, "--run-format", "msmarco", "-o", out)
    assert code == 2 and "no tag column" in err
    # the API: the same fusion
    df = harness.fuse(paths, "rrf", run_format="msmarco")
    assert [[str(q), str(d), str(r)] for q, d, r in zip(df.qid, df.docno, df["rank"])] == got


def test_compare_reads_msmarco_runs_as_their_conversions(tmp_path, capsys):
    qrels = _write(tmp_path / "q.txt", _qrels(5, TOPICS, DOCS))
    ms, trec = [], []
    (tmp_path / "ms").mkdir()
    (tmp_path / "trec").mkdir()
    for seed in (8, 10, 12):
        text = _msmarco_run(seed, TOPICS, DOCS)
        ms.append(_write(tmp_path / "ms" / f"run{seed}.tsv", text))
        trec.append(_write(tmp_path / "trec" / f"run{seed}.tsv", _as_anserini_converts(text)))
    code, out_ms, err = _harness(
        capsys, "compare", *ms, "--qrels", qrels, "--baseline", ms[0], "--run-format", "msmarco", "-m", "AP", "RR"
    )
    assert code == 0, err
    code, out_trec, err = _harness(capsys, "compare", *trec, "--qrels", qrels, "--baseline", trec[0], "-m", "AP", "RR")
    assert code == 0, err
    assert out_ms == out_trec


def test_file_runs_in_a_config_take_format_msmarco(tmp_path):
    from harness.config import load_config

    (tmp_path / "mine.tsv").write_text("1\tsample_docs/a.txt\t1\n")
    (tmp_path / "c.yaml").write_text(
        f"name: x\ncollection: {{path: {REPO}/corpora, format: text-folder}}\n"
        f"topics: {{path: {REPO}/topics/demo.tsv, format: tsv}}\nqrels: {REPO}/qrels/demo.txt\n"
        "output: out\nruns:\n  - bm25\n  - {name: mine, file: mine.tsv, format: msmarco}\n"
    )
    cfg = load_config(tmp_path / "c.yaml")
    (spec,) = cfg.sources
    assert spec.format == "msmarco" and str(spec) == "file(mine.tsv,format=msmarco)"
    (tmp_path / "c.yaml").write_text((tmp_path / "c.yaml").read_text().replace("format: msmarco", "format: tsv"))
    with pytest.raises(Exception, match=r"runs\[1\]\.format: must be one of trec, msmarco"):
        load_config(tmp_path / "c.yaml")


def test_bad_run_format_is_named():
    with pytest.raises(DataError, match="run_format must be one of"):
        harness.evaluate({"1": {"d": 1.0}}, {"1": {"d": 1}}, "AP", run_format="msmarcoo")


@pytest.mark.java
def test_a_config_reads_an_msmarco_file_run_and_search_writes_msmarco_runs(tmp_path):
    """A `file:` run with `format: msmarco` scores what pytrec_eval scores on Anserini's conversion
    of the file; `harness search --run-format msmarco` writes each run's (qid, docid, rank) as the
    TREC run gives them."""
    from harness.verbs.run import load, run, search

    from .test_file_runs import HEAD, _file_run, _pytrec

    trec = _file_run(tmp_path / "mine.trec")
    (tmp_path / "mine.tsv").write_text(
        "".join(f"{q}\t{d}\t{r}\n" for q, _, d, r, _, _ in (ln.split() for ln in trec.read_text().splitlines()))
    )
    (tmp_path / "converted.trec").write_text(_as_anserini_converts((tmp_path / "mine.tsv").read_text()))
    (tmp_path / "indexes").mkdir()
    (tmp_path / "c.yaml").write_text(
        HEAD + "measures: [AP, nDCG@10, P@10, RR]\nruns:\n  - {name: base, bm25: {k1: 0.9, b: 0.4}}\n"
        "  - {name: mine, file: mine.tsv, format: msmarco}\n"
    )
    result = run(load(tmp_path / "c.yaml")).result
    expected = _pytrec(tmp_path / "converted.trec")
    for m, values in expected.items():
        assert result.evaluations["mine"].per_topic[m] == pytest.approx(values, abs=1e-12), m
    assert (
        read_run(tmp_path / "out" / "runs" / "mine.trec").ranked("1")[0]
        == read_msmarco_run(tmp_path / "mine.tsv").ranked("1")[0]
    )
    trec_runs = search(load(tmp_path / "c.yaml", output=str(tmp_path / "s1")))
    ms_runs = search(load(tmp_path / "c.yaml", output=str(tmp_path / "s2")), run_format="msmarco")
    for (name, _, t), (name2, _, m) in zip(trec_runs.runs, ms_runs.runs, strict=True):
        assert name == name2 and m.suffix == ".tsv" and m.stem == t.stem
        want = [(q, d, r) for q, _, d, r, _, _ in (ln.split() for ln in t.read_text().splitlines())]
        assert [tuple(ln.split("\t")) for ln in m.read_text().splitlines()] == want, name


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_the_trec_copy_of_an_msmarco_run_is_anserinis_conversion(tmp_path, seed):
    """The TREC text the harness writes of an MS MARCO run (the report's copy of a `file:` run)
    holds each row's rank as given and 1/rank, in the file's order within each topic: the lines
    Anserini's convert_msmarco_to_trec_run.py writes, so fusing the copy by rank fuses the original
    (was: ranks 1..n, which a shuffled file or one with gaps made disagree with its scores)."""
    from harness.formats.runs import write_run

    text = _msmarco_run(seed, TOPICS, DOCS, gaps=True, repeats=seed == 3)
    (tmp_path / "r.tsv").write_text(text)
    write_run(tmp_path / "copy.trec", read_msmarco_run(tmp_path / "r.tsv"), "anserini")
    got = (tmp_path / "copy.trec").read_text().splitlines()
    want = _as_anserini_converts(text).splitlines()
    for q in TOPICS:
        assert [ln for ln in got if ln.split()[0] == q] == [ln for ln in want if ln.split()[0] == q], q
    assert sorted(got) == sorted(want)
