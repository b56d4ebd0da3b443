"""BEIR dataset folders (harness.engine.beir): a `beir` collection indexed as Anserini's
BeirFlatCollection (or BeirMultifieldCollection with `fields`), `beir` topics, BEIR's qrels.

Oracles: IndexCollection run from its own command line (args4j parses the arguments, as its
main does: `-collection BeirFlatCollection -storePositions -storeDocvectors -storeRaw`, and
`-fields title` for the multifield index, as Anserini's BEIR regressions index) on the same
corpus, its documents read through IndexReaderUtils, and SimpleSearcher on that index:
`search(q, k)` for the flat index, `search_fields(q, {contents: w, title: w}, k)` (what
SearchCollection `-fields contents=1.0 title=1.0` runs) for the multifield one. The fixture is
made here: unicode (accents, CJK, an astral character), an empty title, a document with extra
keys, one whose text is empty (counted empty by the multifield collection), one empty
altogether, a .gz corpus, queries with metadata, and qrels with BEIR's header and score-0 lines.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from harness.engine.contents import check_contents
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.staging import stage
from harness.errors import DataError

QUIET: dict = {}

DOCS = [
    {
        "_id": "d1",
        "title": "Café résumé",
        "text": "The naïve café serves crème brûlée and coffee.",
        "metadata": {"u": 1},
    },
    {"_id": "d2", "title": "", "text": "Coffee beans are roasted in the café; coffee again."},
    {"_id": "d3", "title": "Tea", "text": "Green tea and black tea, no coffee here. 東京 tea house 😀"},
    {"_id": "d4", "title": "Coffee coffee coffee", "text": "history of the drink"},
    {"_id": "q2", "title": "self", "text": "a document whose id is a query id, arguana style tea"},
    {"_id": "d6", "title": "Only a title about tea and coffee", "text": ""},
    {"_id": "d7", "title": "", "text": ""},
    {"_id": "d8", "title": "House of tea", "text": "A tea house; the tea is green, the house is old.", "extra": [1, 2]},
    {"_id": "9", "title": "Drink", "text": "coffee or tea: which drink? Tea."},
]
QUERIES = [
    {"_id": "q1", "text": "coffee café"},
    {"_id": "q2", "text": " tea house ", "metadata": {"x": "y"}},
    {"_id": "q3", "text": "unjudged drink"},  # not in the test qrels: not searched
    {"_id": "q4", "text": "green drink history"},
]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td3\t1\nq2\td4\t0\nq4\td4\t0\n"


def dataset(root: Path, gz: bool = False) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in DOCS).encode()
    if gz:
        (root / "corpus.jsonl.gz").write_bytes(gzip.compress(text))
    else:
        (root / "corpus.jsonl").write_bytes(text)
    (root / "queries.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QUERIES))
    (root / "qrels").mkdir(exist_ok=True)
    (root / "qrels" / "test.tsv").write_text(QRELS)
    trec = "".join(f"{q} 0 {d} {s}\n" for q, d, s in (line.split("\t") for line in QRELS.splitlines()[1:]))
    (root / "qrels" / "test.trec").write_text(trec)
    return root


def anserini_index(corpus_file: Path, target: Path, fields: bool) -> Path:
    """IndexCollection from its command line, on a folder holding the corpus file alone (as
    Anserini's BEIR corpora are laid out: collections/beir-v1.0.0/corpus/<name>/)."""
    from harness.engine import lucene

    folder = target.parent / (target.name + "-input")
    folder.mkdir(parents=True)
    (folder / corpus_file.name).write_bytes(corpus_file.read_bytes())
    Args = lucene.jclass("io.anserini.index.IndexCollection$Args")
    args = Args()
    argv = ["-collection", "BeirMultifieldCollection" if fields else "BeirFlatCollection"]
    argv += ["-input", str(folder), "-index", str(target), "-generator", "DefaultLuceneDocumentGenerator"]
    argv += ["-threads", "1", "-storePositions", "-storeDocvectors", "-storeRaw", "-quiet"]
    argv += ["-fields", "title"] if fields else []
    given = lucene.jclass("java.util.ArrayList")()
    for a in argv:
        given.add(a)
    lucene.jclass("org.kohsuke.args4j.CmdLineParser")(args).parseArgument(given)
    indexer = lucene.jclass("io.anserini.index.IndexCollection")(args)
    with lucene.java_output_hidden():
        indexer.run()
    c = indexer.getCounters()
    assert int(c.indexed.get()) > 0
    return target


def documents(index: Path) -> dict:
    """{id: (contents term vector, title terms, raw)} through IndexReaderUtils and the stored fields."""
    from harness.engine import lucene

    utils = lucene.jclass("io.anserini.index.IndexReaderUtils")
    reader = utils.getReader(str(index))
    stored, out = reader.storedFields(), {}
    for i in range(reader.maxDoc()):
        doc = stored.document(i)
        docid = str(doc.get("id"))
        vector = utils.getDocumentVector(reader, docid)
        terms = reader.termVectors().get(i, "title")
        title = []
        if terms is not None:
            it = terms.iterator()
            while (t := it.next()) is not None:
                title.append((t.utf8ToString(), int(it.totalTermFreq())))
        out[docid] = ({str(k): int(vector.get(k)) for k in vector.keySet().toArray()}, title, str(doc.get("raw")))
    reader.close()
    return out


def simple_searcher(index: Path, queries: list[str], k: int, fields=None, bm25=(0.9, 0.4), dirichlet=None):
    """[(docid, score)] per query, from SimpleSearcher."""
    from harness.engine import lucene

    s = lucene.jclass("io.anserini.search.SimpleSearcher")(str(index))
    if dirichlet is not None:
        s.set_qld(float(dirichlet))
    else:
        s.set_bm25(*map(float, bm25))
    out = []
    for q in queries:
        if fields is None:
            hits = s.search(q, k)
        else:
            m = lucene.jclass("java.util.HashMap")()
            for name, w in fields.items():
                m.put(name, lucene.jclass("java.lang.Float")(float(w)))
            hits = s.search_fields(q, m, k)
        out.append([(str(h.docid), float(h.score)) for h in hits])
    s.close()
    return out


def harness_runs(
    tmp_path: Path,
    data: Path,
    runs: str,
    fields: str = "",
    qrels: str = "qrels/test.trec",
    topics: str = "",
    depth=1000,
):
    """Each run's hits per topic, read back from the run files `harness run` wrote."""
    import harness

    tmp_path.mkdir(parents=True, exist_ok=True)
    cfg = tmp_path / "beir.yaml"
    cfg.write_text(
        f"name: beir\ncollection: {{path: {data}, format: beir{fields}}}\n"
        f"topics: {{path: {data / 'queries.jsonl'}, format: beir{topics}}}\nqrels: {data / qrels}\ndepth: {depth}\n"
        f"runs: {runs}\nmeasures: [ndcg_cut_10]\noutput: {tmp_path / 'out'}\nindex: {{path: {tmp_path / 'idx'}}}\n"
    )
    result = harness.run(cfg)
    out = {}
    for f in sorted((tmp_path / "out" / "runs").glob("*.trec")):
        hits: dict[str, list] = {}
        for line in f.read_text().splitlines():
            qid, _, doc, _, score, _ = line.split()
            hits.setdefault(qid, []).append((doc, float(score)))
        out[f.stem] = hits
    return result, out


JUDGED = ["q1", "q2", "q4"]  # the queries of the test qrels, in queries.jsonl's order


def removed(qid: str, hits: list) -> list:
    """Anserini's -removeQuery (BaseSearcher.processScoredDocs in 2.3.0's bytecode): the hit whose
    docid equals the query id is skipped after the search, the others kept as they are."""
    return [(d, s) for d, s in hits if d != qid]


@pytest.mark.java
@pytest.mark.parametrize("gz", [False, True], ids=["jsonl", "jsonl.gz"])
def test_flat_index_and_runs_equal_anserinis(tmp_path, gz):
    data = dataset(tmp_path / "ds", gz=gz)
    corpus = data / ("corpus.jsonl.gz" if gz else "corpus.jsonl")
    ours = ensure_index(Corpus(data, "beir"), IndexOptions(), tmp_path / "ours", threads=1, **QUIET)
    theirs = anserini_index(corpus, tmp_path / "theirs", fields=False)
    assert ours.manifest["collection"]["anserini_class"] == "BeirFlatCollection"
    assert ours.manifest["counters"] == {"indexed": 8, "empty": 1, "unindexable": 0, "skipped": 0, "errors": 0}
    assert ours.manifest["empty_ids"] == ["d7"]
    mine = documents(ours.path)
    assert mine == documents(theirs)
    assert "café" in mine["d2"][0] and mine["d2"][1] == []  # empty title: the text alone; no title field
    assert json.loads(mine["d1"][2])["metadata"] == {"u": 1}  # raw: the whole JSON object, pretty-printed

    # BEIR's own qrels TSV, read by the config: it also chooses the queries (q3 is not searched)
    result, runs = harness_runs(tmp_path, data, "[bm25, {dirichlet: {mu: 100}, name: qld}]", qrels="qrels/test.tsv")
    import pytrec_eval

    qrels = beirs_loader(data / "qrels" / "test.tsv")
    run = {q: {d: score for d, score in hits} for q, hits in runs["bm25"].items()}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
    mean = sum(m["ndcg_cut_10"] for m in ref.values()) / len(qrels)  # trec_eval -c: every judged query
    assert result.means.loc["bm25", "nDCG@10"] == pytest.approx(mean, abs=1e-12)
    texts = [q["text"] for q in QUERIES if q["_id"] in JUDGED]
    for label, oracle in (
        ("bm25", simple_searcher(theirs, texts, 1000)),
        ("qld", simple_searcher(theirs, texts, 1000, dirichlet=100)),
    ):
        run = runs[label]
        assert sorted(run) == sorted(q for q, hits in zip(JUDGED, oracle) if hits)
        for qid, hits in zip(JUDGED, oracle):
            assert run.get(qid, []) == removed(qid, hits), (label, qid)
    assert "q2" in dict(simple_searcher(theirs, ["tea house"], 10)[0])  # the query's own document is found...
    assert "q2" not in dict(runs["bm25"]["q2"])  # ...and left out, as by Anserini's BEIR runs (-removeQuery)


@pytest.mark.java
def test_remove_query_cuts_as_anserini_and_can_be_turned_off(tmp_path):
    data = dataset(tmp_path / "ds")
    theirs = anserini_index(data / "corpus.jsonl", tmp_path / "theirs", fields=False)
    texts = [q["text"] for q in QUERIES if q["_id"] in JUDGED]
    # depth k, q2's own document k-th: Anserini searches k hits, then removes it: that ranking holds k - 1
    k = [d for d, _ in simple_searcher(theirs, ["tea house"], 1000)[0]].index("q2") + 1
    assert k > 1
    _, runs = harness_runs(tmp_path / "a", data, "[bm25]", depth=k)
    oracle = simple_searcher(theirs, texts, k)
    assert {q: removed(q, h) for q, h in zip(JUDGED, oracle)} == runs["bm25"]
    assert len(runs["bm25"]["q2"]) == k - 1
    _, runs = harness_runs(tmp_path / "b", data, "[bm25]", topics=", remove_query: false", depth=k)
    assert dict(zip(JUDGED, oracle)) == runs["bm25"]


@pytest.mark.java
@pytest.mark.parametrize(
    "given, weights",
    [("true", {"contents": 1.0, "title": 1.0}), ("{contents: 1.0, title: 0.5}", {"contents": 1.0, "title": 0.5})],
    ids=["true", "weights"],
)
def test_multifield_index_and_runs_equal_anserinis(tmp_path, given, weights):
    data = dataset(tmp_path / "ds")
    fields = tuple(weights.items())
    ours = ensure_index(Corpus(data, "beir", fields=True), IndexOptions(fields=fields), tmp_path / "ours", threads=1)
    theirs = anserini_index(data / "corpus.jsonl", tmp_path / "theirs", fields=True)
    assert ours.manifest["collection"]["anserini_class"] == "BeirMultifieldCollection"
    # d6 has a title but no text: Anserini's generator counts it empty and indexes nothing of it
    assert ours.manifest["counters"]["empty"] == 2 and ours.manifest["empty_ids"] == ["d6", "d7"]
    mine = documents(ours.path)
    assert mine == documents(theirs)
    assert mine["d4"][1] == [("coffe", 3)] and "coffe" not in mine["d4"][0]  # the title, apart

    _, runs = harness_runs(tmp_path, data, "[bm25]", f", fields: {given}")
    texts = [q["text"] for q in QUERIES if q["_id"] in JUDGED]
    oracle = simple_searcher(theirs, texts, 1000, fields=weights)
    for qid, hits in zip(JUDGED, oracle):
        assert runs["bm25"].get(qid, []) == removed(qid, hits), qid
    # differs from a search of the text alone: the title field counts
    assert oracle != simple_searcher(theirs, texts, 1000)


@pytest.mark.java
def test_multifield_rm3_equals_simple_searchers(tmp_path):
    from harness.engine import lucene

    data = dataset(tmp_path / "ds")
    theirs = anserini_index(data / "corpus.jsonl", tmp_path / "theirs", fields=True)
    _, runs = harness_runs(tmp_path, data, "[{bm25: {rm3: {fb_docs: 2, fb_terms: 5}}}]", ", fields: true")
    s = lucene.jclass("io.anserini.search.SimpleSearcher")(str(theirs))
    s.set_bm25(0.9, 0.4)
    s.set_rm3(5, 2, 0.5)
    m = lucene.jclass("java.util.HashMap")()
    for name in ("contents", "title"):
        m.put(name, lucene.jclass("java.lang.Float")(1.0))
    (run,) = runs.values()
    for qid, text in ((q["_id"], q["text"]) for q in QUERIES if q["_id"] in JUDGED):
        hits = [(str(h.docid), float(h.score)) for h in s.search_fields(text, m, 1000)]
        assert run.get(qid, []) == removed(qid, hits), qid
    s.close()


def test_topics_are_the_queries_the_qrels_judge(tmp_path):
    from harness.engine.topics import read_topics

    data = dataset(tmp_path / "ds")
    all_queries = read_topics(data / "queries.jsonl", "beir")
    assert all_queries == [
        ("q1", "coffee café"),
        ("q2", "tea house"),
        ("q3", "unjudged drink"),
        ("q4", "green drink history"),
    ]
    judged = read_topics(data / "queries.jsonl", "beir", (data / "qrels" / "test.tsv", "trec"))
    assert [q for q, _ in judged] == JUDGED  # a score-0 line (q4) judges its query too


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"title": "t", "text": "x"}', '"_id" must be a string or an integer (it is missing)'),
        ('{"_id": "a", "text": "x"}', '"title" must be a string (it is missing)'),
        ('{"_id": "a", "title": null, "text": "x"}', '"title" must be a string (it is null)'),
        ('{"_id": "a", "title": "t"}', '"text" must be a string (it is missing)'),
        ('{"_id": "a", "title": "t", "text": 1.50}', '"text" must be a string (it is the number 1.5)'),
        ('["a"]', 'expected a JSON object with "_id", "title" and "text"'),
    ],
)
def test_a_bad_corpus_line_is_named(tmp_path, line, message):
    data = dataset(tmp_path / "ds")
    (data / "corpus.jsonl").write_text('{"_id": "ok", "title": "", "text": "fine"}\n' + line + "\n")
    with pytest.raises(DataError) as e:
        check_contents(Corpus(data, "beir"))
    assert f"{data / 'corpus.jsonl'}:2" in str(e.value) and message in str(e.value)


def test_a_corpus_folder_needs_one_corpus_file(tmp_path):
    data = dataset(tmp_path / "ds")
    (data / "corpus.jsonl.gz").write_bytes(gzip.compress(b""))
    with pytest.raises(DataError, match="holds both corpus.jsonl and corpus.jsonl.gz"):
        Corpus(data, "beir").files()
    (data / "corpus.jsonl").unlink()
    (data / "corpus.jsonl.gz").unlink()
    with pytest.raises(DataError, match="holds corpus.jsonl or corpus.jsonl.gz; this one has neither"):
        Corpus(data, "beir").files()


def test_the_corpus_file_itself_and_only_it_is_staged(tmp_path):
    data = dataset(tmp_path / "ds")
    staged = stage(Corpus(data, "beir"), tmp_path / "staged")
    assert sorted(p.name for p in staged.iterdir()) == ["corpus.jsonl"]  # never queries.jsonl
    assert Corpus(data / "corpus.jsonl", "beir").files() == [data / "corpus.jsonl"]
    assert Corpus(data, "beir", fields=True).anserini_class == "BeirMultifieldCollection"


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"text": "x"}', '"_id" must be a string or an integer (it is missing)'),
        ('{"_id": "a"}', '"text" must be a string (it is missing)'),
        ('{"_id": "a", "text": ""}', "topic 'a' has an empty query text"),
        ('{"_id": "q1", "text": "again"}', "topic 'q1' already defined on line 1"),
    ],
)
def test_a_bad_query_line_is_named(tmp_path, line, message):
    from harness.engine.topics import read_topics

    f = tmp_path / "queries.jsonl"
    f.write_text('{"_id": "q1", "text": "fine"}\n' + line + "\n")
    with pytest.raises(DataError) as e:
        read_topics(f, "beir")
    assert f"{f}:2" in str(e.value) and message in str(e.value)


@pytest.mark.parametrize(
    "collection, runs, message",
    [
        ("{path: docs.jsonl, format: jsonl, fields: true}", "[bm25]", "it needs `format: beir`"),
        # a BEIR folder declared jsonl: its format is the one mistake, named with the fix (config/layouts.py)
        ("{path: ds, format: jsonl, fields: true}", "[bm25]", "write `collection: {path: ds, format: beir}`"),
        ("{path: ds, format: beir, fields: true}", "[bm25, indri]", "indri runs search one field"),
        ("{path: ds, format: beir, fields: {contents: 1}}", "[bm25]", "title missing"),
        ("{path: ds, format: beir, fields: {contents: 1, body: 1}}", "[bm25]", "got 'body'"),
        ("{path: ds, format: beir, fields: {contents: -1, title: 1}}", "[bm25]", "a number >= 0"),
        ("{path: ds, format: beir, fields: yes please}", "[bm25]", "expected true, false or a mapping"),
    ],
)
def test_fields_are_checked_with_the_config(tmp_path, collection, runs, message):
    from harness.config import load_config
    from harness.errors import ConfigError

    dataset(tmp_path / "ds")
    (tmp_path / "docs.jsonl").write_text('{"id": "d1", "contents": "coffee"}\n')
    text = (
        f"name: x\ncollection: {collection}\ntopics: {{path: ds/queries.jsonl, format: beir}}\n"
        f"qrels: ds/qrels/test.trec\nruns: {runs}\noutput: out\n"
    )
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "c.yaml", text=text)
    assert message in str(e.value) and "1 problem(s)" in str(e.value)


def test_fields_give_anserinis_weights_or_the_users(tmp_path):
    from harness.config import load_config

    dataset(tmp_path / "ds")

    def fields(value: str):
        text = (
            f"name: x\ncollection: {{path: ds, format: beir{value}}}\ntopics: {{path: ds/queries.jsonl, format: beir}}\n"
            "qrels: ds/qrels/test.trec\nruns: [bm25]\noutput: out\n"
        )
        return load_config(tmp_path / "c.yaml", text=text).search_fields

    assert fields("") == () and fields(", fields: false") == ()
    assert fields(", fields: true") == (("contents", 1.0), ("title", 1.0))  # Anserini's BEIR regressions
    assert fields(", fields: {title: 0.5, contents: 2}") == (("contents", 2.0), ("title", 0.5))


# BEIR's qrels: read as BEIR's GenericDataLoader reads qrels/<split>.tsv (csv.reader with a tab
# delimiter, the first line skipped, qrels[query-id][corpus-id] = int(score)), written here with
# the standard library as the oracle; evaluated, every door equals pytrec_eval on that dict
# (what BEIR's EvaluateRetrieval runs).
BEIR_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td3\t1\nq2\td4\t0\nq2\t9\t0\nq4\td4\t0\nq4\td8\t1\n"
RUN = "q1 Q0 d2 1 3.5 r\nq1 Q0 d4 2 2.0 r\nq1 Q0 d1 3 1.0 r\nq2 Q0 d4 1 2.5 r\nq2 Q0 d3 2 2.0 r\nq4 Q0 d1 1 1.0 r\n"
RUN_B = "q1 Q0 d1 1 3.5 s\nq1 Q0 d2 2 2.0 s\nq2 Q0 d3 1 2.5 s\nq4 Q0 d8 1 1.0 s\nq4 Q0 d1 2 0.5 s\n"


def beirs_loader(path: Path) -> dict:
    import csv

    with open(path, encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        next(reader)
        qrels: dict = {}
        for query_id, corpus_id, score in reader:
            qrels.setdefault(query_id, {})[corpus_id] = int(score)
    return qrels


@pytest.mark.parametrize("variant", ["lf", "crlf", "bom", "no final newline"])
def test_beir_qrels_are_read_as_beirs_loader_reads_them(tmp_path, variant):
    from harness.formats.qrels import read_qrels

    text = {
        "lf": BEIR_QRELS,
        "crlf": BEIR_QRELS.replace("\n", "\r\n"),
        "bom": "\ufeff" + BEIR_QRELS,
        "no final newline": BEIR_QRELS.rstrip("\n"),
    }[variant]
    f = tmp_path / "test.tsv"
    f.write_bytes(text.encode("utf-8"))
    (tmp_path / "plain.tsv").write_text(BEIR_QRELS)
    expected = beirs_loader(tmp_path / "plain.tsv")
    assert read_qrels(f).to_dict() == expected
    assert expected["q4"] == {"d4": 0, "d8": 1}


def _pytrec(qrels: dict, run_text: str, measures: set) -> dict:
    import pytrec_eval

    run: dict = {}
    for line in run_text.splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


def test_every_door_reads_beir_qrels_with_pytrec_evals_numbers(tmp_path, capsys):
    import harness
    from harness.cli import main

    qrels = tmp_path / "test.tsv"
    qrels.write_text(BEIR_QRELS)
    run, run_b = tmp_path / "a.trec", tmp_path / "b.trec"
    run.write_text(RUN)
    run_b.write_text(RUN_B)
    ref = _pytrec(beirs_loader(qrels), RUN, {"ndcg_cut_10", "P_5", "recall_100"})
    per_topic, means = harness.evaluate(run, qrels, ["ndcg_cut_10", "P_5", "recall_100"])
    names = {"nDCG@10": "ndcg_cut_10", "P@5": "P_5", "R@100": "recall_100"}
    got = {(r.qid, names[r.measure]): r.value for r in per_topic.itertuples()}
    assert got == pytest.approx({(q, m): v for q, ms in ref.items() for m, v in ms.items()}, abs=1e-12)

    assert main(["evaluate", str(run), str(qrels), "-m", "ndcg_cut_10"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("nDCG@10\tall"))
    assert float(line.split("\t")[2]) == pytest.approx(means.loc["a", "nDCG@10"], abs=5e-5)

    assert (
        main(["compare", "--qrels", str(qrels), "--baseline", str(run), str(run), str(run_b), "-m", "ndcg_cut_10"]) == 0
    )
    out = capsys.readouterr().out
    ref_b = _pytrec(beirs_loader(qrels), RUN_B, {"ndcg_cut_10"})
    mean_b = sum(ms["ndcg_cut_10"] for ms in ref_b.values()) / 3  # q1, q2, q4 judged (trec_eval -c)
    assert f"{mean_b:.4f}" in out


def test_trec_eval_keeps_its_four_fields(tmp_path, capsys):
    from harness.cli import main

    qrels, run = tmp_path / "test.tsv", tmp_path / "a.trec"
    qrels.write_text(BEIR_QRELS)
    run.write_text(RUN)
    assert main(["trec_eval", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{qrels}:1: expected 4 whitespace-separated fields" in err
    assert "harness evaluate and compare read BEIR's qrels with its header as they are" in err


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\n", 3, "expected 3 whitespace-separated fields"),
        ("query-id\tcorpus-id\tscore\nq1\td1\tyes\n", 2, "score (field 3) must be an integer, got 'yes'"),
        (
            "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t0\n",
            3,
            "duplicate judgment for topic 'q1', document 'd1' (first seen on line 2)",
        ),
        ("q1\td1\t1\nq1\td2\t0\n", 1, "when it starts with BEIR's header line"),  # no header: refused
        ("query-id\tcorpus-id\tscore\n", None, "'query-id corpus-id score' after the header"),
    ],
)
def test_bad_beir_qrels_are_named(tmp_path, text, line, message):
    from harness.formats.qrels import read_qrels

    f = tmp_path / "test.tsv"
    f.write_text(text)
    with pytest.raises(DataError) as e:
        read_qrels(f)
    assert message in str(e.value)
    assert e.value.line == line


def test_without_query_drops_only_the_querys_own_document():
    from harness.engine.beir import without_query
    from harness.formats.run import Run

    run = Run.from_ranked({"a": (["x", "a", "y"], [3.0, 2.0, 1.0]), "b": (["b"], [1.0]), "c": (["a"], [1.0])})
    out = without_query(run)
    assert out.topics() == ["a", "c"]  # b found only itself: left out, as a topic that finds nothing
    assert out.ranked("a")[0] == ["x", "y"] and out.ranked("a")[1].tolist() == [3.0, 1.0]
    assert out.ranked("c")[0] == ["a"]  # another topic's id is just a document
    kept = Run.from_ranked({"a": (["x"], [1.0])})
    assert without_query(kept) is kept


@pytest.mark.java
def test_the_docs_example_runs(tmp_path, monkeypatch):
    """docs/config.md's *BEIR datasets* config, as written, on a BEIR folder named as it names it."""
    import re

    import harness

    doc = (Path(__file__).resolve().parents[1] / "docs" / "config.md").read_text()
    block = re.search(r"## BEIR datasets\n.*?```yaml\n(.*?)```", doc, re.S).group(1)
    dataset(tmp_path / "scifact")
    (tmp_path / "scifact.yaml").write_text(block)
    monkeypatch.setenv("HARNESS_INDEXES", str(tmp_path / "indexes"))
    result = harness.run(tmp_path / "scifact.yaml")
    assert list(result.means.columns) == ["nDCG@10", "R@100", "R@1000"]
    assert (tmp_path / "reports" / "scifact" / "runs" / "bm25.trec").exists()
