"""Data named in local caches, never downloaded (issue 39, item 4): Pyserini's cache (prebuilt
indexes, topics, qrels by name) and ir_datasets ids through ir_datasets' own API.

The ir_datasets oracle is ir_datasets itself: datasets are registered through its API over files
in a temporary IR_DATASETS_HOME, each with a remote mirror that must never be opened (a socket
guard fails the test if anything connects). Pyserini's registry oracle is the commit the
installed pyserini pins."""

from __future__ import annotations

import re
import socket
import textwrap
import uuid
from pathlib import Path

import pytest

from harness.config import load_config
from harness.errors import ConfigError, DataError
from harness.formats import irds, pyserini_cache
from harness.formats.named import read_named_qrels
from harness.formats.qrels import read_qrels

from .conftest import REPO

ir_datasets = pytest.importorskip("ir_datasets")

CORPORA, TOPICS, QRELS = REPO / "corpora", REPO / "topics" / "demo.tsv", REPO / "qrels" / "demo.txt"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Anything that connects fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def config(tmp_path: Path, lines: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(f"name: t\nruns: [bm25]\noutput: out\n{textwrap.dedent(lines)}")
    return path


# ------------------------------------------------------------------------------ Pyserini


def test_registry_snapshot_is_the_one_pyserini_pins():
    import importlib.util
    import json

    base = Path(list(importlib.util.find_spec("pyserini").submodule_search_locations)[0], "search", "_base.py")
    pinned = re.search(r"^EVAL_COMMIT = '([0-9a-f]{40})'", base.read_text(), re.M).group(1)
    names = json.loads((REPO / "harness" / "formats" / "pyserini_names.json").read_text())
    assert names["eval_commit"] == pinned
    # castorini/eval's topics-aliases.json maps the name Pyserini's docs use to the canonical set
    assert names["topics"]["msmarco-passage-dev-subset"] == ["topics.msmarco-passage.dev-subset.txt", "TsvInt"]
    assert names["qrels"]["msmarco-passage-dev-subset"] == "qrels.msmarco-passage.dev-subset.txt"


def test_cache_home_follows_pyserini(tmp_path, monkeypatch):
    """pyserini.util.get_cache_home's precedence (importing pyserini would fetch its catalogue):
    $PYSERINI_CACHE when not empty, else ./.cache/pyserini when ./.cache exists, else ~/.cache/pyserini."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PYSERINI_CACHE", str(tmp_path / "custom"))
    assert pyserini_cache.cache_home() == tmp_path / "custom"
    monkeypatch.setenv("PYSERINI_CACHE", "")
    assert pyserini_cache.cache_home() == tmp_path / "home" / ".cache" / "pyserini"
    (tmp_path / ".cache").mkdir()
    assert pyserini_cache.cache_home() == tmp_path / ".cache" / "pyserini"
    monkeypatch.delenv("PYSERINI_CACHE")
    assert pyserini_cache.cache_home() == tmp_path / ".cache" / "pyserini"


@pytest.fixture
def pyserini_home(tmp_path, monkeypatch):
    home = tmp_path / "pyserini"
    monkeypatch.setenv("PYSERINI_CACHE", str(home))
    return home


def test_pyserini_topics_and_qrels_by_name(tmp_path, pyserini_home):
    (pyserini_home / "topics").mkdir(parents=True)
    (pyserini_home / "qrels").mkdir()
    topics = pyserini_home / "topics" / "topics.msmarco-passage.dev-subset.txt"
    topics.write_text(TOPICS.read_text().replace("q", "1"))
    qrels = pyserini_home / "qrels" / "qrels.msmarco-passage.dev-subset.txt"
    qrels.write_text(QRELS.read_text())
    cfg = load_config(
        config(
            tmp_path,
            f"""\
            collection: {{path: {CORPORA}, format: text-folder}}
            topics: {{pyserini: msmarco-passage-dev-subset}}
            qrels: {{pyserini: msmarco-passage.dev}}
            """,
        )
    )
    assert (cfg.topics_path, str(cfg.topics_format)) == (topics, "anserini:TsvInt")  # the reader Pyserini uses
    assert (cfg.qrels_path, cfg.qrels_format) == (qrels, "trec")
    # the Python API's and the CLI's door: the same judgments
    assert read_named_qrels("pyserini:msmarco-passage-dev-subset").to_dict() == read_qrels(QRELS).to_dict()


def test_pyserini_names_absent_exit_2_naming_where_and_how(tmp_path, pyserini_home):
    with pytest.raises(ConfigError) as e:
        load_config(
            config(
                tmp_path,
                f"""\
                collection: {{path: {CORPORA}, format: text-folder}}
                topics: {{pyserini: msmarco-passage-dev-subset}}
                qrels: {{pyserini: msmarco-passage-dev-subsett}}
                index: {{prebuilt: msmarco-passage}}
                """,
            )
        )
    text = str(e.value)
    assert e.value.exit_code == 2
    assert f"looked for {pyserini_home}/topics/topics.msmarco-passage.dev-subset.txt" in text
    assert "get_topics('msmarco-passage-dev-subset')" in text
    assert "no Pyserini qrels named 'msmarco-passage-dev-subsett'" in text and "did you mean" in text
    # a prebuilt index with a collection: one of them; and the alias named with what it stands for
    assert "index.prebuilt: Pyserini's prebuilt index 'msmarco-passage' (an alias of msmarco-v1-passage)" in text
    assert "download_prebuilt_index('msmarco-passage')" in text


def test_prebuilt_index_by_name_or_alias(tmp_path, pyserini_home):
    folder = pyserini_home / "indexes" / ("lucene-inverted.msmarco-v1-passage.20221004.252b5e." + "0" * 32)
    folder.mkdir(parents=True)
    (folder / "segments_1").write_bytes(b"")  # what marks a Lucene index folder
    (pyserini_home / "indexes" / ("lucene-inverted.msmarco-v1-passage-slim.20221004.252b5e." + "1" * 32)).mkdir()
    for name in ("msmarco-v1-passage", "msmarco-passage"):  # msmarco-passage: Pyserini's alias
        cfg = load_config(config(tmp_path, f"topics: {TOPICS}\nindex: {{prebuilt: {name}}}\n"))
        assert cfg.index_path == folder and cfg.collection_path is None


# ------------------------------------------------------------------------------ ir_datasets


@pytest.fixture
def irds_home(tmp_path, monkeypatch):
    home = tmp_path / "irds"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    return home


def register(home: Path, queries: str = "tsv") -> str:
    """A dataset registered through ir_datasets' API: its files under ``home/<name>/``, each with
    a remote mirror that is opened only if the file is missing."""
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecQueries, TsvQueries
    from ir_datasets.util import Download, RequestsDownload

    name = f"harness-test-{uuid.uuid4().hex[:8]}"

    def dlc(file):
        return Download([RequestsDownload(f"https://example.invalid/{name}/{file}")], cache_path=home / name / file)

    q = TsvQueries(dlc("queries.tsv")) if queries == "tsv" else TrecQueries(dlc("topics.trec"))
    ir_datasets.registry.register(f"{name}/dev", Dataset(q, TrecQrels(dlc("qrels.txt"), {0: "no", 1: "yes"})))
    return f"{name}/dev"


def place(home: Path, dataset: str, queries: str | None = None, qrels: str | None = None, file="queries.tsv"):
    folder = home / dataset.split("/")[0]
    folder.mkdir(parents=True, exist_ok=True)
    if queries is not None:
        (folder / file).write_text(queries)
    if qrels is not None:
        (folder / "qrels.txt").write_text(qrels)


def test_irds_topics_and_qrels_are_what_ir_datasets_yields(tmp_path, irds_home):
    dataset = register(irds_home)
    place(irds_home, dataset, TOPICS.read_text(), QRELS.read_text())
    ds = ir_datasets.load(dataset)
    cfg = load_config(
        config(
            tmp_path,
            f"""\
            collection: {{path: {CORPORA}, format: text-folder}}
            topics: {{irds: {dataset}}}
            qrels: {{irds: {dataset}}}
            """,
        )
    )
    assert str(cfg.topics_format) == f"irds:{dataset}" and cfg.qrels_format == f"irds:{dataset}"
    assert cfg.topics_path == cfg.qrels_path == irds_home / dataset.split("/")[0]
    from harness.engine.topics import read_topics

    assert read_topics(cfg.topics_path, cfg.topics_format) == [(q.query_id, q.text) for q in ds.queries_iter()]
    judged: dict = {}
    for r in ds.qrels_iter():
        judged.setdefault(r.query_id, {})[r.doc_id] = r.relevance
    assert read_named_qrels(f"irds:{dataset}").to_dict() == judged == read_qrels(QRELS).to_dict()


def test_irds_query_field_default_text_or_named(tmp_path, irds_home):
    dataset = register(irds_home, queries="trec")
    trec = "<top>\n<num> Number: 7\n<title> lunar rocks\n<desc> Description:\nWhat rocks came back?\n<narr> N\n</top>\n"
    place(irds_home, dataset, trec, QRELS.read_text(), file="topics.trec")
    q = next(iter(ir_datasets.load(dataset).queries_iter()))
    assert irds.read_topics(dataset) == [("7", q.default_text())] == [("7", q.title)]
    assert irds.read_topics(dataset, "description") == [("7", q.description)]
    with pytest.raises(DataError, match="no field 'body'; they have: title, description, narrative"):
        irds.read_topics(dataset, "body")


def test_irds_absent_is_exit_2_and_opens_no_connection(tmp_path, irds_home):
    dataset = register(irds_home)
    for present in (False, True):  # nothing of it, then the queries but not the qrels
        if present:
            place(irds_home, dataset, TOPICS.read_text())
        with pytest.raises(DataError) as e:
            read_named_qrels(f"irds:{dataset}")
        assert e.value.exit_code == 2
        assert str(e.value).startswith(f"irds:{dataset}: the qrels of ir_datasets' '{dataset}'")
        assert f"looked for {irds_home / dataset.split('/')[0]}" in str(e.value)
        assert f"python -m ir_datasets export {dataset} qrels" in str(e.value)
    assert not (irds_home / dataset.split("/")[0] / "qrels.txt").exists()
    with pytest.raises(ConfigError, match=r"qrels\.irds: the qrels of ir_datasets"):
        load_config(config(tmp_path, f"topics: {{irds: {dataset}}}\nqrels: {{irds: {dataset}}}\nindex: {{path: x}}\n"))


def test_irds_unknown_id():
    with pytest.raises(DataError, match="ir_datasets knows no dataset 'no-such/thing'"):
        irds.read_topics("no-such/thing")


def test_every_door_gives_the_same_numbers(tmp_path, irds_home, capsys):
    import harness
    from harness.cli import main

    dataset = register(irds_home)
    place(irds_home, dataset, TOPICS.read_text(), QRELS.read_text())
    run = tmp_path / "run.trec"
    qids = [line.split()[0] for line in QRELS.read_text().splitlines()]
    docs = [line.split()[2] for line in QRELS.read_text().splitlines()]
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {100 - i} r\n" for i, (q, d) in enumerate(zip(qids, docs))))
    _, by_file = harness.evaluate(str(run), str(QRELS), ["AP", "nDCG@10"])
    _, named = harness.evaluate(str(run), f"irds:{dataset}", ["AP", "nDCG@10"])
    assert by_file.to_dict() == named.to_dict()
    other = tmp_path / "other.trec"
    other.write_text("".join(f"{q} Q0 {d} {i + 1} {i} r\n" for i, (q, d) in enumerate(zip(qids, docs))))
    outs = []
    for qrels in (str(QRELS), f"irds:{dataset}"):
        assert main(["evaluate", str(run), qrels, "-m", "AP", "-m", "nDCG@10"]) in (0, None)
        outs.append(capsys.readouterr().out.replace(qrels, "QRELS"))
        compare = ["compare", str(run), str(other), "--qrels", qrels, "--baseline", "run", "-m", "AP", "nDCG@10"]
        assert main(compare) in (0, None)  # `compare --qrels irds:ID` said "file not found" before
        outs.append(capsys.readouterr().out.replace(qrels, "QRELS"))
    assert outs[:2] == outs[2:]


def test_offline_guard_restores_ir_datasets():
    from ir_datasets.util.download import RequestsDownload

    before = RequestsDownload.stream
    with irds.offline():
        assert RequestsDownload.stream is not before
    assert RequestsDownload.stream is before


# ------------------------------------------------------------------------------ ir_datasets documents


def register_docs(home: Path, docs: list[dict]) -> tuple[str, Path]:
    """A dataset of BEIR-shaped documents (``_id``, ``title``, ``text``), registered through
    ir_datasets' API as BEIR corpora are (JsonlDocs of BeirTitleDoc), with the demo's queries and
    judgments; its files under ``home/<name>/``, each with a remote mirror never to be opened."""
    import json

    from ir_datasets.datasets.base import Dataset
    from ir_datasets.datasets.beir import BeirTitleDoc
    from ir_datasets.formats import JsonlDocs, TrecQrels, TsvQueries
    from ir_datasets.util import Download, RequestsDownload

    name = f"harness-docs-{uuid.uuid4().hex[:8]}"

    def dlc(file):
        return Download([RequestsDownload(f"https://example.invalid/{name}/{file}")], cache_path=home / name / file)

    corpus = JsonlDocs(dlc("corpus.jsonl"), BeirTitleDoc, mapping={"doc_id": "_id", "title": "title", "text": "text"})
    queries, qrels = TsvQueries(dlc("queries.tsv")), TrecQrels(dlc("qrels.txt"), {0: "no", 1: "yes"})
    ir_datasets.registry.register(name, Dataset(corpus, queries, qrels))
    (home / name).mkdir(parents=True, exist_ok=True)
    file = home / name / "corpus.jsonl"
    file.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return name, file


def demo_docs() -> list[dict]:
    """The demo collection as BEIR documents: the first line of each file its title (one without)."""
    docs = []
    for i, f in enumerate(sorted((CORPORA / "sample_docs").glob("*.txt"))):
        first, _, rest = f.read_text().partition("\n")
        title, text = ("", f.read_text()) if i == 0 else (first, rest)
        docs.append({"_id": f"sample_docs/{f.name}", "title": title, "text": text})
    return docs


def test_irds_documents_are_what_ir_datasets_yields(irds_home):
    docs = demo_docs()
    name, _ = register_docs(irds_home, docs)
    got = list(irds.documents(name))
    ds_docs = list(ir_datasets.load(name).docs_iter())
    # Anserini's BeirFlatCollection: title, newline, text (an empty title too)
    assert got == [(d.doc_id, f"{d.title}\n{d.text}") for d in ds_docs]
    assert got == [(d["_id"], d["title"] + "\n" + d["text"]) for d in docs]
    assert list(irds.documents(name, ("text",))) == [(d["_id"], d["text"]) for d in docs]
    with pytest.raises(DataError, match="no field 'body'; they have: text, title"):
        list(irds.documents(name, ("body",)))


@pytest.mark.java
def test_irds_collection_indexes_as_the_same_jsonl(tmp_path, irds_home):
    """`collection: {irds: ID}` builds the index a JSON-lines file of the same documents builds
    (Anserini's JsonCollection over BeirFlatCollection's contents): same statistics, same runs;
    the staged copy is gone after the build; a changed dataset is rebuilt, an unchanged one reused."""
    import json

    from harness.experiment.execute import run_experiment

    docs = demo_docs()
    name, file = register_docs(irds_home, docs)
    place(irds_home, name, TOPICS.read_text(), QRELS.read_text())
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"id": d["_id"], "contents": d["title"] + "\n" + d["text"]}) + "\n" for d in docs)
    )
    results = {}
    for key, collection in (("by-irds", f"{{irds: {name}}}"), ("by-jsonl", f"{{path: {jsonl}, format: jsonl}}")):
        (tmp_path / key).mkdir()
        cfg = load_config(
            config(
                tmp_path / key,
                f"collection: {collection}\nindex: {{path: {tmp_path / key / 'index'}}}\n"
                f"topics: {{irds: {name}}}\nqrels: {{irds: {name}}}\n",
            )
        )
        results[key] = run_experiment(cfg)
    a, b = results["by-irds"], results["by-jsonl"]
    assert a.index.manifest["stats"] == b.index.manifest["stats"]
    assert (
        a.index.manifest["counters"]
        == b.index.manifest["counters"]
        == {**b.index.manifest["counters"], "indexed": len(docs)}
    )
    assert a.runs[0].path.read_bytes() == b.runs[0].path.read_bytes()
    assert a.index.manifest["collection"]["format"] == f"irds:{name}"
    assert not [p for p in tmp_path.joinpath("by-irds").rglob("docs.jsonl")]  # the staged copy is removed
    cfg = load_config(tmp_path / "by-irds" / "c.yaml")
    assert run_experiment(cfg).index.reused
    file.write_text(file.read_text().replace("BM25", "Okapi"))
    assert not run_experiment(cfg).index.reused  # the dataset's data changed: rebuilt


def test_irds_collection_absent_is_exit_2(tmp_path, irds_home):
    name, file = register_docs(irds_home, demo_docs())
    file.unlink()
    with pytest.raises(ConfigError) as e:
        load_config(config(tmp_path, f"collection: {{irds: {name}}}\ntopics: {TOPICS}\n"))
    text = str(e.value)
    assert e.value.exit_code == 2
    assert f"collection.irds: the docs of ir_datasets' '{name}' is not in the local cache" in text
    assert f"looked for {irds_home / name}" in text and f"python -m ir_datasets export {name} docs" in text


def test_irds_collection_keys(tmp_path, irds_home):
    name, _ = register_docs(irds_home, demo_docs())
    cfg = load_config(config(tmp_path, f"collection: {{irds: {name}, contents: 'text, title'}}\ntopics: {TOPICS}\n"))
    assert (cfg.collection_path, str(cfg.collection_format)) == (irds_home / name, f"irds:{name}#text,title")
    for lines, message in (
        (f"collection: {{irds: {name}, format: jsonl}}", "collection.format: comes from ir_datasets"),
        (
            f"collection: {{irds: {name}, path: {CORPORA}}}",
            "collection: give one of `path` or `irds` (got `path`, `irds`)",
        ),
        (f"collection: {{path: {CORPORA}}}", "is a folder, and a folder's format is read from its files only for"),
        (
            f"collection: {{path: {CORPORA}, format: text-folder, contents: text}}",
            "collection.contents: applies to `irds`",
        ),
        (f"collection: {{irds: {name}, contents: body}}", "collection.irds: its documents have no field 'body'"),
    ):
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_config(config(tmp_path, f"{lines}\ntopics: {TOPICS}\n"))


# ------------------------------------------------------------------------------ every door


def test_topics_named_on_the_command_line_and_api_as_in_the_config(tmp_path, irds_home, pyserini_home):
    """`--topics irds:ID` (and `pyserini:NAME`, and the shorthand `topics: irds:ID`, and the
    API's overrides) give the config the topics `topics: {irds: ID}` gives it."""
    from harness.verbs.run import load

    dataset = register(irds_home)
    place(irds_home, dataset, TOPICS.read_text(), QRELS.read_text())
    (pyserini_home / "topics").mkdir(parents=True)
    (pyserini_home / "topics" / "topics.msmarco-passage.dev-subset.txt").write_text(TOPICS.read_text())
    base = f"collection: {{path: {CORPORA}, format: text-folder}}\n"
    for spec, mapping in (
        (f"irds:{dataset}", f"{{irds: {dataset}}}"),
        ("pyserini:msmarco-passage-dev-subset", "{pyserini: msmarco-passage-dev-subset}"),
    ):
        want = load_config(config(tmp_path, f"{base}topics: {mapping}\n"))
        shorthand = load_config(config(tmp_path, f"{base}topics: {spec}\n"))
        flag = load(config(tmp_path, f"{base}topics: {TOPICS}\n"), topics=spec)
        api = load(config(tmp_path, f"{base}topics: {TOPICS}\n"), overrides={"topics": spec})
        for cfg in (shorthand, flag, api):
            assert (cfg.topics_path, cfg.topics_format) == (want.topics_path, want.topics_format)
        assert flag.overrides == (f"--topics {spec}",)


def test_named_data_absent_same_message_at_every_door(tmp_path, irds_home, capsys):
    """A missing ir_datasets qrels: the config, `harness compare --qrels`, `harness evaluate`,
    `harness search --topics` and the Python API all exit 2 with one message."""
    import harness
    from harness.cli import main
    from harness.formats.pyserini_cache import MissingFromCache

    dataset = register(irds_home)
    with pytest.raises(MissingFromCache) as missing:
        irds.read_qrels(dataset)
    reason = missing.value.reason
    assert f"looked for {irds_home / dataset.split('/')[0]}" in reason
    with pytest.raises(ConfigError) as e:
        load_config(config(tmp_path, f"topics: {TOPICS}\nqrels: {{irds: {dataset}}}\nindex: {{path: x}}\n"))
    assert f"qrels.irds: {reason}" in str(e.value) and e.value.exit_code == 2
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    other = tmp_path / "other.trec"
    other.write_text("q1 Q0 d2 1 1.0 r\n")
    with pytest.raises(DataError) as e:  # the Python API
        harness.evaluate(str(run), f"irds:{dataset}", ["AP"])
    assert str(e.value) == f"irds:{dataset}: {reason}" and e.value.exit_code == 2
    for argv in (
        ["compare", str(run), str(other), "--qrels", f"irds:{dataset}", "--baseline", "run", "-m", "AP"],
        ["evaluate", str(run), f"irds:{dataset}", "-m", "AP"],
    ):
        assert main(argv) == 2
        assert f"irds:{dataset}: {reason}" in capsys.readouterr().err
    cfg = config(tmp_path, f"collection: {{path: {CORPORA}, format: text-folder}}\ntopics: {TOPICS}\n")
    assert main(["search", str(cfg), "--topics", f"irds:{dataset}", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"--topics irds:{dataset}: topics.irds: " in err and "the queries of ir_datasets'" in err
    assert f"python -m ir_datasets export {dataset} queries" in err


@pytest.mark.java
def test_search_with_named_topics_writes_the_config_doors_runs(tmp_path, irds_home):
    """`harness search CONFIG --topics irds:ID` searches what `topics: {irds: ID}` searches."""
    from harness.cli import main

    dataset = register(irds_home)
    place(irds_home, dataset, TOPICS.read_text(), QRELS.read_text())
    outs = []
    for key, topics, flags in (
        ("flag", str(TOPICS), ["--topics", f"irds:{dataset}"]),
        ("config", f"{{irds: {dataset}}}", []),
    ):
        (tmp_path / key).mkdir()
        cfg = config(
            tmp_path / key,
            f"collection: {{path: {CORPORA}, format: text-folder}}\nindex: {{path: index}}\ntopics: {topics}\n",
        )
        assert main(["search", str(cfg), *flags]) in (0, None)
        outs.append({p.name: p.read_bytes() for p in (tmp_path / key / "out" / "runs").glob("*.trec")})
    assert outs[0] == outs[1] and outs[0]


def _pyserini_parse_topics():
    """Pyserini's own ``_parse_topics`` (pyserini/search/_base.py, the installed version), taken
    from its source alone: importing pyserini.search fetches its index catalogue over the network."""
    import ast
    import importlib.util

    base = Path(list(importlib.util.find_spec("pyserini").submodule_search_locations)[0], "search", "_base.py")
    tree = ast.parse(base.read_text())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_parse_topics")
    namespace: dict = {}
    exec(compile(ast.Module([fn], type_ignores=[]), str(base), "exec"), namespace)
    return namespace["_parse_topics"]


@pytest.mark.java
def test_pyserini_named_topics_are_what_pyserini_reads(tmp_path, pyserini_home):
    """Topics named `pyserini: NAME` are read as Pyserini's get_topics reads the cached file: the
    same Anserini call (TopicReader.getTopicsWithStringIdsFromFileWithTopicReaderClass with the
    reader its registry names), parsed by Pyserini's own _parse_topics; the query is the title."""
    import gzip

    from harness.engine import lucene
    from harness.engine.topics import read_topics

    (pyserini_home / "topics").mkdir(parents=True)
    trec = "".join(
        f"<top>\n<num> Number: {n}\n<title>\n{t}\n<desc> Description:\nWhat about {t}?\n<narr> Narrative:\nN.\n</top>\n\n"
        for n, t in ((301, "international organized crime"), (302, "poliomyelitis and post-polio"))
    )
    files = {
        "msmarco-passage-dev-subset": ("topics.msmarco-passage.dev-subset.txt", TOPICS.read_text().replace("q", "1")),
        "robust04": ("topics.robust04.txt", trec),
        "beir-v1.0.0-scifact-test": ("topics.beir-v1.0.0-scifact.test.tsv.gz", TOPICS.read_text()),
    }
    parse = _pyserini_parse_topics()
    reader = lucene.jclass("io.anserini.search.topicreader.TopicReader")
    for name, (file, text) in files.items():
        path = pyserini_home / "topics" / file
        path.write_bytes(gzip.compress(text.encode()) if file.endswith(".gz") else text.encode())
        cfg = load_config(
            config(tmp_path, f"collection: {{path: {CORPORA}, format: text-folder}}\ntopics: {{pyserini: {name}}}\n")
        )
        ours = read_topics(cfg.topics_path, cfg.topics_format)
        kind = cfg.topics_format.reader
        theirs = parse(
            reader.getTopicsWithStringIdsFromFileWithTopicReaderClass(
                str(path), f"io.anserini.search.topicreader.{kind}TopicReader"
            )
        )
        assert (
            len(ours)
            == len(theirs)
            == len(text.strip().split("<top>" if "<top>" in text else "\n")) - ("<top>" in text)
        )
        assert dict(ours) == {str(qid): fields["title"] for qid, fields in theirs.items()}, name
    broken = pyserini_home / "topics" / files["beir-v1.0.0-scifact-test"][0]
    broken.write_bytes(gzip.compress(TOPICS.read_text().encode())[:-12])  # cut short
    with pytest.raises(DataError, match="not a valid compressed file"):
        read_topics(broken, "anserini:TsvString")


@pytest.mark.java
def test_irds_collection_damaged_midway_leaves_nothing(tmp_path, irds_home):
    """A dataset whose documents' file breaks after the first (read at validation): the build
    stops with the dataset named, and neither an index nor the staged copy is left."""
    from harness.experiment.execute import run_experiment

    name, file = register_docs(irds_home, demo_docs())
    file.write_text(file.read_text().replace("\n", "\n{broken\n", 1))
    cfg = load_config(
        config(tmp_path, f"collection: {{irds: {name}}}\nindex: {{path: {tmp_path / 'index'}}}\ntopics: {TOPICS}\n")
    )
    with pytest.raises(DataError, match=rf"irds:{name}: ir_datasets could not read its documents after the first 1 "):
        run_experiment(cfg)
    assert not (tmp_path / "index").exists()
    assert not [p for p in tmp_path.rglob("*") if p.name == "docs.jsonl" or "building" in p.name]
