"""The vectors' check (Corpus.check_vectors) parses lines with orjson where it can
(harness.engine.vectors.fast_json_object) and with json.loads where it must: the outcome (the
documents counted, or the DataError's text) must be the one json.loads alone gives, for any line.
And the corpus fingerprint, remembered within a process, must never be stale."""

from __future__ import annotations

import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.engine import corpus as corpus_module
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index, index_fingerprint
from harness.errors import DataError


def outcome(path, monkeypatch=None) -> str:
    try:
        return f"ok {Corpus(path, 'vectors').check_vectors()}"
    except DataError as e:
        return f"error {e}"


def json_only(path) -> str:
    """The oracle: the same check with orjson never asked (json.loads for every line)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(corpus_module, "fast_json_object", lambda line: None)
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
        ]
    ),  # fmt: skip
)
DOCID = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6).map(json.dumps),
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["true", "null", "1.5", "[]", '"a b"', '"\\ud800"', '"\\u0000"']),
)


@st.composite
def line(draw) -> str:
    numbers = draw(st.lists(NUMBER, min_size=0, max_size=5))
    docid = draw(DOCID)
    key = draw(st.sampled_from(["docid", "docid", "docid", "id"]))
    extra = draw(st.sampled_from(["", ', "contents": "x"', ', "x": ' + "[" * 70 + "]" * 70, ', "docid": "z"']))
    text = f'{{"{key}": {docid}, "vector": [{", ".join(numbers)}]{extra}}}'
    return draw(st.sampled_from([text, text, text, text[:-1], f"[{text}]", "  " + text + " ", "not json", "", "\t"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(line(), min_size=1, max_size=6), ending=st.sampled_from(["\n", "\r\n"]))
def test_the_check_says_what_json_loads_alone_says(tmp_path, lines, ending):
    f = tmp_path / "v.jsonl"
    f.write_text(ending.join(lines) + ending, encoding="utf-8")
    assert outcome(f) == json_only(f)


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
    assert got == json_only(f)
    assert want is None or want in got  # None: whatever json.loads says on this Python


def _age(path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_fingerprint_remembered_only_while_the_files_are_unchanged(tmp_path, monkeypatch):
    f = tmp_path / "v.jsonl"
    f.write_text('{"docid": "a", "vector": [1, 2]}\n')
    _age(f, 60)
    reads = []
    real = corpus_module._read
    monkeypatch.setattr(corpus_module, "_read", lambda *a: reads.append(1) or real(*a))
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
