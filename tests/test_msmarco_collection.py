"""MS MARCO's passage collection (`pid<TAB>text`, `collection.format: tsv`) indexed by the harness
against Anserini on the JSON conversion Anserini documents for it (castorini/anserini-tools
scripts/msmarco/convert_collection_to_jsonl.py: each line's trailing whitespace stripped, split
at the tab, written as {"id": pid, "contents": text}; re-derived here from that rule, not copied):
IndexCollection (JsonCollection) from the fatjar builds the oracle index, SimpleSearcher searches
it. The lines that conversion cannot turn into the passage meant are errors naming file and line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.indexer import index_stats, run_index_collection
from harness.errors import DataError
from harness.formats.json_docs import JSON_STRING_LIMIT
from harness.formats.msmarco import passages_to_json

from .conftest import REPO, assert_runs_equal_simple_searcher
from .test_anserini_collections import QUIET, documents


def _passages() -> str:
    """The demo corpus as MS MARCO passages: pids 0.., one line each, in the shapes real files
    take (CRLF, trailing spaces and tabs stripped by the conversion, non-ASCII text)."""
    lines = []
    for pid, f in enumerate(sorted((REPO / "corpora" / "sample_docs").glob("*.txt"))):
        text = re.sub(r"\s+", " ", f.read_text(encoding="utf-8")).strip()
        end = ["\n", "\r\n", " \t \n", "\n"][pid % 4]
        lines.append(f"{pid}\t{text}{' naïve café — ﬁne' if pid % 5 == 0 else ''}{end}")
    lines.append("7000001\tx\n")  # a one-character passage
    return "".join(lines)


def _as_anserini_converts(tsv: Path, out: Path) -> None:
    out.mkdir()
    with open(tsv, encoding="utf-8") as f, open(out / "docs00.json", "w", encoding="utf-8", newline="\n") as w:
        for line in f:
            pid, text = line.rstrip().split("\t")
            w.write(json.dumps({"id": pid, "contents": text}) + "\n")


@pytest.mark.java
def test_the_index_and_runs_equal_anserinis_on_its_json_conversion(tmp_path):
    tsv = tmp_path / "collection.tsv"
    tsv.write_bytes(_passages().encode("utf-8"))
    _as_anserini_converts(tsv, tmp_path / "json")
    ours = ensure_index(Corpus(tsv, "tsv"), IndexOptions(), tmp_path / "ours", threads=1, **QUIET)
    counters = run_index_collection("JsonCollection", tmp_path / "json", tmp_path / "theirs", IndexOptions(), 1)
    assert ours.manifest["counters"] == counters and counters["indexed"] == len(_passages().splitlines())
    assert ours.manifest["stats"] == index_stats(tmp_path / "theirs")
    assert documents(ours.path) == documents(tmp_path / "theirs")
    queries = [q.split("\t")[1] for q in (REPO / "topics" / "demo.tsv").read_text().splitlines() if q]
    queries += ["naïve café", "fine"]
    assert_runs_equal_simple_searcher(ours.path, tmp_path / "theirs", queries, 20)


def test_the_conversion_writes_what_anserinis_writes_one_file_per_million(tmp_path):
    tsv = tmp_path / "c.tsv"
    tsv.write_bytes(_passages().encode("utf-8"))
    _as_anserini_converts(tsv, tmp_path / "theirs")
    n = passages_to_json([tsv], tmp_path / "ours", JSON_STRING_LIMIT, per_file=4)
    theirs = (tmp_path / "theirs" / "docs00.json").read_text().splitlines()
    ours = [line for f in sorted((tmp_path / "ours").glob("docs*.json")) for line in f.read_text().splitlines()]
    assert n == len(theirs) and ours == theirs
    assert sorted(p.name for p in (tmp_path / "ours").iterdir())[:3] == ["docs00.json", "docs01.json", "docs02.json"]
    assert len((tmp_path / "ours" / "docs00.json").read_text().splitlines()) == 4


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"1\tone\n2 two\n", "c.tsv:2: expected pid<TAB>text, got no tab between the pid and the text"),
        (b"1\tone\n2\ttwo\tthree\n", "c.tsv:2: expected pid<TAB>text, got 2 tabs"),
        (b"1\tone\n2\t  \n", "c.tsv:2: expected pid<TAB>text, got an empty text"),
        (b"1\tone\n\n2\ttwo\n", "c.tsv:2: expected pid<TAB>text, got a blank line"),
        (b"\xef\xbb\xbf1\tone\n", "c.tsv:1: starts with a UTF-8 byte-order mark"),
        (b"1\tone\n2\ttwo\n1\tagain\n", "c.tsv:3: passage id '1' is given twice (first on line 1)"),
        (b"1\tone\n2\tt\xffo\n", "c.tsv:2: not UTF-8 text"),
        (b"1 a\tone\n", "c.tsv:1: passage id '1 a' contains a space"),
        (b"1\tone\r2\ttwo\rthree\n", "c.tsv:3: expected pid<TAB>text, got no tab"),  # \r ends a line there too
    ],
)
def test_lines_the_conversion_cannot_turn_into_the_passage_meant_are_named(tmp_path, data, message):
    (tmp_path / "c.tsv").write_bytes(data)
    with pytest.raises(DataError) as e:
        passages_to_json([tmp_path / "c.tsv"], tmp_path / "out", JSON_STRING_LIMIT)
    assert str(e.value).startswith(str(tmp_path / message.split(":")[0])) and message.split(": ", 1)[1] in str(e.value)
    assert f":{message.split(':')[1]}:" in str(e.value), str(e.value)


def test_a_config_takes_format_tsv(tmp_path):
    from harness.config import load_config

    (tmp_path / "c.tsv").write_text("1\tone\n")
    (tmp_path / "c.yaml").write_text(
        "name: x\ncollection: {path: c.tsv, format: tsv}\n"
        f"topics: {{path: {REPO}/topics/demo.tsv, format: tsv}}\noutput: out\nruns: [bm25]\n"
    )
    cfg = load_config(tmp_path / "c.yaml")
    assert str(cfg.collection_format) == "tsv" and Corpus(cfg.collection_path, "tsv").anserini_class == "JsonCollection"
    assert Path(cfg.collection_path).name == "c.tsv"
