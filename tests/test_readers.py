"""Strict TREC run/qrels readers: inline files, errors with line numbers, exact round trips."""

import numpy as np
import pytest

from harness.errors import DataError
from harness.formats.qrels import Qrels, read_qrels
from harness.formats.run import Run
from harness.formats.runs import read_run, write_run


def write(tmp_path, text, name="f.txt"):
    p = tmp_path / name
    p.write_bytes(text.encode())
    return p


def test_run_columns_and_order(tmp_path):
    p = write(
        tmp_path, "q1 Q0 d3 1 2.5 tag\nq1 Q0 d1 2 2.5 tag\nq2 Q0 d9 1 -1e-3 tag\nq1 Q0 d7 3 0.125 tag\n"
    )  # q1 resumes after q2: regrouped
    run = read_run(p)
    assert run.topics() == ["q1", "q2"]
    docs, scores = run.ranked("q1")
    assert docs == ["d3", "d1", "d7"] and scores.tolist() == [2.5, 2.5, 0.125]
    assert run.ranked("q2")[1].tolist() == [-0.001]


def test_run_tolerates_tabs_crlf_blank_lines_and_no_final_newline(tmp_path):
    p = write(tmp_path, "q1\tQ0  d1 1 3 t\r\n\r\n\nq1 Q0 d2 2 +2.0 t")
    assert read_run(p).ranked("q1")[0] == ["d1", "d2"]


def test_scores_parse_exactly_like_float(tmp_path):
    rng = np.random.default_rng(0)
    values = np.concatenate(
        [
            rng.normal(0, 30, 300),
            rng.random(100) * 1e-7,
            [0.1, 1 / 3, 2**60, -0.0, 123456789.123456789, 1e300, 5e-324, np.inf],
        ]
    )
    texts = [repr(float(v)) for v in values] + ["29.9760", "007.50", "-.5", "3.", "1E5", "1234567890123456789"]
    lines = "".join(f"q Q0 d{i} {i} {t} x\n" for i, t in enumerate(texts))
    got = read_run(write(tmp_path, lines)).ranked("q")[1]
    assert got.tolist() == [float(t) for t in texts]


@pytest.mark.parametrize(
    "text, line, msg",
    [
        ("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 1.0\n", 2, "expected at least 6"),
        ("q1 Q0 d1 1 1.0 t\n\nq1 Q0 d2 2 1.0\tt\x01 extra\n", 3, "control character 0x01"),
        ("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 abc t\n", 2, "'abc'"),
        ("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 nan t\n", 2, "nan"),
        ("q1 Q0 d1 1 1_0 t\n", 1, "'1_0'"),
        (
            "q1 Q0 d1 1 1.0 t\nq2 Q0 d1 1 1.0 t\nq1 Q0 d1 2 0.5 t\n",
            3,
            "duplicate document for topic 'q1', document 'd1' (first seen on line 1)",
        ),
    ],
)
def test_run_errors_name_the_line(tmp_path, text, line, msg):
    p = write(tmp_path, text)
    with pytest.raises(DataError) as e:
        read_run(p)
    assert e.value.line == line
    assert msg in str(e.value) and str(p) in str(e.value)


def test_run_duplicates_can_be_dropped(tmp_path):
    p = write(tmp_path, "q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d1 3 1 t\n")
    docs, scores = read_run(p, duplicates="drop").ranked("q1")
    assert docs == ["d1", "d2"] and scores.tolist() == [3.0, 2.0]


def test_write_run_round_trips_exactly_and_atomically(tmp_path):
    run = Run.from_ranked({"q1": (["b", "a"], [1 / 3, 0.1]), "q2": (["c"], [1e-300])})
    out = tmp_path / "run.txt"
    write_run(out, run, "mytag")
    assert out.read_text().splitlines()[0] == "q1 Q0 b 1 0.3333333333333333 mytag"
    back = read_run(out)
    assert back.topics() == run.topics()
    for q in run.topics():
        assert back.ranked(q)[0] == run.ranked(q)[0]
        assert back.ranked(q)[1].tolist() == run.ranked(q)[1].tolist()
    assert [p.name for p in tmp_path.iterdir()] == ["run.txt"]  # no temp file left behind
    with pytest.raises(DataError, match="tag"):
        write_run(out, run, "two words")


def test_qrels_reader(tmp_path):
    q = read_qrels(write(tmp_path, "q1 0 d1 2\nq1 0 d2 0\nq2 Q0 d1 -1\n"))
    assert q.topics() == ["q1", "q2"]
    assert q.judged("q1") == {"d1": 2, "d2": 0} and q.judged("q2") == {"d1": -1}
    assert q.to_dict() == Qrels.from_dict({"q1": {"d1": 2, "d2": 0}, "q2": {"d1": -1}}).to_dict()
    # a label beyond 64 bits: refused in the Python API as in the file (it was an OverflowError)
    big = 10**20
    with pytest.raises(DataError, match=r"label must be an integer \(got 100000000000000000000\)"):
        Qrels.from_dict({"q1": {"d1": big}})
    with pytest.raises(DataError, match="must be an integer, got '100000000000000000000'"):
        read_qrels(write(tmp_path, f"q1 0 d1 {big}\n"))
    assert Qrels.from_dict({"q1": {"d1": 2**63 - 1, "d2": -(2**63)}}).judged("q1") == {"d1": 2**63 - 1, "d2": -(2**63)}


@pytest.mark.parametrize(
    "text, line, msg",
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, "expected 4"),
        ("q1 0 d1 1\nq1 0 d2 1.5\n", 2, "'1.5'"),
        ("q1 0 d1 1\nq1 0 d2 x\n", 2, "integer"),
        (
            "q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n",
            3,
            "duplicate judgment for topic 'q1', document 'd1' (first seen on line 1)",
        ),
    ],
)
def test_qrels_errors_name_the_line(tmp_path, text, line, msg):
    with pytest.raises(DataError) as e:
        read_qrels(write(tmp_path, text))
    assert e.value.line == line and msg in str(e.value)


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="cannot read"):
        read_run(tmp_path / "nope.txt")


@pytest.mark.parametrize("threads", ["1", "2"])
def test_blocks_split_lines_correctly(tmp_path, monkeypatch, threads):
    """Tiny blocks force lines to straddle block edges; line numbers stay right, whether the
    blocks are parsed inline or on threads."""
    import harness.formats.tokenizer as tokenizer

    monkeypatch.setattr(tokenizer, "_BLOCK", 7)
    monkeypatch.setenv("HARNESS_THREADS", threads)
    text = "".join(f"q{i // 3} Q0 d{i} {i} {i / 7!r} t\n" for i in range(20)) + "q9 Q0 dx 1 oops t\n"
    p = write(tmp_path, text)
    with pytest.raises(DataError) as e:
        read_run(p)
    assert e.value.line == 21
    run = read_run(write(tmp_path, text.rsplit("q9", 1)[0], "ok.txt"))
    assert len(run) == 20 and run.ranked("q6")[1].tolist() == [18 / 7, 19 / 7]


def test_short_decimals_parse_like_float(tmp_path):
    """Short decimals: the dot in every position, signs."""
    rng = np.random.default_rng(1)
    texts = []
    for _ in range(3000):
        digits = "".join(rng.choice(list("0123456789"), int(rng.integers(1, 8))))
        dot = int(rng.integers(0, len(digits) + 1))
        tok = digits[:dot] + "." + digits[dot:] if rng.random() < 0.8 else digits
        sign = rng.choice(["", "-", "+"]) if len(tok) < 8 else ""
        texts.append(sign + tok)
    texts = [t for t in texts if t not in (".", "-.", "+.")]
    lines = "".join(f"q Q0 d{i} {i} {t} x\n" for i, t in enumerate(texts))
    got = read_run(write(tmp_path, lines)).ranked("q")[1]
    assert got.tolist() == [float(t) for t in texts]


@pytest.mark.parametrize("bad", ["1.2.3", "1-2", "--1", ".", "-", "1e", "0x10", "١٢"])
def test_bad_short_scores(tmp_path, bad):
    with pytest.raises(DataError) as e:
        read_run(write(tmp_path, f"q Q0 a 1 1.5 x\nq Q0 b 2 {bad} x\n"))
    assert e.value.line == 2


def test_labels_parse_as_integers(tmp_path):
    q = read_qrels(write(tmp_path, "q 0 a 12345678\nq 0 b -3\nq 0 c +2\nq 0 d 123456789012\n"))
    assert q.judged("q") == {"a": 12345678, "b": -3, "c": 2, "d": 123456789012}


def test_short_fields_at_the_very_end_of_a_file(tmp_path):
    """Loads for a short id on the last line stay inside the buffer (long ids earlier)."""
    text = "q Q0 a-very-long-document-identifier-0001 1 1.5 t\nq Q0 d 2 0.25 t"
    docs, scores = read_run(write(tmp_path, text)).ranked("q")
    assert docs == ["a-very-long-document-identifier-0001", "d"] and scores.tolist() == [1.5, 0.25]
    q = read_qrels(write(tmp_path, "q 0 a-very-long-document-identifier-0001 1\nq 0 d 0", "q.txt"))
    assert q.judged("q") == {"a-very-long-document-identifier-0001": 1, "d": 0}


@pytest.mark.parametrize("threads", ["1", "2"])
def test_line_numbers_across_irregular_blocks(tmp_path, monkeypatch, threads):
    import harness.formats.tokenizer as tokenizer

    monkeypatch.setattr(tokenizer, "_BLOCK", 40)
    monkeypatch.setenv("HARNESS_THREADS", threads)
    lines = [f"q{i % 3}\tQ0  d{i} {i} {i}.5 t\r" if i % 4 else "" for i in range(30)]
    lines[23] = "q1 Q0 d1 1 1.0 t"  # duplicate of line 2 (d1, topic q1)
    with pytest.raises(DataError) as e:
        read_run(write(tmp_path, "\n".join(lines) + "\n"))
    assert e.value.line == 24 and "first seen on line 2" in str(e.value)
    lines[23] = "q1 Q0 dx 1 x.0 t"
    with pytest.raises(DataError) as e:
        read_run(write(tmp_path, "\n".join(lines) + "\n"))
    assert e.value.line == 24
