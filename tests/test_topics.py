"""Topic readers: each format, and bad input named by file and line."""

from __future__ import annotations

import pytest

from harness.engine.topics import read_topics
from harness.errors import DataError, HarnessWarning


@pytest.mark.java
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


TREC = "<top>\n<num> Number: 301\n<title> organized crime\n<desc> Description:\nd\n<narr> Narrative:\nn\n</top>\n"


@pytest.mark.java
@pytest.mark.parametrize(
    "name, fmt, data",
    [
        ("t.tsv", "tsv", b"301\torganized crime\n"),
        ("t.jsonl", "jsonl", b'{"qid": "301", "query": "organized crime"}\n'),
        ("t.trec", "trec", TREC.encode()),  # Anserini's reader gets a copy without the BOM
        ("t.tsv", "anserini:TsvString", b"301\torganized crime\n"),
    ],
)
def test_a_leading_bom_is_skipped_in_every_format(tmp_path, name, fmt, data):
    (tmp_path / name).write_bytes(data)
    plain = read_topics(tmp_path / name, fmt)
    (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + data)
    assert read_topics(tmp_path / name, fmt) == plain == [("301", "organized crime")]


def test_header_row_is_skipped_with_a_warning(tmp_path):
    (tmp_path / "h.tsv").write_text("QID\tQuery\n1\tflow\n")
    with pytest.warns(HarnessWarning, match=r"h\.tsv:1: skipped 'QID\\tQuery': it looks like a header row"):
        assert read_topics(tmp_path / "h.tsv") == [("1", "flow")]
    (tmp_path / "n.tsv").write_text("1\tflow\nqid\tquery\n")  # not the first line: a topic (and no warning)
    assert read_topics(tmp_path / "n.tsv") == [("1", "flow"), ("qid", "query")]


@pytest.mark.java
def test_anserini_topics_with_an_empty_title_or_a_bad_id_are_errors(tmp_path):
    (tmp_path / "e.trec").write_text(TREC + TREC.replace("301", "302").replace("organized crime", " "))
    with pytest.raises(DataError, match=r"e\.trec: topic '302' has an empty title"):
        read_topics(tmp_path / "e.trec", "trec")
    (tmp_path / "f.tsv").write_text("1\tflow\n2\t \n")  # Anserini's reader itself fails on it
    with pytest.raises(DataError, match=r"f\.tsv: Anserini's TsvStringTopicReader could not read it: ") as e:
        read_topics(tmp_path / "f.tsv", "anserini:TsvString")
    assert "\tio.anserini" not in str(e.value) and "\n" not in str(e.value)  # no Java stack trace


@pytest.mark.java
@pytest.mark.parametrize(
    "text",
    [
        "1\tflat plate\tthe description\n2\tboundary layer\n",  # a third field
        "1\tflat plate\t\tnarrative\t\n",  # empty and trailing fields
        " 3\t  slip flow  \t x\r\n",  # Java's trim around the line and the query
        "1\tone\n2\ttwo\tand more\n",  # the first extra field only on line 2
    ],
)
def test_tsv_topics_read_as_anserinis_tsv_readers(tmp_path, text):
    """The query of a TSV line is its second field, as Anserini's TsvString and TsvInt readers (and
    Pyserini's .tsv topics) take it; the harness once took the rest of the line, tabs and all."""
    (tmp_path / "t.tsv").write_bytes(text.encode())
    with pytest.warns(HarnessWarning, match=r"t\.tsv:\d: more than two tab-separated fields; the query is the second"):
        ours = read_topics(tmp_path / "t.tsv")
    assert ours == sorted(read_topics(tmp_path / "t.tsv", "anserini:TsvString"))
    assert ours == read_topics(tmp_path / "t.tsv", "anserini:TsvInt")
