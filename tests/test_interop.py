"""Inputs as other tools write them (trec_eval's own files, Anserini, PyTerrier, ranx, ir_datasets,
BEIR, spreadsheets and shell pipelines), fed to `harness evaluate`, `harness trec_eval`,
`harness compare`, `harness fuse` and the Python API. Each either gives the numbers of an oracle
that is not the harness (the trec_eval binary of Anserini's fatjar, pytrec_eval) or is refused
with an error naming the file and saying what to do (exit 2), never a traceback."""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import re
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

import harness
from harness.cli import main
from harness.errors import DataError, HarnessWarning
from harness.formats.topics import read_topics

from .test_trec_eval_binary import trec_eval  # noqa: F401 (the fixture)

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 1\n10 0 d6 1\n"
RUN = (
    "1 Q0 d1 1 1.5 r\n1 Q0 d3 2 1.2 r\n1 Q0 d9 3 1.0 r\n2 Q0 d5 1 3 r\n2 Q0 d4 2 2 r\n10 Q0 d9 1 1 r\n10 Q0 d6 2 1 r\n"
)
FLAGS = ["-m", "map", "-m", "P.5", "-m", "ndcg", "-m", "num_ret", "-m", "recip_rank", "-m", "bpref"]

# The same judgments and results as their writers lay them out; each must give trec_eval's numbers.
RUN_FILES = {
    "scientific notation": RUN.replace("1.5 r", "1.5e+00 r").replace("1.2 r", "12E-1 r").replace("3 r", "3e-300 r"),
    "negative scores": RUN.replace(" 1.5 ", " -1.5 ").replace(" 1.2 ", " -1.2 ").replace(" 1.0 ", " -0.5 "),
    "infinities": RUN.replace(" 1.5 ", " inf ").replace(" 1.2 ", " -Infinity ").replace(" 3 r", " +INF r"),
    "float32 overflow": RUN.replace(" 1.5 ", " 1e39 ").replace(" 1.2 ", " 2e39 ").replace(" 3 r", " 1e400 r"),
    "float32 underflow": RUN.replace(" 1.5 ", " 1e-320 ").replace(" 1.2 ", " 2e-46 ").replace(" 1.0 ", " 1e-50 "),
    "short forms": RUN.replace(" 1.5 ", " 1. ").replace(" 1.2 ", " .5 ").replace(" 1.0 ", " +.25 "),
    "ranks as other tools write them": RUN.replace(" 1 1.5", " 99999999999999999999 1.5").replace(" 2 1.2", " -5 1.2"),
    "ranks from 0 (PyTerrier)": "".join(
        f"{q} {z} {d} {int(r) - 1} {s} {t}\n" for q, z, d, r, s, t in (ln.split() for ln in RUN.splitlines())
    ),
    "unsorted lines": "".join(sorted(RUN.splitlines(keepends=True), key=lambda ln: ln.split()[2])),
    "all scores tied": "".join(" ".join([*ln.split()[:4], "1", "r"]) + "\n" for ln in RUN.splitlines()),
    "CRLF": RUN.replace("\n", "\r\n"),
    "tabs": RUN.replace(" ", "\t"),
    "trailing whitespace": RUN.replace("\n", " \t \n"),
    "no final newline": RUN.rstrip("\n"),
    "blank lines": "\n" + RUN.replace("\n", "\n\n"),
    "words after the tag": RUN.replace(" r\n", " r extra 1 2\n"),
    "ranx's tag and repr scores": RUN.replace(" r\n", " ranx\n").replace(" 1.2 ", " 1.2000000000000002 "),
}
QRELS_FILES = {
    "ir_datasets iteration Q0": QRELS.replace(" 0 d", " Q0 d"),
    "graded and negative labels": QRELS.replace("d2 0", "d2 -1").replace("d3 2", "d3 4").replace("d6 1", "d6 3"),
    "labels with a sign": QRELS.replace("d1 1", "d1 +1"),
    # pandas writes a label column that held a missing value as floats; trec_eval's atol reads 2.0 as 2
    "pandas float labels": QRELS.replace(" 1\n", " 1.0\n").replace("d2 0", "d2 -0.0").replace("d3 2", "d3 +2."),
    "tabs": QRELS.replace(" ", "\t"),
    "CRLF": QRELS.replace("\n", "\r\n"),
    "trailing whitespace": QRELS.replace("\n", "  \n"),
    "no final newline": QRELS.rstrip("\n"),
}


def _oracle(binary, tmp_path, qrels: str, run: str) -> subprocess.CompletedProcess:
    (tmp_path / "q.txt").write_text(qrels, newline="")
    (tmp_path / "r.txt").write_text(run, newline="")
    return subprocess.run([binary, "-c", *FLAGS, "q.txt", "r.txt"], cwd=tmp_path, capture_output=True, text=True)


def _harness(tmp_path, capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([a.replace("@", str(tmp_path) + "/") for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("kind, name", [("run", n) for n in RUN_FILES] + [("qrels", n) for n in QRELS_FILES])
def test_files_as_other_tools_write_them_give_trec_evals_numbers(trec_eval, tmp_path, capsys, kind, name):  # noqa: F811
    qrels, run = (QRELS, RUN_FILES[name]) if kind == "run" else (QRELS_FILES[name], RUN)
    ref = _oracle(trec_eval, tmp_path, qrels, run)
    assert ref.returncode == 0, ref.stderr
    code, out, err = _harness(tmp_path, capsys, "trec_eval", "-c", *FLAGS, "@q.txt", "@r.txt")
    assert (code, out) == (0, ref.stdout), err
    # harness evaluate prints the same "all" values (the harness's measure names)
    code, out, err = _harness(tmp_path, capsys, "evaluate", "@r.txt", "@q.txt", "-m", "AP", "nDCG", "RR", "bpref")
    assert code == 0, err
    got = dict(line.split("\t")[::2] for line in out.splitlines())
    want = {m: line.split()[2] for line in ref.stdout.splitlines() for m in [line.split()[0]]}
    assert got == {"AP": want["map"], "nDCG": want["ndcg"], "RR": want["recip_rank"], "bpref": want["bpref"]}


COMPRESSED = {
    "gz": (gzip.compress, "gzip", "gunzip -k"),
    "bz2": (bz2.compress, "bzip2", "bunzip2 -k"),
    "xz": (lzma.compress, "xz", "unxz -k"),
}


@pytest.mark.parametrize("ext", COMPRESSED)
def test_compressed_runs_and_qrels_are_refused_by_name(trec_eval, tmp_path, capsys, ext):  # noqa: F811
    """ir_datasets and shell pipelines leave qrels and runs compressed. trec_eval reads the bytes as
    text (9.0.4 crashes on a .gz run); the harness reported a control character on line 1, or, for
    bzip2, whatever its bytes made of the fields. Now: the format and the command that undoes it."""
    compress, name, command = COMPRESSED[ext]
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    (tmp_path / f"q.{ext}").write_bytes(compress(QRELS.encode()))
    (tmp_path / f"r.{ext}").write_bytes(compress(RUN.encode()))
    if ext == "gz":
        ref = subprocess.run([trec_eval, "q.txt", "r.gz"], cwd=tmp_path, capture_output=True, text=True)
        assert ref.returncode != 0 and not ref.stdout  # trec_eval gives no numbers for it
    for args, bad in [
        (["evaluate", f"@r.{ext}", "@q.txt", "-m", "AP"], f"r.{ext}"),
        (["evaluate", "@r.txt", f"@q.{ext}", "-m", "AP"], f"q.{ext}"),
        (["trec_eval", "@q.txt", f"@r.{ext}"], f"r.{ext}"),
        (["trec_eval", f"@q.{ext}", "@r.txt"], f"q.{ext}"),
        (["compare", "@r.txt", f"@r.{ext}", "--qrels", "@q.txt", "--baseline", "@r.txt", "-m", "AP"], f"r.{ext}"),
        (["fuse", "@r.txt", f"@r.{ext}", "-o", "@f.trec"], f"r.{ext}"),
    ]:
        code, out, err = _harness(tmp_path, capsys, *args)
        assert code == 2 and not out, (args, err)
        assert err.startswith(f"harness: error: {tmp_path / bad}: is a") and f"{name}-compressed" in err, err
        assert f"`{command} {tmp_path / bad}`" in err and "Traceback" not in err
    with pytest.raises(DataError, match=f"{name}-compressed"):
        harness.evaluate(tmp_path / f"r.{ext}", tmp_path / "q.txt", ["AP"])
    with pytest.raises(DataError, match=f"{name}-compressed"):
        read_topics(_write(tmp_path / f"t.{ext}", compress(b"1\tbear\n")), "tsv")


def _write(path, data: bytes):
    path.write_bytes(data)
    return path


def test_a_topic_named_like_a_magic_number_is_not_taken_for_compression(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("BZh91 0 d1 1\nBZh 0 d2 1\n")
    (tmp_path / "r.txt").write_text("BZh91 Q0 d1 1 2 r\nBZh Q0 d2 1 1 r\n")
    code, out, err = _harness(tmp_path, capsys, "evaluate", "@r.txt", "@q.txt", "-m", "AP")
    assert (code, out) == (0, "AP\tall\t1.0000\n"), err


def test_a_run_for_topics_the_qrels_do_not_judge_is_refused_as_trec_eval_refuses_it(
    trec_eval,  # noqa: F811
    tmp_path,
    capsys,
):
    """TREC topic ids are often zero-padded ('001'); pandas reads a run's qid column as integers
    (1). harness evaluate printed AP 0.0000 (every judged topic missing, scored 0 under -c) and
    exit 0; trec_eval gives no number."""
    qrels, run = "001 0 d1 1\n002 0 d4 1\n", "1 Q0 d1 1 1.5 r\n2 Q0 d4 1 2 r\n"
    ref = _oracle(trec_eval, tmp_path, qrels, run)
    assert ref.returncode != 0 and "No queries with both results and relevance info" in ref.stderr
    (tmp_path / "r2.txt").write_text(run)
    for args in (
        ["evaluate", "@r.txt", "@q.txt", "-m", "AP"],
        ["evaluate", "@r.txt", "@q.txt", "-m", "AP", "--missing-topics", "drop"],
        ["trec_eval", "-c", "@q.txt", "@r.txt"],
        ["compare", "@r.txt", "@r2.txt", "--qrels", "@q.txt", "--baseline", "@r.txt", "-m", "AP"],
    ):
        code, out, err = _harness(tmp_path, capsys, *args)
        assert code == 2 and not out, (args, out, err)
        assert err.startswith(f"harness: error: {tmp_path / 'r.txt'}: ") and "Traceback" not in err
    code, out, err = _harness(tmp_path, capsys, "evaluate", "@r.txt", "@q.txt", "-m", "AP")
    assert "none of the run's 2 topics ('1', '2') is judged" in err and "(judged: '001', '002')" in err
    # the PyTerrier frame whose qid pandas read as integers, against ir_datasets' text ids
    frame = pd.DataFrame({"qid": [1, 2], "docno": ["d1", "d4"], "score": [1.5, 2.0]})
    qrels_frame = pd.DataFrame({"query_id": ["001", "002"], "doc_id": ["d1", "d4"], "relevance": [1, 1]})
    with pytest.raises(DataError, match=r"^run: none of the run's 2 topics .*leading zeros: run 1 vs qrels 001"):
        harness.evaluate(frame, qrels_frame, ["AP"])
    # once the ids are written alike, the numbers are pytrec_eval's
    _, means = harness.evaluate(frame.assign(qid=["001", "002"]), qrels_frame, ["AP"])
    assert means.loc["run", "AP"] == 1.0


def test_a_run_with_some_unjudged_topics_is_still_evaluated(trec_eval, tmp_path, capsys):  # noqa: F811
    ref = _oracle(trec_eval, tmp_path, QRELS, RUN + "999 Q0 d1 1 5 r\n")
    code, out, err = _harness(tmp_path, capsys, "trec_eval", "-c", *FLAGS, "@q.txt", "@r.txt")
    assert (code, out) == (0, ref.stdout), err


# --------------------------------------------------------------------------- the Python API
QRELS_DICT = {"1": {"d1": 1, "d2": 0, "d3": 2}, "2": {"d4": 1, "d5": 1}, "10": {"d6": 1}}
RUN_DICT = {"1": {"d1": 1.5, "d3": 1.2, "d9": 1.0}, "2": {"d5": 3.0, "d4": 2.0}, "10": {"d9": 1.0, "d6": 1.0}}
MEASURES = {"AP": "map", "nDCG": "ndcg", "P@5": "P_5", "RR": "recip_rank"}


def _pyterrier(run: dict) -> pd.DataFrame:
    """pt.Transformer output: qid, docid (Terrier's int), docno, score, rank from 0, query."""
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    df = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    df["docid"] = np.arange(len(df)) * 7
    df["rank"] = df.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    df["query"] = "black bear"
    return df[["qid", "docid", "docno", "score", "rank", "query"]]


def _qrels_frame(qrels: dict) -> pd.DataFrame:
    rows = [(q, d, lab) for q, docs in qrels.items() for d, lab in docs.items()]
    return pd.DataFrame(rows, columns=["qid", "docno", "label"])


def _reference(run, qrels) -> dict[str, float]:
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(run)
    return {m: float(np.mean([v[t] for v in ref.values()])) for m, t in MEASURES.items()}


FRAMES = {
    "PyTerrier frame": lambda: (_pyterrier(RUN_DICT), _qrels_frame(QRELS_DICT)),
    "int qids": lambda: (_pyterrier(RUN_DICT).astype({"qid": int}), _qrels_frame(QRELS_DICT).astype({"qid": int})),
    "categorical ids": lambda: (
        _pyterrier(RUN_DICT).astype({"qid": "category", "docno": "category"}),
        _qrels_frame(QRELS_DICT).astype({"qid": "category", "docno": "category"}),
    ),
    "string dtypes": lambda: (
        _pyterrier(RUN_DICT).astype({"qid": "string", "docno": "string[pyarrow]"}),
        _qrels_frame(QRELS_DICT).astype({"qid": "string", "docno": "string"}),
    ),
    "float32 scores, float labels": lambda: (
        _pyterrier(RUN_DICT).astype({"score": np.float32}),
        _qrels_frame(QRELS_DICT).astype({"label": float}),
    ),
    "extra columns": lambda: (
        _pyterrier(RUN_DICT).assign(features=[np.zeros(2)] * 7, stage="bm25"),
        _qrels_frame(QRELS_DICT).assign(iteration="Q0"),
    ),
    "ir_measures columns": lambda: (
        _pyterrier(RUN_DICT).drop(columns="docid").rename(columns={"qid": "query_id", "docno": "doc_id"}),
        _qrels_frame(QRELS_DICT).rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}),
    ),
    "ranx dicts": lambda: (RUN_DICT, QRELS_DICT),
    "ranx dicts, numpy values": lambda: (
        {q: {d: np.float32(s) for d, s in docs.items()} for q, docs in RUN_DICT.items()},
        {q: {d: np.int64(v) for d, v in docs.items()} for q, docs in QRELS_DICT.items()},
    ),
    "ranx dicts, int topic keys": lambda: (
        {int(q): docs for q, docs in RUN_DICT.items()},
        {int(q): docs for q, docs in QRELS_DICT.items()},
    ),
}


@pytest.mark.parametrize("name", FRAMES)
def test_frames_and_dicts_as_other_tools_build_them_give_pytrec_evals_numbers(name):
    run, qrels = FRAMES[name]()
    _, means = harness.evaluate(run, qrels, list(MEASURES))
    assert means.loc["run"].to_dict() == pytest.approx(_reference(RUN_DICT, QRELS_DICT), abs=1e-12)


def test_infinite_scores_in_memory_give_pytrec_evals_numbers():
    run = {"1": {"d1": math.inf, "d3": -math.inf, "d9": 0.0}, "2": {"d5": 3.0, "d4": 2.0}, "10": {"d6": 1.0}}
    _, means = harness.evaluate(run, QRELS_DICT, list(MEASURES))
    assert means.loc["run"].to_dict() == pytest.approx(_reference(run, QRELS_DICT), abs=1e-12)


# --------------------------------------------------------------------------- topics
def test_tsv_topics_with_more_than_two_columns_query_the_second_as_anserini_does(tmp_path):
    """ir_datasets' export of TREC queries writes query_id, title, description (and narrative):
    the header is skipped and each query is its title, as Anserini's TsvString reader (and
    pyserini's .tsv topics) read it, with warnings naming the lines."""
    path = tmp_path / "t.tsv"
    path.write_text("query_id\ttitle\tdescription\n1\tblack bear\tdocuments about bears\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HarnessWarning)
        assert read_topics(path, "tsv") == [("1", "black bear")]
    said = [str(w.message) for w in caught]
    assert any("t.tsv:1: skipped" in m and "header" in m for m in said), said
    assert any("t.tsv:1: more than two tab-separated fields; the query is the second" in m for m in said), said
    # empty trailing columns (a spreadsheet's export) are no fields: read without a warning
    path.write_text("1\tblack bear\t\t\n2\tcats \t \n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HarnessWarning)
        assert read_topics(path, "tsv") == [("1", "black bear"), ("2", "cats")]
    path.write_text("qid\tquery\t\n1\tblack bear\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HarnessWarning)
        assert read_topics(path, "tsv") == [("1", "black bear")]


def test_jsonl_topics_with_other_tools_field_names(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = [
        '{"_id": "1", "text": "black bear", "metadata": {}}',  # BEIR's queries.jsonl
        '{"query_id": "2", "text": "cats"}',  # ir_datasets
        '{"qid": 3, "query": "dogs"}\r',  # PyTerrier's columns, CRLF
        '{"id": "4", "title": "owls", "description": "about owls"}',
    ]
    path.write_text("\ufeff" + "\n".join(lines))
    assert read_topics(path, "jsonl") == [("1", "black bear"), ("2", "cats"), ("3", "dogs"), ("4", "owls")]


def test_a_decimal_label_with_a_fraction_is_refused_saying_what_trec_eval_reads(tmp_path, capsys):
    """'2.0' is read as trec_eval reads it (2, in the sweep above); '1.5' and '1e1' are labels
    trec_eval reads as 1 without a word: refused, naming the line and that reading."""
    for label, atol in (("1.5", 1), ("1e1", 1), ("-.5", 0)):
        (tmp_path / "q.txt").write_text(f"1 0 d1 2.0\n1 0 d2 {label}\n")
        (tmp_path / "r.txt").write_text("1 Q0 d1 1 1 r\n")
        code, out, err = _harness(tmp_path, capsys, "evaluate", "@r.txt", "@q.txt", "-m", "AP")
        assert code == 2 and not out
        assert err.startswith(f"harness: error: {tmp_path / 'q.txt'}:2: relevance label (field 4) must be an integer")
        assert f"got {label!r} (trec_eval would read it as {atol}," in err


def test_a_qrels_dict_follows_a_qrels_frames_rules():
    """A qrels DataFrame's integer doc ids and labels 1.0 were read, the same qrels as a dict
    (``df.groupby("qid").apply(...)``, a float column's ``to_dict``) was a DataError; now both
    give pytrec_eval's numbers on the text ids and integer labels."""
    run = {"1": {10: 2.0, 11: 1.5, 12: 1.0}, "2": {20: 1.0, 21: 3.0}}
    qrels = {"1": {10: 0.0, 12: 1.0, 11: np.float64(2.0)}, "2": {20: 1.0, 22: 1.0}}
    as_text = lambda d, cast: {q: {str(k): cast(v) for k, v in docs.items()} for q, docs in d.items()}  # noqa: E731
    want = _reference(as_text(run, float), as_text(qrels, int))
    _, means = harness.evaluate(run, qrels, list(MEASURES))
    assert means.loc["run"].to_dict() == pytest.approx(want, abs=1e-12)
    frame = _qrels_frame(qrels).astype({"label": float})
    _, means = harness.evaluate(run, frame, list(MEASURES))
    assert means.loc["run"].to_dict() == pytest.approx(want, abs=1e-12)
    with pytest.raises(DataError, match=r"topic '1': document '10' is judged twice \(as an integer and as text\)"):
        harness.evaluate(run, {"1": {10: 1, "10": 0}}, ["AP"])
    with pytest.raises(DataError, match=r"label must be an integer \(got 1.5\)"):
        harness.evaluate(run, {"1": {10: 1.5}}, ["AP"])
    with pytest.raises(DataError, match=r"^qrels: topic '1': document '10' is judged twice; keep one judgment"):
        harness.evaluate(run, _qrels_frame({"1": {10: 1}, "2": {20: 1}}).iloc[[0, 1, 0]], ["AP"])


def test_infinite_scores_that_fusion_cannot_sum_are_named_as_infinite():
    runs = [{"1": {"a": math.inf, "b": 1.0}}, {"1": {"a": -math.inf, "b": 2.0}}]
    with pytest.raises(DataError, match=r"topic '1', document 'a': combsum .* infinite \(`inf` in a run\)"):
        harness.fuse(runs, "combsum")
    fused = harness.fuse(runs, "rrf")  # ranks only: infinite scores are just the first rows
    assert fused.docno.tolist() == ["a", "b"]


TOPIC = "<top>\n<num> Number: {n}\n<title> {title}\n\n<desc> Description:\nd\n{narr}</top>\n\n"


@pytest.mark.java
def test_trec_topics_anserini_would_misread_are_refused_naming_the_topic(tmp_path):
    """Anserini's TrecTopicReader reads a description up to the next line starting with <narr>:
    hand-written topics without narratives lost every topic after the first, without a word (the
    harness ran one topic of two); a topic without <desc> was a Java NullPointerException."""
    from harness.engine.topics import read_topics as read_any

    path = tmp_path / "t.trec"
    both = TOPIC.format(n=301, title="organized crime", narr="<narr> Narrative:\nn\n")
    both += TOPIC.format(n=302, title="Topic: polio", narr="")  # the last needs no <narr>
    path.write_text(both.replace("\n", "\r\n"))
    assert read_any(path, "trec") == [("301", "organized crime"), ("302", "polio")]
    path.write_text(TOPIC.format(n=301, title="crime", narr="") + TOPIC.format(n=302, title="polio", narr=""))
    with pytest.raises(DataError, match=r"t\.trec:1: the topic starting here has no line starting with <narr>"):
        read_any(path, "trec")
    path.write_text("<top>\n<num> Number: 301\n<title> crime\n</top>\n")
    with pytest.raises(DataError, match=r"t\.trec:1: .* no line starting with <desc>: Anserini's TrecTopicReader"):
        read_any(path, "trec")
    path.write_text(both.replace("Number: 302", "Number: 0301"))
    with pytest.raises(DataError, match=r"t\.trec:12: topic 301 is numbered already on line 2"):
        read_any(path, "trec")
    path.write_text('<topic number="1">\n<query>black bear</query>\n</topic>\n')  # XML topics
    with pytest.raises(DataError, match=r"t\.trec:1: .* no line starting with <num>"):
        read_any(path, "trec")
    path.write_text("<TOP>\n<NUM> 401\n<TITLE> minorities\n</TOP>\n")
    with pytest.raises(DataError, match=r"t\.trec: no line starts with <top>: not TREC topics"):
        read_any(path, "trec")


def test_a_windows_path_that_is_not_found_says_it_looks_like_one(tmp_path, capsys):
    from .test_file_runs import HEAD

    hint = "a Windows path? Here folders are separated by '/'"
    (tmp_path / "q.txt").write_text(QRELS)
    code, out, err = _harness(tmp_path, capsys, "evaluate", r"C:\runs\bm25.trec", "@q.txt", "-m", "AP")
    assert code == 2 and r"C:\runs\bm25.trec: run file not found (" + hint in err
    code, out, err = _harness(
        tmp_path, capsys, "compare", "@q.txt", r"runs\b.trec", "--qrels", "@q.txt", "--baseline", "q", "-m", "AP"
    )
    assert code == 2 and r"runs\b.trec: file not found (" + hint in err
    code, out, err = _harness(tmp_path, capsys, "evaluate", "runs/bm25.trec", "@q.txt", "-m", "AP")
    assert code == 2 and "run file not found\n" in err  # a plain path: no hint
    with pytest.raises(DataError, match=r"qrels file not found \(a Windows path\?"):
        harness.evaluate(RUN_DICT, r"qrels\robust04.txt", ["AP"])
    cfg = tmp_path / "c.yaml"
    cfg.write_text(HEAD + "runs:\n  - {name: mine, file: 'runs\\bm25.trec'}\n")
    code, out, err = _harness(tmp_path, capsys, "validate", str(cfg))
    assert code == 2 and "runs[0].file: file not found: " in err and hint in err


def test_a_rank_beyond_64_bits_is_named_as_such_in_fusion(tmp_path, capsys):
    """trec_eval ignores the rank column; reciprocal rank fusion reads it. A rank of 20 digits
    was "must be an integer, got '99999999999999999999'": it is one."""
    (tmp_path / "a.trec").write_text(RUN.replace(" 1 1.5", " 99999999999999999999 1.5"))
    (tmp_path / "b.trec").write_text(RUN)
    code, out, err = _harness(tmp_path, capsys, "fuse", "@a.trec", "@b.trec", "-o", "@f.trec")
    assert code == 2 and "a.trec:1: rank (field 4) must be an integer of at most 64 bits, got '999" in err
    (tmp_path / "q.txt").write_text(QRELS)  # evaluation reads no rank, as trec_eval
    code, out, err = _harness(tmp_path, capsys, "evaluate", "@a.trec", "@q.txt", "-m", "AP")
    assert code == 0, err


def test_three_field_runs_and_qrels_name_the_layout_and_a_conversion_that_trec_eval_reads(
    trec_eval,  # noqa: F811
    tmp_path,
    capsys,
):
    """MS MARCO's runs (qid docid rank) and BEIR's qrels TSV (a header, then query-id corpus-id
    score): the message gives a command; that command's output gives trec_eval's numbers."""
    (tmp_path / "run.tsv").write_text("1\td3\t1\n1\td1\t2\n1\td9\t3\n2\td5\t1\n2\td4\t2\n10\td6\t1\n")
    (tmp_path / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t0\n1\td3\t2\n2\td4\t1\n10\td6\t1\n"
    )
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    commands = []
    for args, bad in (
        (["evaluate", "@run.tsv", "@q.txt", "-m", "AP"], "run.tsv:1"),
        (["trec_eval", "@qrels.tsv", "@r.txt"], "qrels.tsv:1"),
    ):
        code, out, err = _harness(tmp_path, capsys, *args)
        assert code == 2 and err.startswith(f"harness: error: {tmp_path / bad}: expected") and "got 3" in err
        commands.append(err.split("Convert: ")[1].strip().replace("FILE", bad.split(":")[0]))
    assert commands[0].startswith('awk \'{print $1, "Q0", $2, $3, -$3') and "BEIR" in err
    for command in commands:
        subprocess.run(command, shell=True, cwd=tmp_path, check=True)
    ref = subprocess.run(
        [trec_eval, "-c", *FLAGS, "qrels.tsv.qrels", "run.tsv.trec"], cwd=tmp_path, capture_output=True, text=True
    )
    assert ref.returncode == 0 and "map" in ref.stdout, ref.stderr
    code, out, err = _harness(tmp_path, capsys, "trec_eval", "-c", *FLAGS, "@qrels.tsv.qrels", "@run.tsv.trec")
    assert (code, out) == (0, ref.stdout), err
    assert "map                   \tall\t0.8333" in out  # the ranks kept their order (reversed: 0.8611)


FIVE_FIELDS = {  # a run without one of its columns -> what the error says is missing
    "no Q0": ("".join(f"{q} {d} {r} {s} {t}\n" for q, _, d, r, s, t in map(str.split, RUN.splitlines())), "Q0"),
    "no tag": ("".join(" ".join(ln.split()[:5]) + "\n" for ln in RUN.splitlines()), "tag"),
}


@pytest.mark.parametrize("name", FIVE_FIELDS)
def test_five_field_runs_name_the_missing_column_and_a_conversion_that_trec_eval_reads(
    trec_eval,  # noqa: F811
    tmp_path,
    capsys,
    name,
):
    """A run without its Q0 or its tag column was "expected at least 6 whitespace-separated
    fields" and nothing more. trec_eval stops at such a line ("Malformed line"), and so does every
    door of the harness, `harness trec_eval` included, now saying which column is missing and giving
    the command that adds it; that command's file gives trec_eval's numbers for the six-field run."""
    text, missing = FIVE_FIELDS[name]
    ref = _oracle(trec_eval, tmp_path, QRELS, text)
    assert ref.returncode == 2 and not ref.stdout and "Malformed line 1" in ref.stderr, ref
    (tmp_path / "ok.txt").write_text(RUN)
    said = {"Q0": "the Q0 column is missing (the line is qid docid rank score tag)", "tag": "the run tag is missing"}
    commands = set()
    for args in (
        ["trec_eval", "-c", *FLAGS, "@q.txt", "@r.txt"],
        ["evaluate", "@r.txt", "@q.txt", "-m", "AP"],
        ["compare", "@ok.txt", "@r.txt", "--qrels", "@q.txt", "--baseline", "ok", "-m", "AP"],
        ["fuse", "@ok.txt", "@r.txt", "-o", "@fused.trec"],
    ):
        code, out, err = _harness(tmp_path, capsys, *args)
        assert code == 2 and not out, (args, err)
        assert err.startswith(f"harness: error: {tmp_path / 'r.txt'}:1: expected at least 6") and "got 5" in err, err
        assert said[missing] in err and "trec_eval refuses it too" in err and "Traceback" not in err, err
        commands.add(err.split("Convert: ")[1].strip())
    assert not (tmp_path / "fused.trec").exists()
    for call in (
        lambda: harness.evaluate(tmp_path / "r.txt", tmp_path / "q.txt", ["AP"]),
        lambda: harness.fuse([tmp_path / "ok.txt", tmp_path / "r.txt"]),
    ):
        with pytest.raises(DataError, match=re.escape(said[missing])):
            call()
    (command,) = commands  # one message at every door
    subprocess.run(command.replace("FILE", "r.txt"), shell=True, cwd=tmp_path, check=True)
    want = subprocess.run(  # the run with all six columns, as trec_eval reads it
        [trec_eval, "-c", *FLAGS, "q.txt", "ok.txt"], cwd=tmp_path, capture_output=True, text=True
    )
    got = subprocess.run([trec_eval, "-c", *FLAGS, "q.txt", "r.txt.trec"], cwd=tmp_path, capture_output=True, text=True)
    assert want.returncode == 0 and (got.returncode, got.stdout) == (0, want.stdout), got.stderr
    code, out, err = _harness(tmp_path, capsys, "trec_eval", "-c", *FLAGS, "@q.txt", "@r.txt.trec")
    assert (code, out) == (0, want.stdout), err


def test_a_five_field_line_whose_values_do_not_tell_the_missing_column_gets_no_guess(tmp_path, capsys):
    """Without a rank (qid Q0 docid score tag) no conversion is offered: the fields are named."""
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text("1 Q0 d1 1.5 r\n")
    code, out, err = _harness(tmp_path, capsys, "evaluate", "@r.txt", "@q.txt", "-m", "AP")
    assert code == 2 and err.rstrip().endswith("(run: qid Q0 docid rank score tag format), got 5: '1 Q0 d1 1.5 r'")
