"""Layout mistakes named with the layout (issue 47, item 2): a file whose first lines show another
layout than its format reads is refused by `harness validate`, `harness run` (before Java starts
or anything is indexed) and `harness.run`, naming the file, the line and the mapping to write;
`collection: PATH` without a format is read as the one format its files show, and said so.

Oracles: the layouts are those the readers themselves read (BEIR's corpus and queries as
tests/test_beir.py writes them, MS MARCO's `pid<TAB>text`, JsonCollection's `{"id", "contents"}`);
a collection read from its path is checked against the same config with the format written out,
whose runs tests/test_beir.py and tests/test_data_docs.py check against Anserini's."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from harness.config import load_config
from harness.errors import ConfigError, HarnessWarning
from harness.formats.hygiene import LINE_LIMIT
from harness.formats.layouts import SNIFF_LINES, line_layout, sniff
from tests.test_beir import DOCS, dataset
from tests.test_data_docs import QRELS, TOPICS, write_jsonl

from .conftest import REPO, config_validator

HARNESS = [sys.executable, "-m", "harness"]
NO_JVM = {"HARNESS_JAVA_OPTS": "-Xno-such-option"}  # any JVM start would fail: proves none starts


def harness(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HARNESS_INDEXES": str(cwd / "indexes"), **NO_JVM}
    return subprocess.run([*HARNESS, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A BEIR folder (scifact/), the demo's documents as MS MARCO passages (collection.tsv) and as
    JSON lines (docs.jsonl), the demo's topics and qrels."""
    dataset(tmp_path / "scifact")
    docs = write_jsonl(tmp_path)
    lines = [json.loads(line) for line in docs.read_text().splitlines()]
    (tmp_path / "collection.tsv").write_text("".join(f"{d['id']}\t{' '.join(d['contents'].split())}\n" for d in lines))
    shutil.copy(TOPICS, tmp_path / "topics.tsv")
    shutil.copy(QRELS, tmp_path / "qrels.txt")
    shutil.copy(REPO / "tests" / "data" / "anserini" / "trec" / "collection1" / "segment1.txt", tmp_path / "trec.txt")
    topics = [line.split("\t") for line in TOPICS.read_text().splitlines()]
    (tmp_path / "topics.trec").write_text("".join(f"<top>\n<num> {q}\n<title> {t}\n</top>\n" for q, t in topics))
    return tmp_path


def config(folder: Path, collection: str, topics: str = "topics.tsv", qrels: str = "qrels.txt") -> dict:
    return {"name": "x", "collection": collection, "topics": topics, "qrels": qrels, "runs": ["bm25"], "output": "out"}


def write(folder: Path, cfg: dict) -> Path:
    text = "".join(f"{k}: {v if k != 'runs' else '[bm25]'}\n" for k, v in cfg.items())
    (folder / "c.yaml").write_text(text)
    return folder / "c.yaml"


BEIR_TOPICS, BEIR_QRELS = "{path: scifact/queries.jsonl, format: beir}", "scifact/qrels/test.tsv"
# (collection, topics, qrels, where the problem is, the file:line that shows the layout, the fix)
MISTAKES = [
    pytest.param(
        "{path: scifact, format: beir}",
        "scifact/queries.jsonl",  # a plain string: tsv topics
        BEIR_QRELS,
        "c.yaml:3: topics: ",
        'scifact/queries.jsonl:1 holds a JSON object with the keys "_id", "text": BEIR queries',
        "write `topics: {path: scifact/queries.jsonl, format: beir}`",
        id="beir-queries-as-tsv-topics",
    ),
    pytest.param(
        "{path: scifact/corpus.jsonl, format: jsonl}",
        BEIR_TOPICS,
        BEIR_QRELS,
        "c.yaml:2: collection.format: ",
        'scifact/corpus.jsonl:1 holds a JSON object with the keys "_id", "title", "text", "metadata": BEIR corpus',
        "write `collection: {path: scifact/corpus.jsonl, format: beir}`",
        id="beir-corpus-as-jsonl",
    ),
    pytest.param(
        "{path: scifact, format: jsonl}",
        BEIR_TOPICS,
        BEIR_QRELS,
        "c.yaml:2: collection.format: ",
        "scifact/corpus.jsonl:1 holds",
        "write `collection: {path: scifact, format: beir}`",
        id="beir-folder-as-jsonl",
    ),
    pytest.param(
        "{path: collection.tsv, format: jsonl}",
        "topics.tsv",
        "qrels.txt",
        "c.yaml:2: collection.format: ",
        "collection.tsv:1 holds two tab-separated fields",
        "write `collection: {path: collection.tsv, format: tsv}`",
        id="tsv-as-jsonl",
    ),
    pytest.param(
        "{path: docs.jsonl, format: tsv}",
        "topics.tsv",
        "qrels.txt",
        "c.yaml:2: collection.format: ",
        'docs.jsonl:1 holds a JSON object with the keys "id", "contents": documents as JSON lines',
        "write `collection: {path: docs.jsonl, format: jsonl}`",
        id="jsonl-as-tsv",
    ),
    pytest.param(
        "{path: docs.jsonl, format: jsonl}",
        "{path: topics.tsv, format: jsonl}",
        "qrels.txt",
        "c.yaml:3: topics.format: ",
        "topics.tsv:1 holds two tab-separated fields",
        "write `topics: {path: topics.tsv, format: tsv}`",
        id="tsv-topics-as-jsonl",
    ),
    pytest.param(
        "{path: docs.jsonl, format: jsonl}",
        "topics.trec",
        "qrels.txt",
        "c.yaml:3: topics: ",
        "topics.trec:1 holds the tag <top>: TREC topics",
        "write `topics: {path: topics.trec, format: trec}`",
        id="trec-topics-as-tsv",
    ),
]


@pytest.mark.parametrize("collection, topics, qrels, where, shown, fix", MISTAKES)
def test_a_layout_mistake_is_named_with_the_format_to_write(data, collection, topics, qrels, where, shown, fix):
    cfg = write(data, config(data, collection, topics, qrels))
    # validate for every mistake; run for the first of the topics' and of the collection's: both
    # doors load the config, whose layout check (config/layouts.py) names every mistake, so run
    # refuses each as validate does, and before it indexes (five more processes showed nothing more)
    first = MISTAKES[0].values[3:5], MISTAKES[1].values[3:5]
    for command in ("validate", "run") if (where, shown) in first else ("validate",):
        r = harness(command, str(cfg), cwd=data)
        assert r.returncode == 2, (command, r.stderr)
        assert "1 problem(s)" in r.stderr, r.stderr
        assert f"{where}{data}/{shown}" in r.stderr and fix in r.stderr, r.stderr
    # refused before indexing: nothing indexed, no index folder, no report
    assert "indexing" not in r.stderr
    assert not (data / "indexes").exists() and not (data / "out").exists()


def test_every_door_gives_the_same_answer(data, monkeypatch):
    monkeypatch.chdir(data)
    import harness as api

    for cfg in (
        config(data, "{path: scifact/corpus.jsonl, format: jsonl}", BEIR_TOPICS, BEIR_QRELS),  # a mistake
        config(data, "scifact/queries.jsonl"),  # refused: queries, not documents
    ):
        as_dict = {**cfg, "collection": _flow(cfg["collection"]), "topics": _flow(cfg["topics"])}
        with pytest.raises(ConfigError) as e:
            api.run(as_dict)
        (problem,) = e.value.problems
        r = harness("validate", str(write(data, cfg)), cwd=data)
        assert r.returncode == 2 and f"{problem.path}: {problem.message}" in r.stderr, (problem, r.stderr)
    assert not (data / "indexes").exists()


def _flow(text: str):
    """``{path: p, format: f}`` as a dict; a plain string as it is."""
    if not text.startswith("{"):
        return text
    return dict(part.strip().split(": ") for part in text.strip("{}").split(","))


@pytest.mark.parametrize(
    "path, fmt, shown",
    [
        ("scifact", "beir", 'a BEIR folder: {data}/scifact/corpus.jsonl:1 holds a JSON object with the keys "_id"'),
        ("collection.tsv", "tsv", "{data}/collection.tsv:1 holds two tab-separated fields"),
        ("docs.jsonl", "jsonl", '{data}/docs.jsonl:1 holds a JSON object with the keys "id", "contents"'),
        ("trec.txt", "trec", "{data}/trec.txt:1 holds the tag <DOC>: TREC documents"),
    ],
)
def test_a_collection_given_by_its_path_is_read_as_its_files_show(data, path, fmt, shown):
    qrels = BEIR_QRELS if fmt == "beir" else "qrels.txt"
    topics = BEIR_TOPICS if fmt == "beir" else "topics.tsv"
    cfg = write(data, config(data, path, topics, qrels))
    r = harness("validate", str(cfg), cwd=data)
    assert r.returncode == 0, r.stderr
    said = f"collection: {path} read as format {fmt} ({shown.replace('{data}', str(data))}"
    assert said in r.stderr and f"write `collection: {{path: {path}, format: {fmt}}}`" in r.stderr, r.stderr
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HarnessWarning)
        loaded = load_config(cfg)
    assert [str(w.message) for w in caught] == [r.stderr.split("harness: warning: ", 1)[1].splitlines()[0]]
    assert (loaded.collection_path, str(loaded.collection_format)) == (data / path, fmt)
    # `harness schema` (the editor's JSON Schema) takes the plain string as the loader does
    raw = {**config(data, path, topics, qrels), "runs": ["bm25"], "collection": path, "topics": _flow(topics)}
    assert config_validator().is_valid(raw)
    # the mapping form without `format` is the same: a format read from the files
    with pytest.warns(HarnessWarning, match=f"collection: {path} read as format {fmt} "):
        written = load_config(write(data, config(data, f"{{path: {path}}}", topics, qrels)))
    assert (str(written.collection_format), written.collection_read_as) == (fmt, loaded.collection_read_as)


@pytest.mark.parametrize(
    "make, path, message",
    [
        (None, "qrels.txt", "{data}/qrels.txt:1 holds '1 0 sample_docs/"),  # no layout: name its format
        (None, ".", "is a folder, and a folder's format is read from its files only for a BEIR dataset folder"),
        (
            lambda d: (d / "w.jsonl").write_text('{"id": "a", "contents": "x", "vector": {"x": 2}}\n'),
            "w.jsonl",
            "term weights with a text, which impact and jsonl both read; say which: "
            "`collection: {path: w.jsonl, format: impact}` or `collection: {path: w.jsonl, format: jsonl}`",
        ),
        (
            None,
            "scifact/queries.jsonl",
            "BEIR queries, not documents: is it the right file? (as topics: "
            "`topics: {path: scifact/queries.jsonl, format: beir}`)",
        ),
        (
            lambda d: (d / "scifact" / "corpus.jsonl").write_text('{"id": "d1", "contents": "coffee"}\n'),
            "scifact",
            "documents as JSON lines, not BEIR corpus documents; write `collection: {path: scifact/corpus.jsonl, format: jsonl}`",
        ),
        (
            lambda d: (d / "p.tsv.gz").write_bytes(gzip.compress(b"p1\tcoffee\n")),
            "p.tsv.gz",
            "p.tsv.gz is gzip-compressed, and format tsv reads its lines from an uncompressed file",
        ),
    ],
)
def test_a_path_of_no_one_layout_is_refused_with_the_mapping_to_write(data, make, path, message):
    if make is not None:
        make(data)
    r = harness("validate", str(write(data, config(data, path))), cwd=data)
    assert r.returncode == 2 and "c.yaml:2: collection: " in r.stderr, r.stderr
    assert message.replace("{data}", str(data)) in r.stderr, r.stderr
    if "FORMAT" in r.stderr:  # a placeholder, with every format it may be
        assert f"`collection: {{path: {path}, format: FORMAT}}` with FORMAT one of jsonl, trec, html" in r.stderr


@pytest.mark.java
@pytest.mark.parametrize("path, fmt", [("scifact", "beir"), ("collection.tsv", "tsv"), ("docs.jsonl", "jsonl")])
def test_a_collection_read_from_its_path_runs_as_the_mapping_that_names_it(data, monkeypatch, path, fmt):
    import harness as api

    monkeypatch.chdir(data)
    monkeypatch.setenv("HARNESS_INDEXES", str(data / "indexes"))
    beir = fmt == "beir"
    cfg = config(data, path, BEIR_TOPICS if beir else "topics.tsv", BEIR_QRELS if beir else "qrels.txt")
    cfg["topics"] = _flow(cfg["topics"])
    named = api.run({**cfg, "collection": {"path": path, "format": fmt}}, output="named")
    with pytest.warns(HarnessWarning, match=f"collection: {path} read as format {fmt} "):
        read = api.run(cfg, output="read")
    assert read.index == named.index  # one index: the same format, the same fingerprint
    assert (data / "read" / "runs" / "bm25.trec").read_bytes() == (data / "named" / "runs" / "bm25.trec").read_bytes()
    assert read.means.equals(named.means) and read.means.iloc[0]["AP"] > 0
    entry = read.manifest["collection"]
    assert (entry["path"], entry["format"]) == (str(data / path), fmt)
    assert (
        "1 holds a JSON object" in entry["format_read_from_files"]
        or "1 holds two tab-separated" in entry["format_read_from_files"]
    )
    assert "collection" not in named.manifest  # a format the config names goes unsaid, as before


# ------------------------------------------------------------------------------ the layouts themselves


@pytest.mark.parametrize(
    "line, layout",
    [
        (json.dumps(DOCS[0]), "beir-corpus"),
        ('{"_id": "q1", "text": "coffee"}', "beir-queries"),
        ('{"id": "d1", "contents": "x"}', "json-docs"),
        ('{"qid": "1", "query": "x"}', "json-topics"),
        ('{"id": "d1", "vector": {"a": 1}}', "weights"),
        ('{"id": "d1", "contents": "x", "vector": {"a": 1}}', "weights-text"),
        ('{"qid": "1", "vector": {"a": 1}}', "query-weights"),
        ('{"docid": "d1", "vector": [0.1]}', "doc-vectors"),
        ('{"qid": "1", "vector": [0.1]}', "query-vectors"),
        ('{"anything": 1}', "json"),
        ("d1\tsome text\r\n", "tsv"),
        ("q1\td1\t1", "tsv-wide"),
        ("query-id\tcorpus-id\tscore", "beir-qrels"),
        ("<DOC>", "trec-docs"),
        ("  <top>", "trec-topics"),
    ],
)
def test_each_layout_is_told_by_its_line(line, layout):
    assert line_layout(line)[0].name == layout


def test_only_the_first_lines_are_read_and_they_must_agree(tmp_path):
    beir = [json.dumps(d) for d in DOCS[:SNIFF_LINES]]
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(["", *beir, '{"id": "x", "contents": "y"}']) + "\n")  # blank lines are not counted
    seen = sniff(f)
    assert seen.layout.name == "beir-corpus" and [n for n, _, _ in seen.lines] == [2, 3, 4, 5, 6]
    f.write_text("\n".join([beir[0], '{"id": "x", "contents": "y"}', *beir[1:]]) + "\n")
    seen = sniff(f)
    assert seen.layout is None and 'and line 2 a JSON object with the keys "id", "contents"' in seen.evidence()
    # BEIR's qrels are told by their header line, whatever follows
    assert sniff(REPO / "tests" / "golden" / "no-such-file").lines == ()
    (tmp_path / "q.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert sniff(tmp_path / "q.tsv").layout.name == "beir-qrels"


def test_compressed_parquet_and_unreadable_files(tmp_path):
    (tmp_path / "c.jsonl.gz").write_bytes(gzip.compress(b'{"id": "d1", "contents": "x"}\n'))
    seen = sniff(tmp_path / "c.jsonl.gz")
    assert seen.layout.name == "json-docs" and seen.compressed
    (tmp_path / "v.parquet").write_bytes(b"PAR1" + bytes(100))
    assert sniff(tmp_path / "v.parquet").layout.name == "parquet"
    # a line too long to be a line, or bytes that are not UTF-8: no layout, and no error (the readers say it)
    (tmp_path / "long").write_text("x" * (LINE_LIMIT + 10) + "\n")
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00\x01\n")
    assert sniff(tmp_path / "long").layout is None and sniff(tmp_path / "bin").layout is None
    (tmp_path / "half.jsonl").write_bytes(b'{"id": "d1", "contents": "x"}\n' + b"\xff\n")
    assert sniff(tmp_path / "half.jsonl").layout.name == "json-docs"  # the lines before it decide
