"""Parquet vectors (Anserini's ParquetDenseVectorCollection: a "docid" column of strings and a
"vector" column, a list of float or double), for documents and for topics.

Oracle: Anserini's testBasicAda2 run lines (tests/test_dense.py), from the same vectors written
to Parquet here; bad files are refused with their file and row, as the JSON lines are."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.engine.contents import check_contents
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.topics import read_topics
from harness.errors import DataError
from tests.test_dense import ANSERINI_ADA2, DOCS, TOPICS, run_lines


def write(path, ids, vectors, id_type=None, value_type=None):
    vtype = pa.list_(value_type or pa.float64())
    table = pa.table({"docid": pa.array(ids, id_type or pa.string()), "vector": pa.array(vectors, vtype)})
    pq.write_table(table, path)
    return path


@pytest.fixture(scope="module")
def parquet_docs(tmp_path_factory):
    docs = [json.loads(line) for line in gzip.open(DOCS, "rt")]
    folder = tmp_path_factory.mktemp("parquet")
    # two files, as a folder of Parquet files is read
    write(folder / "a.parquet", [d["docid"] for d in docs[:60]], [d["vector"] for d in docs[:60]])
    write(folder / "b.parquet", [d["docid"] for d in docs[60:]], [d["vector"] for d in docs[60:]])
    return folder


@pytest.mark.java
@pytest.mark.parametrize("which", ["flat", "hnsw"])
def test_parquet_documents_give_anserinis_run(parquet_docs, tmp_path, which):
    corpus = Corpus(parquet_docs, "vectors")
    assert corpus.anserini_class == "ParquetDenseVectorCollection"
    options = IndexOptions(vectors=which, **({"M": 16, "efC": 100} if which == "hnsw" else {}))
    info = ensure_index(corpus, options, tmp_path / "idx", threads=1)
    assert info.manifest["counters"]["indexed"] == 100
    assert info.manifest["collection"]["anserini_class"] == "ParquetDenseVectorCollection"
    assert run_lines(info, "knn(efSearch=1000)", 5) == ANSERINI_ADA2.splitlines()


def test_parquet_topics_equal_the_jsonl_topics(tmp_path):
    rows = [json.loads(line) for line in TOPICS.read_text().splitlines()]
    for id_type, value_type in [(pa.int64(), pa.float32()), (pa.string(), pa.float64())]:
        f = tmp_path / f"q-{id_type}-{value_type}.parquet"
        table = pa.table(
            {
                "qid": pa.array([r["qid"] if id_type == pa.int64() else str(r["qid"]) for r in rows], id_type),
                "vector": pa.array([r["vector"] for r in rows], pa.list_(value_type)),
            }
        )
        pq.write_table(table, f)
        got = read_topics(f, "vectors")
        want = read_topics(TOPICS, "vectors")
        assert [q for q, _ in got] == [q for q, _ in want] == ["160885", "867490"]
        if value_type == pa.float64():
            assert got == want
        else:  # the float32 of each number: what the searcher makes of the JSON numbers too
            import numpy as np

            for (_, a), (_, b) in zip(got, want):
                assert np.array_equal(np.float32(json.loads(a)), np.float32(json.loads(b)))


BAD = [
    (
        lambda p: write(p, ["a", "b"], [[1.0, 2.0], [1.0, 2.0, 3.0]]),
        "row 2: this vector has 3 dimensions, the first one",
    ),
    (lambda p: write(p, ["a"], [[1.0, float("nan")]]), 'row 1: "vector" element 1 is nan: not a finite'),
    (lambda p: write(p, ["a", "b"], [[1.0], [float("inf")]]), 'row 2: "vector" element 0 is inf'),
    (lambda p: write(p, ["a"], [[1.0, 1e39]]), 'row 1: "vector" element 1 is 1e\\+39: not a finite float32'),
    (lambda p: write(p, ["a"], [[1.0, None]]), 'row 1: "vector" element 1 is null'),
    (lambda p: write(p, ["a", "b"], [[1.0], None]), 'row 2: "vector" is missing \\(null\\)'),
    (lambda p: write(p, ["a", None], [[1.0], [2.0]]), 'row 2: "docid" is missing'),
    (lambda p: write(p, ["a"], [[]]), 'row 1: "vector" is empty'),
    (lambda p: write(p, ["a"], [[0.5] * 4097]), "row 1: this vector has 4,097 dimensions; Lucene indexes .* 4,096"),
    (lambda p: write(p, ["a b"], [[1.0]]), "row 1: .*contains a space"),
    (lambda p: write(p, [1], [[1.0]], id_type=pa.int64()), 'column "docid" holds int64; it must hold string'),
    (lambda p: write(p, ["a"], [["1"]], value_type=pa.string()), 'column "vector" holds list<element: string>'),
    (lambda p: pq.write_table(pa.table({"id": ["a"], "vector": [[1.0]]}), p), 'no column "docid" \\(the columns: id'),
    (lambda p: p.write_text('{"docid": "a", "vector": [1]}\n'), "not a readable Parquet file"),
]


@pytest.mark.parametrize(("make", "message"), BAD)
def test_bad_parquet_vectors_are_refused_with_file_and_row(tmp_path, make, message):
    f = tmp_path / "docs.parquet"
    make(f)
    with pytest.raises(DataError, match=rf"docs\.parquet: {message}"):
        check_contents(Corpus(f, "vectors"))


def test_parquet_and_json_files_do_not_mix(tmp_path):
    write(tmp_path / "a.parquet", ["a"], [[1.0]])
    (tmp_path / "b.jsonl").write_text('{"docid": "b", "vector": [1]}\n')
    with pytest.raises(DataError, match="both Parquet and JSON"):
        check_contents(Corpus(tmp_path, "vectors"))


def test_bad_parquet_topics(tmp_path):
    f = tmp_path / "q.parquet"
    pq.write_table(pa.table({"qid": [1, 1], "vector": [[1.0], [2.0]]}), f)
    with pytest.raises(DataError, match=r"q\.parquet: row 2: topic '1' occurs twice \(first in row 1\)"):
        read_topics(f, "vectors")
    pq.write_table(pa.table({"qid": [1.5], "vector": [[1.0]]}), f)
    with pytest.raises(DataError, match='column "qid" holds double; it must hold string or large_string or integer'):
        read_topics(f, "vectors")


@pytest.mark.java
def test_indexing_parquet_prints_no_java_warnings(tmp_path):
    """Parquet frees its buffers through sun.misc.Unsafe::invokeCleaner, for which Java 24+
    prints four WARNING lines unless the JVM allows it (harness.engine.lucene): a fresh process
    indexing Parquet vectors writes nothing on stderr."""
    import subprocess
    import sys

    parquet_docs = tmp_path / "docs"
    parquet_docs.mkdir()
    import numpy as np

    # distinct float32 numbers, so Parquet's snappy pages are decompressed through direct buffers
    rows = np.random.default_rng(0).standard_normal((20, 8)).astype("float32").tolist()
    write(parquet_docs / "v.parquet", [f"d{i}" for i in range(20)], rows, value_type=pa.float32())
    script = (
        "from pathlib import Path; from harness.engine.corpus import Corpus; "
        "from harness.engine.index import IndexOptions, ensure_index; "
        f"ensure_index(Corpus(Path({str(parquet_docs)!r}), 'vectors'), IndexOptions(vectors='flat'), "
        f"Path({str(tmp_path / 'idx')!r}), threads=1)"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr
