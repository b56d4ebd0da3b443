"""Learned sparse retrieval from a config and every door (the config, `harness run`, the Python
API, `harness search` and `harness lab`): an impact run equals Anserini's SimpleImpactSearcher's
line for line, fuses with BM25 and dense runs, and its keys are checked together. The searches
and the readers themselves are checked in test_impact.py, whose Anserini oracle this uses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.engine import lucene
from harness.engine.contents import check_contents
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.topics import read_topics
from harness.errors import DataError

from .conftest import REPO
from .test_impact import anserini_index, anserini_search


def demo_weights(folder: Path) -> dict[str, Path]:
    """The demo collection and topics as term weights (a toy impact model: a word's count), with
    the same doc ids as examples/hybrid's runs: an impact collection, pretokenized topics (tsv)
    and query weights (impact topics)."""
    import re

    def counts(text: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for w in re.findall(r"[a-z0-9]+", text.lower()):
            out[w] = out.get(w, 0) + 1
        return out

    folder.mkdir(parents=True, exist_ok=True)
    docs = sorted((REPO / "corpora" / "sample_docs").glob("*.txt"))
    with open(folder / "weights.jsonl", "w", encoding="utf-8") as fh:
        for f in docs:
            text = f.read_text(encoding="utf-8")
            fh.write(json.dumps({"id": f"sample_docs/{f.name}", "contents": text, "vector": counts(text)}) + "\n")
    topics = [line.split("\t") for line in (REPO / "topics" / "demo.tsv").read_text().splitlines() if line]
    (folder / "topics.tsv").write_text(
        "".join(f"{q}\t{' '.join(re.findall(r'[a-z0-9]+', t.lower()))}\n" for q, t in topics)
    )
    (folder / "topics.jsonl").write_text("".join(json.dumps({"id": q, "vector": counts(t)}) + "\n" for q, t in topics))
    return {"docs": folder / "weights.jsonl", "tsv": folder / "topics.tsv", "jsonl": folder / "topics.jsonl"}


def anserini_run(index: Path, topics: Path, out: Path, hits: int) -> list[str]:
    """Anserini's run of a TSV file of pretokenized topics: SimpleImpactSearcher.search(text, hits)
    per topic (what SearchCollection -impact -pretokenized computes: the same query generator,
    similarity and tie adjustment; SearchCollection itself fetches a list of prebuilt indexes
    over the network before it opens any index, so it cannot run offline), as TREC lines."""
    searcher = lucene.jclass("io.anserini.search.SimpleImpactSearcher")(str(index))
    try:
        lines = [
            f"{qid} Q0 {d} {rank} {score:.6f} Anserini"
            for qid, text in read_topics(topics, "tsv")
            for rank, (d, score) in enumerate(anserini_search(searcher, text, hits), 1)
        ]
    finally:
        searcher.close()
    out.write_text("".join(line + "\n" for line in lines))
    return lines


def run_lines(path: Path) -> list[tuple[str, str, int, str]]:
    """(qid, doc, rank, score to Anserini's 6 decimals) of a run file, in topic order."""
    rows = [line.split() for line in path.read_text().splitlines()]
    return sorted((q, d, int(r), f"{float(s):.6f}") for q, _, d, r, s, *_ in rows)


@pytest.mark.java
def test_a_config_runs_impact_and_fuses_it_with_bm25_and_dense_runs(tmp_path):
    """`- impact` from a config: its run equals Anserini's (SimpleImpactSearcher's) line for
    line, and its RRF fusion with a BM25 run and a dense (knn) run equals pyserini's."""
    from pyserini.fusion import reciprocal_rank_fusion
    from pyserini.trectools import TrecRun

    import harness

    w = demo_weights(tmp_path / "w")
    hybrid = REPO / "examples" / "hybrid"
    harness.run(
        {
            "name": "dense",
            "collection": {"path": str(hybrid / "doc-vectors.jsonl"), "format": "vectors"},
            "index": {"path": str(tmp_path / "vidx")},
            "topics": {"path": str(hybrid / "query-vectors.jsonl"), "format": "vectors"},
            "runs": ["knn"],
            "output": str(tmp_path / "dense"),
        }
    )
    (dense_run,) = (tmp_path / "dense" / "runs").glob("*.trec")
    result = harness.run(
        {
            "name": "impact",
            "collection": {"path": str(w["docs"]), "format": "impact"},
            "index": {"path": str(tmp_path / "idx")},
            "topics": str(w["tsv"]),
            "qrels": str(REPO / "qrels" / "demo.txt"),
            "runs": [
                {"name": "splade", "impact": {}},
                {"name": "bm25", "file": str(hybrid / "bm25.trec")},
                {"name": "dense", "file": str(dense_run)},
                {"name": "rrf", "fuse": {"method": "rrf", "runs": ["splade", "bm25", "dense"]}},
            ],
            "measures": ["AP", "nDCG@10"],
            "output": str(tmp_path / "out"),
        }
    )
    assert list(result.runs) == ["splade", "bm25", "dense", "rrf"]
    runs = tmp_path / "out" / "runs"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "weights.jsonl").write_bytes(w["docs"].read_bytes())
    theirs = anserini_run(anserini_index(tmp_path / "docs", tmp_path / "a"), w["tsv"], tmp_path / "sc.trec", 1000)
    assert len(theirs) > 100 and run_lines(runs / "splade.trec") == run_lines(tmp_path / "sc.trec")
    parts = [TrecRun(filepath=str(p)) for p in (runs / "splade.trec", hybrid / "bm25.trec", dense_run)]
    reciprocal_rank_fusion(parts, rrf_k=60, depth=1000, k=1000).save_to_txt(str(tmp_path / "p.trec"), tag="t")
    assert [ln.split()[:5] for ln in (runs / "rrf.trec").read_text().splitlines()] == [
        ln.split()[:5] for ln in (tmp_path / "p.trec").read_text().splitlines()
    ]


@pytest.mark.java
def test_a_config_searches_query_weights_as_simple_impact_searcher(tmp_path, monkeypatch):
    """topics.format impact: each topic's weights searched as SimpleImpactSearcher.search(Map, k)."""
    import harness

    monkeypatch.setenv("HARNESS_INDEXES", str(tmp_path / "indexes"))  # the run cache, not the checkout's
    w = demo_weights(tmp_path / "w")
    cfg = {
        "name": "weights",
        "collection": {"path": str(w["docs"]), "format": "impact"},
        "index": {"path": str(tmp_path / "idx")},
        "topics": {"path": str(w["jsonl"]), "format": "impact"},
        "runs": ["impact"],
        "depth": 7,
        "output": str(tmp_path / "out"),
    }
    harness.run(cfg)
    (run,) = (tmp_path / "out" / "runs").glob("*.trec")
    rows = [line.split() for line in run.read_text().splitlines()]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "weights.jsonl").write_bytes(w["docs"].read_bytes())
    searcher = lucene.jclass("io.anserini.search.SimpleImpactSearcher")(
        str(anserini_index(tmp_path / "docs", tmp_path / "a"))
    )
    try:
        want = [
            (qid, d, k, s)
            for qid, text in read_topics(w["jsonl"], "impact")
            for k, (d, s) in enumerate(anserini_search(searcher, json.loads(text), 7), 1)
        ]
    finally:
        searcher.close()
    assert [(q, d, int(k), float(np.float32(float(s)))) for q, _, d, k, s, _ in rows] == want
    # the same texts as pretokenized topics: the same run (weights and counts are one query)
    harness.run({**cfg, "topics": str(w["tsv"]), "output": str(tmp_path / "out2")})
    (again,) = (tmp_path / "out2" / "runs").glob("*.trec")
    assert again.read_text() == run.read_text()
    # Anserini's own index, named without a collection: the same run
    existing = {k: v for k, v in cfg.items() if k != "collection"}
    harness.run({**existing, "index": {"path": str(tmp_path / "a")}, "output": str(tmp_path / "out3")})
    (theirs,) = (tmp_path / "out3" / "runs").glob("*.trec")
    assert theirs.read_text() == run.read_text()


@pytest.mark.java
def test_the_docs_example_runs(tmp_path):
    """docs/config.md's example: its document and query lines are accepted, its config runs."""
    import harness

    from .docs import section

    text = section("Learned sparse retrieval (impact)")
    doc, query = (part.split("```")[0].strip() for part in text.split("```json\n")[1:3])
    (tmp_path / "d.jsonl").write_text(doc + "\n")
    (tmp_path / "q.jsonl").write_text(query + "\n")
    assert check_contents(Corpus(tmp_path / "d.jsonl", "impact")) == 1
    assert read_topics(tmp_path / "q.jsonl", "impact") == [("1", '{"vector":2,"space":1}')]
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    w = demo_weights(tmp_path / "w")
    block = block.replace("doc-weights.jsonl", str(w["docs"])).replace("query-weights.jsonl", str(w["jsonl"]))
    (tmp_path / "c.yaml").write_text(
        f"name: docs\n{block}index: {{path: {tmp_path / 'idx'}}}\noutput: {tmp_path / 'out'}\n"
    )
    result = harness.run(str(tmp_path / "c.yaml"))
    assert list(result.runs) == ["impact"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"runs": ["bm25"]}, "runs: an impact collection is searched with impact runs only (not bm25(k1=0.9,b=0.4))"),
        ({"index": {"stemmer": "none"}}, "index.stemmer: means nothing for an `impact` collection"),
        ({"index": {"language": "de"}}, "index.language: means nothing for an `impact` collection"),
        (
            {"collection": "jsonl"},
            "runs: impact runs search the term weights of an `impact` collection; this one is jsonl",
        ),
        (
            {"collection": "jsonl", "runs": ["bm25"], "topics": "impact"},
            "topics.format: impact (query term weights) needs an `impact` collection",
        ),
        (
            {"collection": None, "runs": ["impact", "bm25"], "topics": "impact"},
            "topics.format: impact (query term weights) is searched by impact runs only",
        ),
        ({"runs": [{"impact": {"rm3": {}}}]}, "impact cannot take an expansion (rm3)"),
        ({"topics": "vectors"}, "topics.format: vectors (query vectors) need a `vectors` collection"),
    ],
)
def test_config_checks_impact_keys_together(tmp_path, change, message):
    from harness.config import load_config
    from harness.errors import ConfigError

    w = demo_weights(tmp_path / "w")
    fmt = change.get("collection", "impact")
    topics = change.get("topics", "tsv")
    w["vectors"] = tmp_path / "q-vectors.jsonl"  # query vectors, in the layout format vectors reads
    w["vectors"].write_text('{"qid": "1", "vector": [0.5, 0.5]}\n')
    (tmp_path / "idx").mkdir()
    (tmp_path / "idx" / "segments_1").write_bytes(b"")
    text = {
        "name": "c",
        "index": {"path": str(tmp_path / "idx"), **change.get("index", {})},
        "topics": {"path": str(w[{"impact": "jsonl", "vectors": "vectors"}.get(topics, "tsv")]), "format": topics},
        "runs": change.get("runs", ["impact"]),
        "output": str(tmp_path / "out"),
    }
    if fmt is not None:
        text["collection"] = {"path": str(w["docs"]), "format": fmt}
    import yaml

    (tmp_path / "c.yaml").write_text(yaml.safe_dump(text, allow_unicode=True))
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "c.yaml")
    assert message in str(e.value)


def test_a_config_of_impact_runs_validates(tmp_path):
    from harness.config import load_config
    from harness.experiment.plan import plan

    w = demo_weights(tmp_path / "w")
    (tmp_path / "c.yaml").write_text(
        f"name: c\ncollection: {{path: {w['docs']}, format: impact}}\n"
        f"topics: {{path: {w['jsonl']}, format: impact}}\nruns: [impact]\noutput: {tmp_path / 'out'}\n"
    )
    cfg = load_config(tmp_path / "c.yaml")
    assert [str(r) for r in cfg.runs] == ["impact()"] and cfg.names["impact()"] == "impact"
    assert plan(cfg).options == IndexOptions(impact=True)


@pytest.mark.parametrize(
    "qrels, code, words",
    [
        ("Q1 0 sample_docs/doc01.txt 1\n", 2, "none of the 15 topics ('1', '2', '3' and 12 more) is judged in"),
        ("1 0 sample_docs/doc01.txt 1\n", 0, "14 of 15 topics have no judgments in"),
    ],
    ids=["no topic judged", "a partial overlap"],
)
def test_validate_checks_the_ids_of_impact_topics_against_the_qrels(tmp_path, qrels, code, words):
    """Issue 47: `harness validate` checked the topic ids of every topic format it reads without
    Java but `impact` (query term weights, read in Python like tsv): now refused or warned about
    as the others are, without starting Java."""
    import os
    import subprocess
    import sys

    w = demo_weights(tmp_path / "w")
    (tmp_path / "q.txt").write_text(qrels)
    (tmp_path / "c.yaml").write_text(
        f"name: c\ncollection: {{path: {w['docs']}, format: impact}}\n"
        f"topics: {{path: {w['jsonl']}, format: impact}}\nqrels: {tmp_path / 'q.txt'}\nruns: [impact]\n"
        f"output: {tmp_path / 'out'}\n"
    )
    env = {**os.environ, "HARNESS_JAVA_OPTS": "-Xno-such-option"}  # a JVM started would fail
    r = subprocess.run(
        [sys.executable, "-m", "harness", "validate", str(tmp_path / "c.yaml")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == code, r.stderr
    assert f"{w['jsonl']}: " in r.stderr and words in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.java
def test_harness_search_takes_texts_and_weights(tmp_path, monkeypatch):
    """harness.query: a pretokenized text and its weights are one query; a text index refuses
    impact, an impact index every other model."""
    import harness

    monkeypatch.setenv("HARNESS_INDEXES", str(tmp_path / "indexes"))  # the run cache, not the checkout's

    w = demo_weights(tmp_path / "w")
    info = ensure_index(Corpus(w["docs"], "impact"), IndexOptions(impact=True), tmp_path / "idx", threads=1)
    texts = harness.query(info.path, {"q1": "vector space model model"}, "impact", k=5)
    weights = harness.query(info.path, {"q1": {"vector": 1, "space": 1, "model": 2}}, "impact", k=5)
    assert texts[["docno", "score"]].equals(weights[["docno", "score"]]) and len(texts) == 5
    assert weights["query"].tolist()[0] == '{"vector":1,"space":1,"model":2}'
    one = harness.query(info.path, {"vector": np.int64(1), "model": 2.0}, "impact", k=3)
    assert one["qid"].tolist() == ["1"] * 3
    with pytest.raises(DataError, match="bm25.* needs a text index; .* is an impact index"):
        harness.query(info.path, "vector", "bm25")
    with pytest.raises(DataError, match=r'"query 1": the weight of "model" is -1: weights are >= 0'):
        harness.query(info.path, {"model": -1}, "impact")
    with pytest.raises(DataError, match=r'queries: "query q2" has no weight >= 1'):
        harness.query(info.path, {"q1": "model", "q2": {"model": 0.5}}, "impact")


@pytest.mark.java
def test_every_door_gives_the_same_run(tmp_path, capsys, monkeypatch):
    """One impact index, searched through every door: `harness search CONFIG` (pretokenized tsv
    topics and query-weight topics), `harness.query` (texts and weights), the lab verb (texts):
    the same ranking and scores. Bad weights in the collection: each door names the file and line."""
    import yaml

    import harness
    from harness.cli import main
    from harness.verbs.lab import LabRequest, lab
    from harness.verbs.similarity import parse_similarity

    monkeypatch.setenv("HARNESS_INDEXES", str(tmp_path / "indexes"))  # the run cache, not the checkout's
    w = demo_weights(tmp_path / "w")
    depth = 6

    def cli_search(topics: Path, fmt: str, out: str) -> list[tuple[str, str, int, float]]:
        cfg = {
            "name": "doors",
            "collection": {"path": str(w["docs"]), "format": "impact"},
            "index": {"path": str(tmp_path / "idx")},
            "topics": {"path": str(topics), "format": fmt},
            "runs": ["impact"],
            "depth": depth,
            "output": str(tmp_path / out),
        }
        (tmp_path / f"{out}.yaml").write_text(yaml.safe_dump(cfg))
        assert main(["search", str(tmp_path / f"{out}.yaml")]) == 0
        rows = [line.split() for line in (tmp_path / out / "runs" / "impact.trec").read_text().splitlines()]
        return [(q, d, int(r), float(np.float32(float(s)))) for q, _, d, r, s, _ in rows]

    texts = dict(read_topics(w["tsv"], "tsv"))
    weights = {qid: json.loads(line) for qid, line in read_topics(w["jsonl"], "impact")}
    from_texts = cli_search(w["tsv"], "tsv", "o1")
    assert len(from_texts) > 3 * depth and cli_search(w["jsonl"], "impact", "o2") == from_texts

    def api(queries) -> list[tuple[str, str, int, float]]:
        df = harness.query(tmp_path / "idx", queries, "impact", k=depth)
        return [
            (q, d, int(r), float(np.float32(s)))
            for q, d, r, s in df[["qid", "docno", "rank", "score"]].itertuples(False)
        ]

    assert api(texts) == api(weights) == from_texts
    got = lab(
        LabRequest(
            index=str(tmp_path / "idx"), queries=list(texts.values()), similarity=parse_similarity("impact"), k=depth
        )
    )
    assert [
        (qid, d, r, float(np.float32(s)))
        for qid, q in zip(texts, got.queries)
        for r, (d, s) in enumerate(zip(q.docs, q.scores), 1)
    ] == from_texts

    # a negative weight on line 3: the config doors and the API's index building name weights.jsonl:3
    lines = w["docs"].read_text().splitlines(keepends=True)
    lines[2] = json.dumps({"id": "bad", "vector": {"ok": 2, "neg": -1}}) + "\n"
    bad = tmp_path / "bad" / "weights.jsonl"
    bad.parent.mkdir()
    bad.write_text("".join(lines))
    cfg = yaml.safe_load((tmp_path / "o1.yaml").read_text())
    cfg["collection"]["path"], cfg["index"]["path"] = str(bad), str(tmp_path / "idx-bad")
    cfg["output"] = str(tmp_path / "o-bad")  # o1 is o1.yaml's: another config's folder is refused
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg))
    capsys.readouterr()
    assert main(["search", str(tmp_path / "bad.yaml")]) != 0
    assert 'weights.jsonl:3: "vector": the weight of "neg" is -1: weights are >= 0' in capsys.readouterr().err
    with pytest.raises(DataError, match=r'weights\.jsonl:3: "vector": the weight of "neg" is -1'):
        harness.run(cfg)
    assert not (tmp_path / "idx-bad").exists() or not any((tmp_path / "idx-bad").iterdir())


@pytest.mark.java
def test_an_existing_index_takes_runs_of_its_kind(tmp_path):
    """Without `collection`, an impact index the harness built takes impact runs only, and a text
    index it built no impact run (an index Anserini built is searched as asked)."""
    from harness.config import load_config
    from harness.errors import ConfigError

    w = demo_weights(tmp_path / "w")
    info = ensure_index(Corpus(w["docs"], "impact"), IndexOptions(impact=True), tmp_path / "idx", threads=1)
    text = ensure_index(Corpus(REPO / "corpora", "text-folder"), IndexOptions(), tmp_path / "text", threads=1)
    for index, runs, message in (
        (
            info.path,
            "\n  - impact\n  - bm25",
            "is an impact index (term weights): it takes impact runs only, which bm25(",
        ),
        (text.path, "\n  - bm25\n  - impact", "is a text index, which impact() cannot search"),
    ):
        (tmp_path / "c.yaml").write_text(
            f"name: c\nindex: {{path: {index}}}\ntopics: {w['tsv']}\nruns: {runs}\noutput: {tmp_path / 'o'}\n"
        )
        with pytest.raises(ConfigError) as e:
            load_config(tmp_path / "c.yaml")
        assert message in str(e.value), str(e.value)
    (tmp_path / "c.yaml").write_text(
        f"name: c\nindex: {{path: {info.path}}}\ntopics: {w['tsv']}\nruns: [impact]\noutput: {tmp_path / 'o'}\n"
    )
    assert [str(r) for r in load_config(tmp_path / "c.yaml").runs] == ["impact()"]
