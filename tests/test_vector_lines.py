"""The fast check of JSON vector lines (harness.engine.vector_lines) against the line-by-line
check it stands in for: on any file, the same outcome (the same DataError text, or none).

The fast path only ever answers "proven fine"; every other file goes to the line-by-line
check, so the property is that it never calls a file fine that the slow path refuses, and
that the dimension it reports for a fine file is the one the slow path would compare with."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import harness.engine.corpus as corpus_module
from harness.engine.corpus import Corpus
from harness.engine.vector_lines import proven_fine
from harness.errors import DataError

GOOD = '{"docid": "d1", "vector": [0.25, -1, 3e-3]}'

# One line of each kind a vectors file can hold; the good ones all have 3 dimensions.
LINES = {
    "good": GOOD,
    "good int docid": '{"docid": 7, "vector": [1, 2, 3]}',
    "good compact": '{"docid":"x-9","vector":[0.1,0.2,0.3],"contents":"Information"}',
    "good extra": '{"contents": "a b", "docid": "d2", "vector": [1.5, 2.5, 3.5], "id": 3}',
    "good float32 max": '{"docid": "m", "vector": [3.4028234663852886e38, -3.4028234663852886e38, 0]}',
    "other dimension": '{"docid": "d3", "vector": [1, 2]}',
    "NaN": '{"docid": "d4", "vector": [NaN, 1, 2]}',
    "Infinity": '{"docid": "d5", "vector": [1, -Infinity, 2]}',
    "Inf (not JSON)": '{"docid": "d5", "vector": [1, Inf, 2]}',
    "Inf elsewhere": '{"docid": "d5", "score": Inf, "vector": [1, 2, 3]}',
    "NaN elsewhere": '{"docid": "d5", "score": NaN, "vector": [1, 2, 3]}',
    "beyond float32": '{"docid": "d6", "vector": [1, 3.5e38, 2]}',
    "beyond float64": '{"docid": "d6", "vector": [1, 1e999, 2]}',
    "huge integer": '{"docid": "d6", "vector": [1, ' + "9" * 400 + ", 2]}",
    "string element": '{"docid": "d7", "vector": [1, "2", 3]}',
    "boolean element": '{"docid": "d7", "vector": [true, 2, 3]}',
    "null element": '{"docid": "d7", "vector": [1, null, 3]}',
    "nested element": '{"docid": "d7", "vector": [1, [2], 3]}',
    "empty vector": '{"docid": "d8", "vector": []}',
    "no vector": '{"docid": "d8"}',
    "null vector": '{"docid": "d8", "vector": null}',
    "string vector": '{"docid": "d8", "vector": "1,2,3"}',
    "object vector": '{"docid": "d8", "vector": {"a": 1}}',
    "no docid": '{"vector": [1, 2, 3]}',
    "null docid": '{"docid": null, "vector": [1, 2, 3]}',
    "float docid": '{"docid": 1.5, "vector": [1, 2, 3]}',
    "boolean docid": '{"docid": true, "vector": [1, 2, 3]}',
    "big integer docid": '{"docid": 123456789012345678901234567890, "vector": [1, 2, 3]}',
    "docid with a space": '{"docid": "a b", "vector": [1, 2, 3]}',
    "empty docid": '{"docid": "", "vector": [1, 2, 3]}',
    "docid with a no-break space": '{"docid": "a\\u00a0b", "vector": [1, 2, 3]}',
    "lone surrogate docid": '{"docid": "\\ud800", "vector": [1, 2, 3]}',
    "duplicate key": '{"docid": "d9", "vector": [1, 2, 3], "vector": "x"}',
    "duplicate key, good last": '{"docid": "d9", "vector": "x", "vector": [1, 2, 3]}',
    "escaped key": '{"docid": "d9", "vec\\u0074or": [1, 2, 3]}',
    "array": "[1, 2, 3]",
    "number": "5",
    "invalid JSON": '{"docid": "d10", "vector": [1, 2, 3]',
    "trailing comma": '{"docid": "d10", "vector": [1, 2, 3],}',
    "two objects": GOOD + GOOD,
    "object over two lines": '{"docid": "d11", "x":\n{"y": 1}, "vector": [1, 2, 3]}' + GOOD,
    "blank": "",
    "spaces": "   ",
    "leading space": " " + GOOD,
    "trailing space": GOOD + " ",
    "crlf": GOOD + "\r",
    "deep": '{"docid": "d12", "x": ' + "[" * 1100 + "]" * 1100 + ', "vector": [1, 2, 3]}',
    "mixed extra types": '{"docid": "d13", "contents": 5, "vector": [1, 2, 3]}',
    "raw tab in string": '{"docid": "d14", "contents": "a\tb", "vector": [1, 2, 3]}',
    "leading zero": '{"docid": "d15", "vector": [01, 2, 3]}',
}


def outcome(files, *, fast: bool, monkeypatch) -> str | None:
    """check_vectors' DataError text (None when it passes), with or without the fast path."""
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(corpus_module, "proven_fine", lambda fh, limit, dim: (False, None))
        try:
            Corpus(files, "vectors").check_vectors()
        except DataError as e:
            return str(e)
    return None


def write(path, lines: list[str], end: str = "\n", prefix: bytes = b"") -> None:
    data = prefix + (end.join(lines) + end).encode("utf-8", "surrogatepass")
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)


@pytest.mark.parametrize("kind", sorted(LINES))
def test_each_kind_of_line_same_outcome(kind, tmp_path, monkeypatch):
    f = tmp_path / "v.jsonl"
    write(f, [GOOD, GOOD, LINES[kind], GOOD])
    slow = outcome(f, fast=False, monkeypatch=monkeypatch)
    assert outcome(f, fast=True, monkeypatch=monkeypatch) == slow
    if kind.startswith("good"):
        assert slow is None
    if kind.startswith("good") and kind != "good int docid":  # a docid both string and integer: slow path
        with open(f, "rb") as fh:
            assert proven_fine(fh, 1 << 20, None) == (True, 3)  # and the fast path proved it


def test_a_good_file_is_proven_fine_and_bad_bytes_are_not(tmp_path):
    f = tmp_path / "v.jsonl"
    write(f, [GOOD] * 5, prefix=b"\xef\xbb\xbf")
    with open(f, "rb") as fh:
        assert proven_fine(fh, 1 << 20, None) == (True, 3)
    with open(f, "rb") as fh:
        assert proven_fine(fh, 1 << 20, 4) == (False, None)  # another file's dimension
    f.write_bytes(GOOD.encode() + b"\n" + GOOD.replace("d1", "d\xff").encode("latin-1") + b"\n")
    with open(f, "rb") as fh:
        assert proven_fine(fh, 1 << 20, None) == (False, None)


def test_first_dimension_named_across_files(tmp_path, monkeypatch):
    write(tmp_path / "a.jsonl", [GOOD, GOOD])
    write(tmp_path / "b.jsonl", [GOOD, LINES["other dimension"]])
    slow = outcome(tmp_path, fast=False, monkeypatch=monkeypatch)
    assert "a.jsonl:1) has 3" in slow
    assert outcome(tmp_path, fast=True, monkeypatch=monkeypatch) == slow


def test_line_limit_same_outcome(tmp_path, monkeypatch):
    f = tmp_path / "v.jsonl"
    write(f, [GOOD, GOOD.replace("d1", "d" * 60)])
    for limit in (30, len(GOOD), len(GOOD) + 1, 65, 200):
        monkeypatch.setattr(corpus_module, "DOC_LINE_LIMIT", limit)
        assert outcome(f, fast=True, monkeypatch=monkeypatch) == outcome(f, fast=False, monkeypatch=monkeypatch)


_kinds = st.sampled_from(sorted(LINES))
_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.integers(min_value=-(10**40), max_value=10**40),
)


@st.composite
def generated_line(draw) -> str:
    """A line from the table, or a vector of drawn numbers (any float, NaN, infinity, huge)."""
    if draw(st.booleans()):
        return LINES[draw(_kinds)]
    vector = draw(st.lists(_numbers, min_size=0, max_size=4))
    docid = draw(st.one_of(st.text(max_size=4), st.integers(), st.none()))
    return json.dumps({"docid": docid, "vector": vector})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(generated_line(), min_size=0, max_size=6),
    end=st.sampled_from(["\n", "\r\n", ""]),
    gz=st.booleans(),
)
def test_fast_and_slow_checks_agree(lines, end, gz, tmp_path_factory, monkeypatch):
    f = tmp_path_factory.mktemp("v") / ("v.jsonl.gz" if gz else "v.jsonl")
    write(f, lines, end="\n" if end == "" else end)
    if end == "" and lines:  # no line end after the last line
        data = f.read_bytes()
        data = gzip.decompress(data) if gz else data
        data = data[:-1]
        f.write_bytes(gzip.compress(data) if gz else data)
    assert outcome(f, fast=True, monkeypatch=monkeypatch) == outcome(f, fast=False, monkeypatch=monkeypatch)
