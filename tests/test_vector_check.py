"""The vectors' check (harness.engine.contents.check_vectors) reads the file in blocks (hygiene.block_lines) and
takes two shortcuts: a line of exactly the common shape is checked from orjson's values with numpy
(harness.engine.vectors.fast_vector_document), other lines are parsed with orjson where it can
(fast_json_object) and with json.loads where it must. The outcome (the documents counted, or the
DataError's text) must be the one the line-by-line reader and json.loads alone give, for any file.
And the corpus fingerprint, remembered within a process, must never be stale."""

from __future__ import annotations

import functools
import gzip
import io
import json
import math
import os
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.engine import contents as contents_module
from harness.engine import corpus as corpus_module
from harness.engine.contents import check_vectors
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index, index_fingerprint
from harness.engine.vectors import fast_vector_document, read_vector_topics
from harness.errors import DataError
from harness.formats import hygiene

from .conftest import examples


def outcome(path, monkeypatch=None) -> str:
    try:
        return f"ok {check_vectors(Corpus(path, 'vectors'))}"
    except DataError as e:
        return f"error {e}"


def json_only(path) -> str:
    """The oracle: the same check with orjson and the fast path never asked (json.loads for every
    line), each line read by numbered_lines (a readline and a decode per line)."""

    def by_line(f, fh, limit):
        for lineno, text in hygiene.numbered_lines(f, fh, limit):
            yield lineno, text.encode("utf-8")

    with pytest.MonkeyPatch.context() as m:
        m.setattr(contents_module, "fast_json_object", lambda line: None)
        m.setattr(contents_module, "fast_vector_document", lambda raw: None)
        m.setattr(contents_module, "block_lines", by_line)
        return outcome(path)


def java_scan(f, limit, dims):
    """harness.VectorLines.scan, the first pass the index builder gives the check."""
    from harness.engine import lucene

    return tuple(int(x) for x in lucene.jclass("harness.VectorLines").scan(str(f), limit, dims))


def scanned(path) -> str:
    """The check with Java's first pass (the index builder's, for collections over 8 MB)."""
    try:
        return f"ok {check_vectors(Corpus(path, 'vectors'), java_scan)}"
    except DataError as e:
        return f"error {e}"


def small_blocks(path) -> str:
    """The check with blocks of 7 bytes, so lines span blocks."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(contents_module, "block_lines", functools.partial(hygiene.block_lines, block=7))
        return outcome(path)


# Numbers and values where orjson and json.loads part ways, and ones where they agree.
NUMBER = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.integers(-(10**30), 10**30).map(str),  # beyond 64 bits orjson gives a float, json an int
    st.sampled_from(
        [
            "NaN",
            "Infinity",
            "-Infinity",
            "1e400",
            "-1e39",
            "3.4028234663852886e38",
            "3.4028236e38",
            "1E5",
            "-0",
            "0.0000001e-400",
            '"2"',
            "true",
            "null",
            "[1]",
            "{}",
            "01",
            "1.",
            "+1",
            "0x1",
            '"\\ud800"',
            "false",
            "1e19",
            "1.3e19",  # its square is 1.69e38: within half of float32's maximum
            "1.31e19",  # its square is beyond: the fast path leaves the line to the full check
            "1.8446744e19",
            "18446744073709551615",  # an unsigned 64-bit integer
            "9223372036854775807",
            "99999999999999999",  # 17 digits: Java's first pass recognises it
            "100000000000000000",  # 18: it leaves the line to Python
            "-0.0",
            "1e+00",
            "1.5E-07",
            "12.5e15",
            "1e16",
            "1e17",
            "0e999",
            "1e-99999",
            "1e0000",
            "2.",
            ".5",
            "-",
            "1e",
            "1e+",
            "--1",
        ]
    ),  # fmt: skip
)
DOCID = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6).map(json.dumps),
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["0", "-0", "00", "123456789012345678", "1234567890123456789", "-", '"é"', '"a\\u0041"']),
    st.sampled_from(["true", "null", "1.5", "[]", '"a b"', '"\\ud800"', '"\\u0000"', '"a\\"b"', '"true"', '"[u]"']),
)


# What replaces each "x" of the generated lines: bytes Python's UTF-8 decoder refuses (a stray
# byte, a surrogate, overlong forms, past U+10FFFF, a truncated sequence) or accepts, and a BOM
RAW = [
    b"",
    b"\xff",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
    b"\xf0\x80\x80\xaf",
    b"\xf4\x90\x80\x80",
    b"\xe2\x82",
    b"\xc3\xa9",
    b"\xf0\x9f\x98\x80",
    b"\xed\x9f\xbf",
    b"\xf4\x8f\xbf\xbf",
]


@st.composite
def line(draw) -> str:
    numbers = draw(st.lists(NUMBER, min_size=0, max_size=5))
    docid = draw(DOCID)
    key = draw(st.sampled_from(["docid", "docid", "docid", "id"]))
    extra = draw(
        st.sampled_from(
            [
                "",
                ', "contents": "x"',
                ', "contents": "x"',
                ', "contents": "caf\u00e9 x \\" \\\\ \\/ \\u00e9 \\ud800 \\n \U0001f600 vector"',
                ', "contents": "a\tb"',  # a raw control character: not JSON
                ', "contents": "\\x"',  # not an escape
                ', "contents": "\\u12"',
                ', "contents": 5',
                ', "contents": null',
                ', "contents": "x", "contents": "y"',
                ', "x": ' + "[" * 70 + "]" * 70,
                ', "docid": "z"',
            ]
        )
    )
    text = f'{{"{key}": {docid}, "vector": [{", ".join(numbers)}]{extra}}}'
    swapped = f'{{"vector": [{", ".join(numbers)}], "{key}": {docid}}}'
    tight = f'{{"{key}":{docid},"vector":[{",".join(numbers)}]}}'  # no spaces, as json.dumps(separators=...)
    spaced = f' \t{{ "{key}" :\r{docid} , "vector" : [ {" , ".join(numbers)} ] }} \r'
    shapes = [
        text,
        text,
        text,
        swapped,
        tight,
        spaced,
        text[:-1],
        f"[{text}]",
        "  " + text + " ",
        "not json",
        "",
        "\t",
        "\u00a0",
    ]
    return draw(st.sampled_from(shapes))


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(line(), min_size=1, max_size=6),
    ending=st.sampled_from(["\n", "\r\n"]),
    last=st.booleans(),  # the last line ends with a line end
    bom=st.booleans(),
    raw=st.sampled_from(RAW),
)
def test_the_check_says_what_json_loads_alone_says(tmp_path, lines, ending, last, bom, raw):
    f = tmp_path / "v.jsonl"
    data = ("\ufeff" if bom else "") + ending.join(lines) + (ending if last else "")
    f.write_bytes(data.encode("utf-8").replace(b"x", raw or b"x"))
    want = json_only(f)
    assert outcome(f) == want
    assert small_blocks(f) == want


@pytest.mark.java
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(line(), min_size=1, max_size=6),
    ending=st.sampled_from(["\n", "\r\n"]),
    last=st.booleans(),
    raw=st.sampled_from(RAW),
)
def test_javas_first_pass_changes_no_outcome(tmp_path, lines, ending, last, raw):
    """harness.VectorLines recognises only lines the check accepts: with it, the documents counted
    or the first error are the same as json.loads's alone (every "x" of the lines replaced by
    ``raw``: UTF-8 that Python's decoder refuses, or accepts)."""
    f = tmp_path / "v.jsonl"
    f.write_bytes((ending.join(lines) + (ending if last else "")).encode("utf-8").replace(b"x", raw or b"x"))
    assert scanned(f) == json_only(f)


@pytest.mark.java
def test_javas_first_pass_recognises_the_common_lines(tmp_path):
    """What the scan reports (first doubtful line, lines recognised, dimension, first line), on
    lines as json.dumps and numpy-based writers write them, and the line it stops at."""
    from harness.engine.contents import DOC_LINE_LIMIT

    f = tmp_path / "v.jsonl"
    good = [
        '{"docid": "d1", "vector": [0.011155, -0.03807, 1.5e-07]}',
        '{"docid":"d2","vector":[1,2,3]}',
        '{"vector": [99999999999999999, -0.0, 1e+00], "docid": 7}',
        ' {"docid": "LA010189-0001", "contents": "caf\u00e9 \\"\\u00e9\\" \U0001f600", "vector": [12.5e15, -0, 1e-99999]}\r',
    ]
    for bad, why in [
        ('{"docid": "d9", "vector": [1, 2]}', "another dimension"),
        ('{"docid": "d9", "vector": [1, 2, 100000000000000000]}', "18 digits"),
        ('{"docid": "d9", "vector": [1, 2, 1e17]}', "1 + 17 digits > 17"),
        ('{"docid": "d 9", "vector": [1, 2, 3]}', "a space in the id"),
        ('{"docid": "\\u0064", "vector": [1, 2, 3]}', "an escape"),
        ('{"docid": "d9", "vector": [1, 2, 3], "id": "x"}', "another key"),
        ('{"docid": "d9", "vector": [1, 2, 3], "contents": 5}', "contents not a string"),
        ('{"docid": "d9", "contents": "a", "contents": "b", "vector": [1, 2, 3]}', "contents twice"),
        ('{"docid": "d9", "vector": [1, 2, 3], "contents": "a\tb"}', "a control character in the contents"),
        ('{"docid": "d9", "docid": "d8", "vector": [1, 2, 3]}', "a key twice"),
        ('{"docid": "d9", "vector": [1, 2, NaN]}', "not JSON"),
        ('{"docid": "d9", "vector": [1, 2, 3]} x', "after the object"),
        ("", "a blank line"),
    ]:
        f.write_text("\n".join([*good, bad, good[0]]) + "\n")
        assert java_scan(f, DOC_LINE_LIMIT, 4096) == (5, 4, 3, 1), why
        assert scanned(f) == json_only(f), why
    f.write_text("\n".join(good))  # no line end after the last line
    assert java_scan(f, DOC_LINE_LIMIT, 4096) == (0, 4, 3, 1)
    assert java_scan(f, DOC_LINE_LIMIT, 2) == (1, 0, 0, 0)  # more numbers than the limit
    assert java_scan(f, 60, 4096) == (4, 3, 3, 1)  # the fourth line is longer than 60 bytes
    # Anserini's own sample (docid, contents, vector of 1,536 numbers): every line recognised by
    # both shortcuts, Java's and Python's
    sample = gzip.decompress((Path(__file__).parent / "data" / "anserini-dense" / "sample100.jsonl.gz").read_bytes())
    f.write_bytes(sample)
    assert java_scan(f, DOC_LINE_LIMIT, 4096) == (0, 100, 1536, 1)
    assert all(fast_vector_document(line) == (json.loads(line)["docid"], 1536) for line in sample.splitlines())


@settings(max_examples=examples(300), deadline=None)
@given(
    data=st.binary(max_size=60)
    | st.lists(st.sampled_from([b"ab", b"\n", b"\r\n", b"\xef\xbb\xbf", b"c" * 9, b"\xff"])).map(b"".join),
    block=st.integers(1, 12),
    limit=st.integers(1, 12),
)
def test_block_lines_reads_what_numbered_lines_reads(data, block, limit):
    """Each line, in order, and the same DataError at the same line for a line over the limit or
    not UTF-8; with blocks of any size, lines spanning them, and a BOM before the first line."""

    def read(lines):
        got = []
        try:
            for lineno, line in lines:
                got.append((lineno, line if isinstance(line, str) else hygiene.line_text("f", lineno, line)))
        except DataError as e:
            got.append(str(e))
        return got

    by_line = read(hygiene.numbered_lines("f", io.BytesIO(data), limit))
    assert read(hygiene.block_lines("f", io.BytesIO(data), limit, block=block)) == by_line
    assert read(hygiene.block_lines("f", io.BytesIO(data), limit)) == by_line


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('{"docid": "a", "vector": [1, 2.5]}\n\n{"docid": 7, "vector": [0, -1e-3]}\n', "ok 2"),
        # an integer beyond 64 bits: orjson would show it as 1e+40, the message shows it as written
        ('{"docid": "a", "vector": [1, 10000000000000000000000000000000000000000]}\n', "1000000000000000000000"),
        ('{"docid": "a", "vector": [1, NaN]}\n', "v.jsonl:1: "),
        ('{"docid": 100000000000000000000, "vector": [1]}\n', "ok 1"),  # a docid orjson reads as a float
        # nesting: each parser has its own depth limit (orjson 1,024; json.loads 1,020-1,500)
        ('{"docid": "a", "vector": [1], "x": ' + "[" * 1010 + "]" * 1010 + "}\n", None),
        ('{"docid": "a", "vector": [1], "x": ' + "[" * 2000 + "]" * 2000 + "}\n", "nested too deeply"),
    ],
)
def test_lines_where_the_two_parsers_differ(tmp_path, text, want):
    f = tmp_path / "v.jsonl"
    f.write_text(text)
    got = outcome(f)
    assert got == json_only(f) == small_blocks(f)
    assert want is None or want in got  # None: whatever json.loads says on this Python


def _age(path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_fingerprint_remembered_only_while_the_files_are_unchanged(tmp_path, monkeypatch):
    f = tmp_path / "v.jsonl"
    f.write_text('{"docid": "a", "vector": [1, 2]}\n')
    _age(f, 60)
    reads = []
    real = corpus_module.read_chunk
    monkeypatch.setattr(corpus_module, "read_chunk", lambda *a: reads.append(1) or real(*a))
    c = Corpus(f, "vectors")
    first = c.fingerprint()
    n = len(reads)
    assert c.fingerprint() == first and len(reads) == n  # remembered: not read again
    f.write_text('{"docid": "b", "vector": [1, 2]}\n')  # the same size, modified now
    second = c.fingerprint()
    assert second != first and len(reads) > n
    n = len(reads)
    assert c.fingerprint() == second and len(reads) > n  # modified under 2 s ago: read every time
    _age(f, 60)
    assert c.fingerprint() == second
    n = len(reads)
    assert c.fingerprint() == second and len(reads) == n


@pytest.mark.java
def test_a_fresh_build_records_the_corpus_fingerprint(tmp_path):
    """With no index at the path, the fingerprint is taken beside the build (engine.index):
    the manifest's is still the one a later run compares, so the index is reused."""
    (tmp_path / "docs").mkdir()
    f = tmp_path / "docs" / "v.jsonl"
    f.write_text("".join(f'{{"docid": "d{i}", "vector": [{i}, 1, 2]}}\n' for i in range(50)))
    corpus, options = Corpus(tmp_path / "docs", "vectors"), IndexOptions(vectors="flat")
    built = ensure_index(corpus, options, tmp_path / "idx", threads=1)
    assert not built.reused and built.manifest["counters"]["indexed"] == 50
    assert built.fingerprint == built.manifest["fingerprint"] == index_fingerprint(corpus, options)
    assert ensure_index(corpus, options, tmp_path / "idx", threads=1).reused


# ------------------------------------------------- squared lengths beyond float32 (Lucene's overflow)
F32_MAX = float(np.finfo(np.float32).max)  # 3.4028234663852886e38
TOO_LONG = (
    "this vector's squared length is {}, beyond float32's largest number (3.4e+38): Lucene's dot "
    "product of it would overflow (scale the vectors down, e.g. normalise them)"
)


@pytest.mark.parametrize(
    ("vector", "squared"),
    [
        ([1.8e19], None),  # 3.24e38: accepted
        ([1.9e19], "3.6e+38"),  # each number a float32, the square not (it passed the check before)
        ([1e19, 1e19, 1e19], None),
        ([1e19, -1e19, 1e19, 1e19], "4e+38"),
        ([10**19, 10**19, 10**19, 10**19], "4e+38"),  # integers: the same
        ([F32_MAX, 0.0], "1.2e+77"),
        ([0.0] * 767 + [3e19], "9e+38"),
    ],
)
def test_a_vector_whose_squared_length_is_beyond_float32_is_refused(tmp_path, vector, squared):
    f = tmp_path / "v.jsonl"
    f.write_text(
        json.dumps({"docid": "a", "vector": [1] * len(vector)})
        + "\n"
        + json.dumps({"docid": "b", "vector": vector})
        + "\n"
    )
    got = outcome(f)
    assert got == json_only(f)
    assert got == ("ok 2" if squared is None else f"error {f}:2: {TOO_LONG.format(squared)}")
    q = tmp_path / "q.jsonl"
    q.write_text(
        json.dumps({"qid": "1", "vector": [1] * len(vector)}) + "\n" + json.dumps({"qid": 2, "vector": vector}) + "\n"
    )
    if squared is None:
        assert len(read_vector_topics(q)) == 2
    else:
        with pytest.raises(DataError) as e:
            read_vector_topics(q)
        assert str(e.value) == f"{q}:2: {TOO_LONG.format(squared)}"


def test_parquet_vectors_and_topics_beyond_float32_are_refused_with_their_row(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    for value_type in (pa.float32(), pa.float64()):
        for col, read in (("docid", lambda p: check_vectors(Corpus(p, "vectors"))), ("qid", read_vector_topics)):
            f = tmp_path / f"{col}-{value_type}.parquet"
            vectors = [[1.0, 2.0, 3.0, 4.0], [1e19, 1e19, 1e19, 0.0], [1e19, -1e19, 1e19, 1e19]]
            pq.write_table(pa.table({col: ["a", "b", "c"], "vector": pa.array(vectors, pa.list_(value_type))}), f)
            with pytest.raises(DataError) as e:
                read(f)
            # the first two rows pass (1e19 * 3 is 3e38), the third is 4e38
            assert str(e.value) == f"{f}: row 3: {TOO_LONG.format('4e+38')}"


@pytest.mark.java
def test_the_bound_keeps_lucenes_dot_products_finite():
    """Oracle: Lucene's float32 dot product (VectorUtil.dotProduct: DOT_PRODUCT's, and the norms
    COSINE takes). Vectors the check accepts (squared lengths up to 0.999 of float32's largest
    number) give finite dot products with each other; every one it refuses for its length
    (1.001 of it and beyond) an infinite one with itself."""
    from harness.engine.lucene import jclass
    from harness.engine.vectors import parse_vector

    dot = jclass("org.apache.lucene.util.VectorUtil").dotProduct
    rng = np.random.default_rng(7)
    accepted = []
    for dim in (1, 2, 3, 768):
        for ratio in (0.5, 0.9, 0.999, 1.001, 1.1, 2.0, 100.0):
            v = rng.standard_normal(dim)
            v = (v * math.sqrt(ratio * F32_MAX / float(np.dot(v, v)))).tolist()
            try:
                parse_vector("v.jsonl", v, 1)
            except DataError as e:
                assert ratio > 1 and "squared length" in str(e)
                assert math.isinf(dot(v, v)), (dim, ratio)
                continue
            assert ratio < 1, (dim, ratio)
            accepted.append(v)
    assert len(accepted) == 12
    for u in accepted:
        for v in accepted:
            if len(u) == len(v):
                assert math.isfinite(dot(u, v))


@pytest.mark.java
def test_the_builder_scans_in_java_and_still_names_the_bad_line(tmp_path, monkeypatch):
    """ensure_index hands the check Java's first pass (for collections over contents._SCAN_FROM_BYTES):
    the good collection is built with the lines counted, and a bad line after good ones is named
    by its file and line, with no index left."""
    monkeypatch.setattr(contents_module, "_SCAN_FROM_BYTES", 0)
    scans = []
    real = contents_module._vector_scan

    def spy(corpus):
        scan = real(corpus)
        return lambda *a: scans.append(a[0].name) or scan(*a)

    monkeypatch.setattr(contents_module, "_vector_scan", spy)
    (tmp_path / "docs").mkdir()
    f = tmp_path / "docs" / "v.jsonl"
    lines = [f'{{"docid": "d{i}", "vector": [{i}, 1, 2]}}\n' for i in range(50)]
    f.write_text("".join(lines))
    built = ensure_index(
        Corpus(tmp_path / "docs", "vectors"), IndexOptions(vectors="flat"), tmp_path / "idx", threads=1
    )
    assert built.manifest["counters"]["indexed"] == 50 and scans == ["v.jsonl"]
    lines[40] = '{"docid": "d40", "vector": [1, 2, 1e39]}\n'
    f.write_text("".join(lines))
    with pytest.raises(DataError, match=r"v.jsonl:41: .*element 2 is 1e\+39"):
        ensure_index(Corpus(tmp_path / "docs", "vectors"), IndexOptions(vectors="flat"), tmp_path / "idx2", threads=1)
    assert scans == ["v.jsonl", "v.jsonl"] and not (tmp_path / "idx2").exists()
