"""Run and qrels files in every number format, exact round trips, hostile bytes, the run cache.

Oracles: Python's ``float()``/``repr()`` for the text of numbers, pytrec_eval (trec_eval 9.0.x)
for the means, hypothesis for random inputs.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import DataError
from harness.experiment.cache import binary_path, load_run, store_run
from harness.formats.qrels import read_qrels
from harness.formats.run import Run
from harness.formats.runs import read_run, write_run
from harness.formats.tokenizer import MAX_ID, MAX_LINE
from harness.metrics import evaluate, parse_measure
from harness.metrics.trec_names import trec_eval_name

from .conftest import examples


def write(tmp_path, data, name="f.txt"):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


def reference_text(run: Run, tag: str) -> str:
    """The run file as the harness wrote it before Arrow: one f-string per hit, repr() scores."""
    out = []
    for q in run.topics():
        docs, scores = run.ranked(q)
        out += [f"{q} Q0 {d} {r} {s!r} {tag}\n" for r, (d, s) in enumerate(zip(docs, scores.tolist()), start=1)]
    return "".join(out)


def assert_identical(a: Run, b: Run):
    assert a.topics() == b.topics()
    for q in a.topics():
        da, sa = a.ranked(q)
        db, sb = b.ranked(q)
        assert da == db
        assert sa.view(np.uint64).tolist() == sb.view(np.uint64).tolist()  # bit for bit, -0.0 too


# --------------------------------------------------------------------------- number formats
FORMATS = {
    "int": lambda v: str(int(round(v * 1000))),
    "4 decimals": lambda v: f"{v:.4f}",
    "6 decimals": lambda v: f"{v:.6f}",
    "repr": repr,
    "scientific": lambda v: f"{v:.6e}",
    "scientific upper": lambda v: f"{v:.3E}",
    "plus sign": lambda v: repr(v) if np.signbit(v) else f"+{v!r}",
    "float32 repr": lambda v: repr(float(np.float32(v))),
}
SEPARATORS = [" ", "\t", "  ", " \t ", "\t\t"]


def scores_for(rng, n):
    s = np.concatenate([rng.normal(0, 20, n - 8), [1.5e-05, -3.2e1, 0.0, -0.0, 1e-300, 123456.789, 1e20, -7.0]])
    return s


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_score_format_reads_as_float_of_its_text(tmp_path, fmt):
    rng = np.random.default_rng(len(fmt))
    values = scores_for(rng, 3000)
    texts = [FORMATS[fmt](float(v)) for v in values]
    lines = "".join(
        f"q{i % 7}{SEPARATORS[i % 5]}Q0{SEPARATORS[i % 3]}d{i}{SEPARATORS[i % 4]}{i}{SEPARATORS[i % 2]}{t} tag\n"
        for i, t in enumerate(texts)
    )
    run = read_run(write(tmp_path, lines))
    got = {q: run.ranked(q) for q in run.topics()}
    for i, t in enumerate(texts):
        docs, scores = got[f"q{i % 7}"]
        j = docs.index(f"d{i}")
        assert scores[j] == float(t) and np.signbit(scores[j]) == np.signbit(float(t)), t


def test_scientific_and_signed_literals(tmp_path):
    texts = ["1.5e-05", "-3.2E+01", "+2.5", "-0", "1e5", "1E-5", ".5", "5.", "+.5e+1", "inf", "-Infinity", "1e400"]
    lines = "".join(f"q Q0 d{i} {i} {t} x\n" for i, t in enumerate(texts))
    assert read_run(write(tmp_path, lines)).ranked("q")[1].tolist() == [float(t) for t in texts]


@pytest.mark.parametrize("bad", ["1.2.3", "abc", "1e", "--1", "1,5", "0x10", "nan", "-NaN", "1_0", "١٢", "e5"])
@pytest.mark.parametrize("row", [0, 1, 4999])
def test_malformed_numbers_name_their_line(tmp_path, bad, row):
    lines = [f"q{i // 100} Q0 d{i} {i} {i / 3!r} t" for i in range(5000)]
    lines[row] = f"q{row // 100} Q0 d{row} 1 {bad} t"
    with pytest.raises(DataError) as e:
        read_run(write(tmp_path, "\n".join(lines) + "\n"))
    assert e.value.line == row + 1 and repr(bad) in str(e.value)


@pytest.mark.parametrize("bad, msg", [("1.5", "integer"), ("x", "integer"), ("9223372036854775808", "integer")])
def test_malformed_labels_name_their_line(tmp_path, bad, msg):
    lines = [f"q{i // 50} 0 d{i} {i % 3}" for i in range(3000)]
    lines[2345] = f"q 0 d 1 {bad}"[: -len(bad) - 2] + f" {bad}"
    lines[2345] = f"q46 0 dx {bad}"
    with pytest.raises(DataError) as e:
        read_qrels(write(tmp_path, "\n".join(lines) + "\n"))
    assert e.value.line == 2346 and msg in str(e.value)


# --------------------------------------------------------------------------- writing
def random_run(rng, topics=30, depth=200, scores=None):
    ranked = {}
    for t in range(topics):
        n = int(rng.integers(1, depth))
        docs = [f"doc-{int(i)}" for i in rng.choice(10**6, n, replace=False)]
        s = -np.sort(-rng.normal(10, 5, n)) if scores is None else scores(rng, n)
        ranked[f"{t}"] = (docs, s)
    return Run.from_ranked(ranked)


def special_values():
    v = [0.0, -0.0, 1.0, 3.0, -2.0, 1e-4, 9.99e-5, 1e-5, 1.5e-05, 5e-324, 1e15, 1e15 + 0.5, 999999999999999.9]
    v += [1e16, 1e16 + 2, 1.7976931348623157e308, np.inf, -np.inf, 0.1, 1 / 3, 2**53 + 0.0, 123456789.5]
    return np.array(v)


@pytest.mark.parametrize(
    "kind",
    ["normal", "float32", "float32 lowered by ulps", "bit patterns", "special", "integers", "tiny"],
)
def test_write_run_is_byte_identical_to_repr_and_reads_back_bit_exact(tmp_path, kind):
    rng = np.random.default_rng(hash(kind) % 2**32)
    n = 60_000
    if kind == "normal":
        s = rng.normal(0, 30, n)
    elif kind == "float32":
        s = (rng.random(n) * 40).astype(np.float32).astype(np.float64)
    elif kind == "float32 lowered by ulps":
        s = (rng.random(n) * 40).astype(np.float32).astype(np.float64)
        s = s - rng.integers(0, 4, n) * np.spacing(s)
    elif kind == "bit patterns":
        s = rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)
        s = s[~np.isnan(s)]
    elif kind == "special":
        s = np.tile(special_values(), 50)
    elif kind == "integers":
        s = rng.integers(-(10**6), 10**6, n).astype(np.float64)
    else:
        s = rng.random(n) * 10.0 ** rng.integers(-12, -3, n)
    docs = [f"d{i}" for i in range(len(s))]
    run = Run.from_ranked(
        {"q1": (docs[: len(s) // 2], s[: len(s) // 2]), "q2": (docs[len(s) // 2 :], s[len(s) // 2 :])}
    )
    out = tmp_path / "run.trec"
    write_run(out, run, "tag")
    assert out.read_text() == reference_text(run, "tag")
    assert_identical(read_run(out), run)


def test_write_run_blocks_and_threads(tmp_path, monkeypatch):
    """A run longer than one writing block, on one thread and on two: same bytes."""
    run = random_run(np.random.default_rng(3), topics=900, depth=1000)
    assert len(run) > 1 << 18
    texts = []
    for threads in ("1", "2"):
        monkeypatch.setenv("HARNESS_THREADS", threads)
        write_run(tmp_path / f"r{threads}", run, "t")
        texts.append((tmp_path / f"r{threads}").read_bytes())
    assert texts[0] == texts[1] == reference_text(run, "t").encode()
    assert_identical(read_run(tmp_path / "r2"), run)


@pytest.mark.parametrize(
    "qid, doc, tag",
    [
        ("q 1", "d", "t"),
        ("q", "d\x00x", "t"),
        ("q", "d\x01", "t"),
        ("q", "d\nx", "t"),
        ("q", "d\x7f", "t"),
        ("q\t", "d", "t"),
        ("q", "d", "t\r"),
        ("q", "x" * (MAX_ID + 1), "t"),
        ("", "d", "t"),
        ("\ufeff1", "d", "t"),  # a BOM at the start of the file is dropped by every reader
    ],
)
def test_write_run_refuses_ids_it_could_not_read_back(tmp_path, qid, doc, tag):
    run = Run(
        [qid],
        np.array([0, 2]),
        np.array([b"ok", doc.encode()], dtype=f"S{8 * (len(doc) // 8 + 1)}"),
        np.array([2.0, 1.0]),
    )
    out = tmp_path / "run.trec"
    with pytest.raises(DataError):
        write_run(out, run, tag)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_non_ascii_and_non_utf8_ids_round_trip(tmp_path):
    run = Run.from_ranked({"tópico": (["döc", "\udcff\udcfe", "日本"], [3.0, 2.0, 1.0])})
    write_run(tmp_path / "r", run, "t")
    assert_identical(read_run(tmp_path / "r"), run)


ID_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters=[chr(c) for c in range(33)] + ["\x7f"])


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    runs=st.dictionaries(
        st.text(ID_CHARS, min_size=1, max_size=12).filter(lambda q: not q.startswith("\ufeff")),
        st.lists(
            st.tuples(st.text(ID_CHARS, min_size=1, max_size=30), st.floats(allow_nan=False)),
            min_size=1,
            max_size=20,
            unique_by=lambda t: t[0],
        ),
        min_size=1,
        max_size=5,
    )
)
def test_anything_write_run_writes_reads_back_identically(runs):
    run = Run.from_ranked({q: ([d for d, _ in hits], [s for _, s in hits]) for q, hits in runs.items()})
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "run.trec"
        write_run(out, run, "tag")
        assert out.read_text("utf-8") == reference_text(run, "tag")
        assert_identical(read_run(out), run)


LINE_ALPHABET = st.sampled_from([b"q1", b"Q0", b"d", b" ", b"\t", b"\n", b"\r", b"1", b"-", b".", b"e", b"+", b"x"])


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(st.binary(max_size=400), st.lists(LINE_ALPHABET, max_size=200).map(b"".join)))
def test_random_bytes_raise_nothing_but_data_errors(data):
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "f"
        p.write_bytes(data)
        for reader in (read_run, read_qrels):
            try:
                reader(p)
            except DataError:
                pass


# --------------------------------------------------------------------------- hostile inputs
def test_leading_bom_is_skipped(tmp_path):
    run = read_run(write(tmp_path, b"\xef\xbb\xbfq1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"))
    assert run.topics() == ["q1"]
    q = read_qrels(write(tmp_path, b"\xef\xbb\xbfq1 0 d1 1\n", "q.txt"))
    assert q.topics() == ["q1"]
    with pytest.raises(DataError) as e:  # a BOM elsewhere is a control-free but odd id: kept as bytes
        read_run(write(tmp_path, b"q1 Q0 d1 1 2.0 t\n\x00\n", "z.txt"))
    assert e.value.line == 2


@pytest.mark.parametrize("bad", [b"\x00", b"\x01", b"\x1b", b"\x7f", b"\x08"])
def test_control_characters_are_errors_with_the_line(tmp_path, bad):
    text = b"q1 Q0 d1 1 2.0 t\nq1 Q0 d" + bad + b"2 2 1.0 t\n"
    for reader, body in (
        (read_run, text),
        (read_qrels, text.replace(b" Q0", b" 0").replace(b" 1 2.0 t", b" 1").replace(b" 2 1.0 t", b" 0")),
    ):
        with pytest.raises(DataError) as e:
            reader(write(tmp_path, body))
        assert e.value.line == 2 and "control character" in str(e.value)


def test_extra_words_after_the_tag_are_ignored_like_trec_eval(tmp_path):
    run = read_run(write(tmp_path, "q1 Q0 d1 1 2.0 tag some comment\nq1 Q0 d2 2 1.0 tag\tx\ty\n"))
    assert run.ranked("q1")[0] == ["d1", "d2"] and run.ranked("q1")[1].tolist() == [2.0, 1.0]
    with pytest.raises(DataError, match="expected 4"):  # trec_eval's qrels reader refuses them
        read_qrels(write(tmp_path, "q1 0 d1 1 extra\n", "q.txt"))


def test_a_huge_id_is_an_error_not_an_allocation(tmp_path):
    lines = [f"q1 Q0 d{i} {i} {1 / (i + 1)!r} t" for i in range(100_000)]
    lines[70_000] = f"q1 Q0 {'x' * 65536} 1 0.5 t"
    with pytest.raises(DataError) as e:
        read_run(write(tmp_path, "\n".join(lines) + "\n"))
    assert e.value.line == 70_001 and "at most 1,024 bytes" in str(e.value)
    with pytest.raises(DataError) as e:
        read_qrels(write(tmp_path, f"q1 0 d1 1\n{'q' * 5000} 0 d2 1\n", "q.txt"))
    assert e.value.line == 2


@pytest.mark.parametrize("where", [0, 3])
def test_a_huge_line_is_an_error(tmp_path, where):
    lines = ["q1 0 d1 1", "q1 0 d2 1", "q1 0 d3 0", "q2 0 d1 1"]
    lines[where] = "q1 0 " + "d" * (3 * MAX_LINE) + " 1"
    with pytest.raises(DataError) as e:
        read_qrels(write(tmp_path, "\n".join(lines) + "\n"))
    assert e.value.line == where + 1 and "longer than" in str(e.value)


def test_empty_qrels_is_an_error(tmp_path):
    for text in (b"", b"\n\n  \n", b"\xef\xbb\xbf"):
        with pytest.raises(DataError, match="no judgments"):
            read_qrels(write(tmp_path, text))


# --------------------------------------------------------------------------- means = trec_eval
MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR", "nDCG", "bpref"]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_means_equal_pytrec_eval_in_every_format(tmp_path, fmt):
    rng = np.random.default_rng(11)
    qrels, run_lines, run_dict = {}, [], {}
    for t in range(40):
        q = f"t{t}"
        docs = [f"D{int(i)}" for i in rng.choice(5000, 300, replace=False)]
        scores = np.round(rng.normal(5, 3, 300), 2)  # ties, so the doc-id tie break matters
        texts = [FORMATS[fmt](float(s)) for s in scores]
        run_lines += [f"{q}\tQ0  {d} {r} {s} tag" for r, (d, s) in enumerate(zip(docs, texts), start=1)]
        run_dict[q] = {d: float(s) for d, s in zip(docs, texts)}
        judged = rng.choice(docs + [f"X{i}" for i in range(50)], 80, replace=False)
        qrels[q] = {str(d): int(rng.integers(0, 3)) for d in judged}
    qrels["unretrieved"] = {"D1": 1}
    qp = write(tmp_path, "".join(f"{q} 0 {d} {lab}\n" for q, j in qrels.items() for d, lab in j.items()), "qrels")
    ours = evaluate(read_run(write(tmp_path, "\n".join(run_lines) + "\n")), read_qrels(qp), MEASURES)
    names = {m: trec_eval_name(parse_measure(m)) for m in MEASURES}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {n[0] for n in names.values()}).evaluate(run_dict)
    for m, (_, key) in names.items():
        # trec_eval -c: judged topics without results count as 0
        expected = sum(ref[q][key] for q in ref) / len(qrels)
        assert abs(ours.means[m] - expected) <= 1e-12, m


# --------------------------------------------------------------------------- the run cache
def test_cache_reads_the_binary_copy_and_equals_the_text(tmp_path):
    run = random_run(np.random.default_rng(5))
    trec = tmp_path / "bm25.abc.trec"
    store_run(trec, run, "bm25")
    assert binary_path(trec).exists()
    assert trec.read_text() == reference_text(run, "bm25")
    assert_identical(load_run(trec), run)
    assert_identical(read_run(trec), run)


def test_an_old_cache_without_binary_copy_is_read_and_completed(tmp_path):
    run = random_run(np.random.default_rng(6))
    trec = tmp_path / "bm25.abc.trec"
    write_run(trec, run, "bm25")  # what the previous version left in the cache
    assert not binary_path(trec).exists()
    assert_identical(load_run(trec), run)
    assert binary_path(trec).exists()
    assert_identical(load_run(trec), run)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "wrong format", "mismatched"])
def test_a_damaged_binary_copy_falls_back_to_the_text(tmp_path, damage):
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = random_run(np.random.default_rng(7))
    trec = tmp_path / "bm25.abc.trec"
    store_run(trec, run, "bm25")
    binary = binary_path(trec)
    if damage == "truncate":
        binary.write_bytes(binary.read_bytes()[:1000])
    elif damage == "garbage":
        binary.write_bytes(b"not a parquet file")
    elif damage == "wrong format":
        pq.write_table(pa.table({"docid": [b"d"], "score": [1.0]}), binary)
    else:  # counts that do not add up to the hits
        table = pq.read_table(binary)
        meta = json.loads(table.schema.metadata[b"harness"])
        meta["counts"][0] += 1
        pq.write_table(table.replace_schema_metadata({"harness": json.dumps(meta)}), binary)
    assert_identical(load_run(trec), run)
    assert_identical(load_run(trec), run)  # and the copy was re-made
    assert json.loads(pq.read_schema(binary).metadata[b"harness"])["format"] == "harness-run-cache/2"
