"""docs/data.md, *Bring your own data*: every config of its *Examples* runs as written, on files
made here from the demo's documents, topics and qrels in the layout the config names.

Oracles: the shipped BM25 run of the demo's text folder (examples/hybrid/bm25.trec, the `bm25`
run of configs/demo.yaml) for the same documents in other layouts, Anserini's IndexCollection and
SimpleSearcher (set_bm25 + set_rm3) for the index built elsewhere, and the run's own metrics for an
MS MARCO run holding the same ranking."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.docs import REPO
from tests.test_beir import dataset

PAGE = REPO / "docs" / "data.md"
DOCS = sorted((REPO / "corpora" / "sample_docs").glob("*.txt"))
TOPICS = REPO / "topics" / "demo.tsv"
QRELS = REPO / "qrels" / "demo.txt"
HYBRID = REPO / "examples" / "hybrid"


def blocks() -> dict[str, str]:
    """The *Examples* section's YAML configs, by their `name:`."""
    text = PAGE.read_text(encoding="utf-8")
    examples = text.split("\n## Examples\n", 1)[1].split("\n## ", 1)[0]
    out = {}
    for block in re.findall(r"```yaml\n(.*?)```", examples, re.S):
        name = re.search(r"^name: (\S+)$", block, re.M).group(1)
        out[name] = block
    return out


def trec_lines(path: Path) -> list[tuple[str, str, int, float]]:
    """(qid, docid, rank, score) of a TREC run, without its tag."""
    rows = []
    for line in path.read_text().splitlines():
        q, _, d, r, s, _tag = line.split()
        rows.append((q, d, int(r), float(s)))
    return rows


def doc_id(f: Path) -> str:
    return f"sample_docs/{f.name}"  # as the demo's text folder names it (corpora/sample_docs/x.txt)


def write_jsonl(folder: Path) -> Path:
    with open(folder / "docs.jsonl", "w", encoding="utf-8") as fh:
        for f in DOCS:
            fh.write(json.dumps({"id": doc_id(f), "contents": f.read_text(encoding="utf-8")}) + "\n")
    return folder / "docs.jsonl"


def write_mine(folder: Path) -> None:
    write_jsonl(folder)
    shutil.copy(TOPICS, folder / "topics.tsv")
    shutil.copy(QRELS, folder / "qrels.txt")


def write_passages(folder: Path) -> None:
    with open(folder / "collection.tsv", "w", encoding="utf-8") as fh:
        for f in DOCS:
            fh.write(f"{doc_id(f)}\t{' '.join(f.read_text(encoding='utf-8').split())}\n")
    shutil.copy(TOPICS, folder / "queries.dev.small.tsv")
    shutil.copy(QRELS, folder / "qrels.dev.small.txt")
    # their run: the demo's BM25 run in MS MARCO's layout, its lines in reverse order
    rows = trec_lines(HYBRID / "bm25.trec")
    (folder / "run.dev.small.tsv").write_text("".join(f"{q}\t{d}\t{r}\n" for q, d, r, _ in reversed(rows)))


def anserini_index(folder: Path) -> Path:
    """Anserini's IndexCollection from its own command line over docs.jsonl, as the page says."""
    from harness.engine import lucene

    source = folder / "input"
    source.mkdir()
    write_jsonl(source)
    target = folder / "lucene-index.mine"
    args = lucene.jclass("io.anserini.index.IndexCollection$Args")()
    argv = ["-collection", "JsonCollection", "-input", str(source), "-index", str(target)]
    argv += ["-threads", "1", "-storePositions", "-storeDocvectors", "-storeRaw", "-quiet"]
    given = lucene.jclass("java.util.ArrayList")()
    for a in argv:
        given.add(a)
    lucene.jclass("org.kohsuke.args4j.CmdLineParser")(args).parseArgument(given)
    indexer = lucene.jclass("io.anserini.index.IndexCollection")(args)
    with lucene.java_output_hidden():
        indexer.run()
    assert int(indexer.getCounters().indexed.get()) == len(DOCS)
    return target


def write_existing(folder: Path) -> None:
    anserini_index(folder)
    shutil.copy(TOPICS, folder / "topics.tsv")
    shutil.copy(QRELS, folder / "qrels.txt")


def write_dense(folder: Path) -> None:
    for name in ("doc-vectors.jsonl", "query-vectors.jsonl"):
        shutil.copy(HYBRID / name, folder / name)
    shutil.copy(QRELS, folder / "qrels.txt")


def write_scifact(folder: Path) -> None:
    dataset(folder / "scifact")


FIXTURES = {
    "mine": write_mine,
    "plain": write_mine,
    "scifact-fields": write_scifact,
    "passages": write_passages,
    "existing": write_existing,
    "dense": write_dense,
}


def test_every_example_has_its_files():
    """A config added to the page without files to run it on fails here, not silently."""
    assert sorted(blocks()) == sorted(FIXTURES)


def _run(tmp_path, monkeypatch, name: str):
    import harness

    folder = tmp_path / name
    folder.mkdir()
    FIXTURES[name](folder)
    (folder / f"{name}.yaml").write_text(blocks()[name])
    monkeypatch.setenv("HARNESS_INDEXES", str(tmp_path / "indexes"))
    return folder, harness.run(folder / f"{name}.yaml")


@pytest.mark.java
def test_own_layouts_give_the_demo_run(tmp_path, monkeypatch):
    folder, result = _run(tmp_path, monkeypatch, "mine")
    assert list(result.runs) == ["bm25", "dirichlet"]
    # the same documents as JSON lines index as the demo's text folder: the same BM25 run
    assert trec_lines(folder / "reports" / "mine" / "runs" / "bm25.trec") == trec_lines(HYBRID / "bm25.trec")


@pytest.mark.java
def test_a_collection_named_by_its_path(tmp_path, monkeypatch):
    from harness.errors import HarnessWarning

    with pytest.warns(HarnessWarning, match="collection: docs.jsonl read as format jsonl"):
        folder, result = _run(tmp_path, monkeypatch, "plain")
    # the demo's documents as JSON lines, read as jsonl: the demo's BM25 run, as the mapping gives it
    assert trec_lines(folder / "reports" / "plain" / "runs" / "bm25.trec") == trec_lines(HYBRID / "bm25.trec")
    assert result.manifest["collection"]["format"] == "jsonl"


@pytest.mark.java
def test_msmarco_passages_and_their_run(tmp_path, monkeypatch):
    folder, result = _run(tmp_path, monkeypatch, "passages")
    runs = folder / "reports" / "passages" / "runs"
    # pid<TAB>text of the same documents (white space joined): the demo's BM25 run again
    assert trec_lines(runs / "bm25.trec") == trec_lines(HYBRID / "bm25.trec")
    # their run holds the same ranking in qid/pid/rank lines: the same numbers, whatever the line order
    means = result.means
    assert list(means.columns) == ["RR@10", "R@1000"]
    assert means.loc["theirs"].tolist() == means.loc["bm25"].tolist()
    assert means.loc["bm25", "RR@10"] > 0.5
    # its TREC text in the report: each row's score 1/rank, as anserini-tools' conversion writes it
    ranks = {(q, d): r for q, d, r, _ in trec_lines(HYBRID / "bm25.trec")}
    theirs = {(q, d): score for q, d, _, score in trec_lines(runs / "theirs.trec")}
    assert theirs == {key: 1.0 / r for key, r in ranks.items()}


@pytest.mark.java
def test_an_anserini_index_is_searched_as_simple_searcher(tmp_path, monkeypatch):
    from harness.engine import lucene

    folder, result = _run(tmp_path, monkeypatch, "existing")
    assert not any((folder / "lucene-index.mine").glob("harness*")), "the index is only read"
    got = trec_lines(folder / "reports" / "existing" / "runs" / f"{next(iter(result.runs))}.trec")
    ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(folder / "lucene-index.mine"))
    ss.set_bm25(0.9, 0.4)
    ss.set_rm3(10, 10, 0.5)
    expected = []
    for line in TOPICS.read_text().splitlines():
        qid, text = line.split("\t")[:2]
        expected += [(qid, h.docid, i + 1, h.score) for i, h in enumerate(ss.search(text, 1000))]
    ss.close()
    assert [(q, d, r) for q, d, r, _ in got] == [(q, d, r) for q, d, r, _ in expected]
    assert all(abs(a[3] - b[3]) < 1e-4 for a, b in zip(got, expected, strict=True))


@pytest.mark.java
def test_a_beir_folder_with_fields(tmp_path, monkeypatch):
    folder, result = _run(tmp_path, monkeypatch, "scifact-fields")
    assert list(result.means.columns) == ["nDCG@10", "R@100"]
    assert (folder / "reports" / "scifact-fields" / "runs" / "bm25.trec").stat().st_size > 0
    manifest = json.loads(next((tmp_path / "indexes").glob("*/harness-index.json")).read_text())
    assert "BeirMultifieldCollection" in json.dumps(manifest)


@pytest.mark.java
def test_vectors_with_hnsw(tmp_path, monkeypatch):
    folder, result = _run(tmp_path, monkeypatch, "dense")
    run = trec_lines(folder / "reports" / "dense" / "runs" / f"{next(iter(result.runs))}.trec")
    topics = {json.loads(line)["qid"] for line in (HYBRID / "query-vectors.jsonl").read_text().splitlines()}
    assert {q for q, *_ in run} == {str(t) for t in topics}
    assert result.means.iloc[0]["nDCG@10"] > 0
