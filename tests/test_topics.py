"""Topic readers: each format, and bad input named by file and line."""

from __future__ import annotations

import pytest

from harness.engine.topics import read_topics
from harness.errors import DataError


def test_formats(tmp_path):
    (tmp_path / "t.tsv").write_text("1\tvector space model\n\n2\t/slip flow/ -dash ?\n")
    assert read_topics(tmp_path / "t.tsv") == [("1", "vector space model"), ("2", "/slip flow/ -dash ?")]
    (tmp_path / "t.jsonl").write_text('{"qid": 7, "query": "bm25"}\n\n{"id": "x", "title": "smoothing"}\n')
    assert read_topics(tmp_path / "t.jsonl", "jsonl") == [("7", "bm25"), ("x", "smoothing")]
    (tmp_path / "t.trec").write_text(
        "<top>\n<num> Number: 301\n<title> organized crime\n<desc> Description:\nd\n<narr> Narrative:\nn\n</top>\n"
    )
    assert read_topics(tmp_path / "t.trec", "trec") == [("301", "organized crime")]  # Anserini's TrecTopicReader


@pytest.mark.parametrize(
    "name, fmt, text, message",
    [
        ("a.tsv", "tsv", "1\tok\n2 no tab\n", r"a\.tsv:2: expected 'qid<TAB>query text'"),
        ("b.tsv", "tsv", "1\tone\n1\tagain\n", r"b\.tsv:2: topic '1' already defined on line 1"),
        ("c.jsonl", "jsonl", '{"qid": 1, "query": "a"}\n{oops\n', r"c\.jsonl:2: invalid JSON"),
        ("d.jsonl", "jsonl", '{"qid": 1}\n', r"d\.jsonl:1: each object needs an id"),
        ("e.tsv", "anserini:NoSuch", "1\tx\n", r"unknown Anserini topic reader 'NoSuch'"),
    ],
)
def test_bad_input_names_file_and_line(tmp_path, name, fmt, text, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(DataError, match=message):
        read_topics(tmp_path / name, fmt)
