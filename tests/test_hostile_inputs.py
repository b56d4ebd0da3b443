"""A catalogue of hostile inputs, each run through the real command line in a subprocess with a
timeout (so a hang fails the test): the exit code is 2 or 3, never a traceback; the message
names the file and line (or the config key); and nothing outside the output changed.

Each case builds its inputs in a fresh folder from a small valid experiment (3 documents,
2 topics, qrels) and returns the command line. Cases marked ``java`` get as far as indexing
(Anserini itself is involved); the others fail before the JVM starts.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

DOCS = [
    {"id": "d1", "contents": "wind tunnel flow over a flat plate"},
    {"id": "d2", "contents": "boundary layer transition at high speed"},
    {"id": "d3", "contents": "heat transfer in laminar flow"},
]
TOPICS = "1\tflat plate flow\n2\tboundary layer\n"
QRELS = "1 0 d1 1\n1 0 d3 0\n2 0 d2 1\n"


class Case:
    """A folder with a valid experiment that each case spoils."""

    def __init__(self, root: Path):
        self.root = root
        (root / "docs").mkdir()
        self.write_docs(DOCS)
        (root / "topics.tsv").write_text(TOPICS)
        (root / "qrels.txt").write_text(QRELS)
        self.config = dict(
            name="hostile",
            collection={"path": "docs", "format": "jsonl"},
            topics={"path": "topics.tsv", "format": "tsv"},
            qrels="qrels.txt",
            runs=[{"bm25": {"k1": 0.9, "b": 0.4}}],
            depth=10,
            measures=["AP"],
            output="out",
        )

    def write_docs(self, docs, name="docs.jsonl"):
        (self.root / "docs" / name).write_text("".join(json.dumps(d) + "\n" for d in docs))

    def yaml(self, extra: str = "", **changes) -> str:
        cfg = {**self.config, **changes}
        path = self.root / "c.yaml"
        path.write_text(json.dumps(cfg) + "\n" + extra)  # JSON is YAML
        return str(path)

    def run(self, **changes):
        return ["run", self.yaml(**changes)]

    def validate_yaml(self, text: str):
        """A config whose lines are given (for errors that name a line)."""
        given = {line.split(":", 1)[0] for line in text.splitlines()}
        lines = [f"{k}: {json.dumps(v)}" for k, v in self.config.items() if k not in given]
        body = "\n".join(lines) + "\n" + text
        path = self.root / "c.yaml"
        path.write_text(body)
        return ["validate", str(path)]


def topics(data: bytes, fmt: str = "tsv"):
    def build(c: Case):
        name = f"t.{fmt}"
        (c.root / name).write_bytes(data)
        return c.run(topics={"path": name, "format": fmt})

    return build


def collection(setup, fmt: str = "jsonl"):
    def build(c: Case):
        setup(c.root / "docs")
        return c.run(collection={"path": "docs", "format": fmt})

    return build


def text_folder(names: dict[str, bytes]):
    def build(c: Case):
        folder = c.root / "txt"
        folder.mkdir()
        for n, data in names.items():
            (folder / n).write_bytes(data)
        return c.run(collection={"path": "txt", "format": "text-folder"})

    return build


def _fifo(folder):
    os.mkfifo(folder / "pipe.jsonl")


def _hidden_fifo(folder):
    (folder / ".cache").mkdir()
    os.mkfifo(folder / ".cache" / "x.jsonl")


def _loop(folder):
    os.symlink("loop.jsonl", folder / "loop.jsonl")


def _dev_zero(folder):
    os.symlink("/dev/zero", folder / "zero.jsonl")


def _socket(folder):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(folder / "sock.jsonl"))
    s.close()


def _corrupt_gz(folder):
    data = gzip.compress(b"".join(json.dumps(d).encode() + b"\n" for d in DOCS))
    (folder / "docs.jsonl").unlink()
    (folder / "docs.jsonl.gz").write_bytes(data[:-12] + b"garbagegarb!")


def _docs(docs):
    def setup(folder):
        (folder / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))

    return setup


def _run_file(c: Case, text: str) -> str:
    (c.root / "run.trec").write_text(text)
    return str(c.root / "run.trec")


RUN = "1 Q0 d1 1 2.0 x\n1 Q0 d3 2 1.0 x\n2 Q0 d2 1 3.0 x\n"
RUN_B = "1 Q0 d3 1 2.0 y\n1 Q0 d1 2 1.0 y\n2 Q0 d2 1 3.0 y\n"


def _evaluate(qrels: str, *extra):
    def build(c: Case):
        (c.root / "q.txt").write_text(qrels)
        return ["evaluate", _run_file(c, RUN), str(c.root / "q.txt"), *extra]

    return build


def _compare(*extra):
    def build(c: Case):
        (c.root / "b.trec").write_text(RUN_B)
        return ["compare", _run_file(c, RUN), str(c.root / "b.trec"), "--qrels", str(c.root / "qrels.txt"), *extra]

    return build


def _trec_eval(judgments: str, *flags):
    def build(c: Case):
        (c.root / "j.txt").write_text(judgments)
        return ["trec_eval", *flags, str(c.root / "j.txt"), _run_file(c, RUN)]

    return build


def _fuse(*extra, output="out", runs=(RUN, RUN_B)):
    """harness fuse over two runs; ``output`` names the file (in the case's folder), or is made
    by a function of the folder when it must exist first."""

    def build(c: Case):
        paths = []
        for i, text in enumerate(runs):
            (c.root / f"r{i}.trec").write_text(text)
            paths.append(str(c.root / f"r{i}.trec"))
        out = output(c.root) if callable(output) else c.root / output
        return ["fuse", *paths, "-o", str(out), *extra]

    return build


def _yaml(text: str):
    return lambda c: c.validate_yaml(text)


def _config(**changes):
    return lambda c: ["validate", c.yaml(**changes)]


def _with_runs(runs):
    return _config(runs=runs)


def _config_bytes(spoil):
    """validate of the case's config, its bytes spoiled by ``spoil`` (bytes -> bytes)."""

    def build(c: Case):
        argv = c.validate_yaml("")
        path = Path(argv[1])
        path.write_bytes(spoil(path.read_bytes()))
        return argv

    return build


def _config_special(make):
    """validate of a config that is no regular file: ``make(path)`` puts it there (or names one)."""
    return lambda c: ["validate", str(make(c.root / "c.yaml") or c.root / "c.yaml")]


def _previous_report_run(c: Case):
    """A report the harness wrote before (marker and all), one of whose runs the config reads
    back as a `file:` run while writing the same report: replacing it deleted that input."""
    prev = c.root / "prev"
    (prev / "runs").mkdir(parents=True)
    (prev / "runs" / "bm25.trec").write_text(RUN)
    marker = {"written_by": "harness", "kind": "report", "files": ["runs/bm25.trec"]}
    (prev / ".harness-output.json").write_text(json.dumps(marker))
    return c.run(output="prev", runs=[{"jm": {}}, {"name": "before", "file": "prev/runs/bm25.trec"}])


# name: (build, exit code, message parts, uses java)
CASES = {
    # ---- the config file itself: what can be read as a config at all
    "config-is-a-fifo": (_config_special(os.mkfifo), 2, ["c.yaml: is a FIFO", "not a regular file"], False),
    "config-is-dev-zero": (_config_special(lambda p: "/dev/zero"), 2, ["/dev/zero: is a character device"], False),
    "config-nul-byte": (
        _config_bytes(lambda b: b + b"note: a\x00b\n"),
        2,
        ["c.yaml:9: character U+0000 is not allowed in YAML"],
        False,
    ),
    "config-not-utf8": (
        _config_bytes(lambda b: b + b"name2: caf\xe9\n"),
        2,
        ["c.yaml:9: not UTF-8 (byte 0xe9)"],
        False,
    ),
    "config-nested-too-deeply": (
        _config_bytes(lambda b: b + b"x: " + b"[" * 100_000 + b"]" * 100_000 + b"\n"),
        2,
        ["c.yaml: 1 problem(s)", "nested too deeply"],
        False,
    ),
    "config-over-16-mib": (
        _config_bytes(lambda b: b + b"# " + b"x" * (16 << 20) + b"\n"),
        2,
        ["c.yaml", "larger than 16,777,216 bytes"],
        False,
    ),
    # ---- output folders
    "output-holds-a-file-run": (
        _previous_report_run,
        2,
        ["output:", "prev contains the run file of runs[1].file", "prev/runs/bm25.trec"],
        False,
    ),
    # a NUL in any path was "internal error: ValueError: embedded null byte" (exit 3)
    "output-nul-byte": (_config(output="out\x00x"), 2, ["output: must be a path without control characters"], False),
    # `output: |` keeps the line break: a folder named "out\n" was created
    "output-block-scalar-newline": (_yaml("output: |\n  out\n"), 2, ["c.yaml:8: output:", "(got 'out\\n')"], False),
    # ENAMETOOLONG named no key
    "topics-path-name-too-long": (
        _config(topics={"path": "t" * 300 + ".tsv", "format": "tsv"}),
        2,
        ["topics.path: cannot use", "File name too long"],
        False,
    ),
    # ---- topics (TSV, JSONL): fail before Java
    "topic-id-nul": (topics(b"a\x00b\tflow\n"), 2, ["t.tsv:1:", "NUL byte"], False),
    "topic-id-escape": (topics(b"1\tflow\n\x1b[2J\tplate\n"), 2, ["t.tsv:2:", "control character (U+001B)"], False),
    "topic-id-space": (topics(b"q 1\tflow\n"), 2, ["t.tsv:1:", "a space"], False),
    "topic-id-line-separator": (topics("1\u2028x\tflow\n".encode()), 2, ["t.tsv:1:", "line separator"], False),
    "topic-empty-text": (topics(b"1\tflow\n2\t   \n"), 2, ["t.tsv:2:", "empty query text"], False),
    "topic-no-tab": (topics(b"1 flow plate\n"), 2, ["t.tsv:1:", "no tab"], False),
    "topic-huge-line": (topics(b"1\t" + b"x" * (2 << 20) + b"\n"), 2, ["t.tsv:1:", "longer than 1,048,576"], False),
    "topic-huge-line-no-newline": (topics(b"1\t" + b"y" * (3 << 20)), 2, ["t.tsv:1:", "longer than"], False),
    "topic-not-utf8": (topics(b"1\tflow\n2\tcaf\xe9\n"), 2, ["t.tsv:2:", "not UTF-8"], False),
    "topic-duplicate": (topics(b"1\tflow\n1\tplate\n"), 2, ["t.tsv:2:", "already defined on line 1"], False),
    "topic-only-header": (topics(b"\xef\xbb\xbfqid\tquery\n"), 2, ["t.tsv", "no topics found"], False),
    "topic-binary": (topics(bytes(range(256)) * 8), 2, ["t.tsv:1:"], False),
    "jsonl-query-null": (topics(b'{"qid": "1", "query": null}\n', "jsonl"), 2, ["t.jsonl:1:", "null"], False),
    "jsonl-query-number": (
        topics(b'{"qid": "1", "query": 42}\n', "jsonl"),
        2,
        ["t.jsonl:1:", '"query" must be a string (it is the number 42)'],
        False,
    ),
    # the corpus readers' wording (formats.hygiene.json_kind), one for every JSON reader
    "jsonl-id-bool": (
        topics(b'{"qid": true, "query": "x"}\n', "jsonl"),
        2,
        ["t.jsonl:1:", '"qid" must be a string or an integer (it is the boolean true)'],
        False,
    ),
    "jsonl-query-array": (
        topics(b'{"qid": "1", "query": ["x"]}\n', "jsonl"),
        2,
        ["t.jsonl:1:", '"query" must be a string (it is an array)'],
        False,
    ),
    "jsonl-id-newline": (topics(b'{"qid": "a\\nb", "query": "x"}\n', "jsonl"), 2, ["t.jsonl:1:", "line break"], False),
    "jsonl-deep-nesting": (topics(b"[" * 200_000 + b"]" * 200_000 + b"\n", "jsonl"), 2, ["t.jsonl:1:", "JSON"], False),
    "jsonl-not-object": (topics(b'["1", "x"]\n', "jsonl"), 2, ["t.jsonl:1:", "JSON object"], False),
    "jsonl-empty-query": (topics(b'{"qid": "1", "query": " "}\n', "jsonl"), 2, ["t.jsonl:1:", "empty query"], False),
    # ---- collections: special files are never opened
    "collection-fifo": (collection(_fifo), 2, ["pipe.jsonl", "FIFO"], False),
    "collection-symlink-loop": (collection(_loop), 2, ["loop.jsonl", "symbolic link loop"], False),
    # Anserini's walk reads hidden files and folders too, so a hidden FIFO would hang it
    "collection-hidden-fifo": (collection(_hidden_fifo), 2, [".cache/x.jsonl", "FIFO"], False),
    "collection-dev-zero": (collection(_dev_zero), 2, ["zero.jsonl", "character device"], False),
    "collection-socket": (collection(_socket), 2, ["sock.jsonl", "socket"], False),
    "text-folder-newline-name": (text_folder({"a\nb.txt": b"flow"}), 2, ["line break", "document id"], False),
    "text-folder-space-name": (text_folder({"a b.txt": b"flow"}), 2, ["a space", "'a b.txt'"], False),
    "text-folder-not-utf8": (text_folder({"a.txt": b"caf\xe9"}), 2, ["a.txt", "not UTF-8"], False),
    # ---- collections that reach Anserini
    "collection-corrupt-gz": (collection(_corrupt_gz), 2, ["docs.jsonl.gz", "not a valid compressed file"], True),
    "collection-doc-over-jackson-limit": (
        collection(_docs([DOCS[0], {"id": "huge", "contents": "w " * 10_500_000}])),
        2,
        ["docs.jsonl:2:", "'huge'", "20,000,000"],
        True,
    ),
    "collection-id-over-lucene-term-limit": (
        collection(_docs([DOCS[0], {"id": "x" * 40_000, "contents": "flow"}])),
        2,
        ["docs.jsonl:2:", "40,000 bytes"],
        True,
    ),
    "trec-docno-over-lucene-term-limit": (
        collection(
            lambda folder: (
                (folder / "docs.jsonl").unlink(),
                (folder / "a.trec").write_text(
                    "<DOC>\n<DOCNO>d1</DOCNO>\n<TEXT>\nflow\n</TEXT>\n</DOC>\n"
                    f"<DOC>\n<DOCNO>{'x' * 40_000}</DOCNO>\n<TEXT>\nplate\n</TEXT>\n</DOC>\n"
                ),
            ),
            "trec",
        ),
        2,
        ["a.trec:8:", "<DOCNO>", "40,000 bytes"],
        True,
    ),
    # Anserini would turn a number into its text, an array or object into no words, and throw on
    # null (printing a Java stack trace): refused before Java reads the file, naming the line
    **{
        f"collection-contents-{kind}": (
            collection(_docs([DOCS[0], {"id": "d2", "meta": {"contents": "x"}, "contents": value}])),
            2,
            ["docs.jsonl:2:", '"contents" must be a string', f"(it is {words})"],
            False,
        )
        for kind, value, words in (
            ("null", None, "null"),
            ("number", 1.50, "the number 1.5"),
            ("array", ["flow"], "an array"),
            ("object", {"a": "flow"}, "an object"),
            ("boolean", False, "the boolean false"),
        )
    },
    # Lucene refuses a vector longer than 4,096 inside Anserini's indexer thread, which then
    # indexes nothing and says why only in its log ("read 0 of 1 JSON lines")
    "vectors-over-lucene-dimension-limit": (
        lambda c: (
            (c.root / "v.jsonl").write_text(json.dumps({"docid": "a", "vector": [0.5] * 4097}) + "\n"),
            (c.root / "q.jsonl").write_text(json.dumps({"qid": "1", "vector": [0.5] * 3}) + "\n"),
            c.run(
                collection={"path": "v.jsonl", "format": "vectors"},
                topics={"path": "q.jsonl", "format": "vectors"},
                runs=[{"knn": {}}],
            ),
        )[-1],
        2,
        ["v.jsonl:1:", "4,097 dimensions", "at most 4,096"],
        True,
    ),
    # numbers each a float32 whose squares add up beyond one: Lucene's float32 dot product
    # overflows (int8 HNSW found nothing, flat scored inf)
    "vectors-squared-length-beyond-float32": (
        lambda c: (
            (c.root / "v.jsonl").write_text(
                json.dumps({"docid": "a", "vector": [0.5, 0.5]})
                + "\n"
                + json.dumps({"docid": "b", "vector": [2e19, 0]})
                + "\n"
            ),
            (c.root / "q.jsonl").write_text(json.dumps({"qid": "1", "vector": [0.5, 0.5]}) + "\n"),
            c.run(
                collection={"path": "v.jsonl", "format": "vectors"},
                topics={"path": "q.jsonl", "format": "vectors"},
                runs=[{"knn": {}}],
            ),
        )[-1],
        2,
        ["v.jsonl:2:", "squared length is 4e+38", "would overflow"],
        True,
    ),
    "query-vector-squared-length-beyond-float32": (
        lambda c: (
            (c.root / "v.jsonl").write_text(json.dumps({"docid": "a", "vector": [0.5, 0.5]}) + "\n"),
            (c.root / "q.jsonl").write_text(json.dumps({"qid": "1", "vector": [1.5e19, -1.5e19]}) + "\n"),
            c.run(
                collection={"path": "v.jsonl", "format": "vectors"},
                topics={"path": "q.jsonl", "format": "vectors"},
                runs=[{"knn": {}}],
            ),
        )[-1],
        2,
        ["q.jsonl:1:", "squared length is 4.5e+38", "would overflow"],
        False,
    ),
    "collection-id-with-space": (
        collection(_docs([DOCS[0], {"id": "d 2", "contents": "flow"}])),
        2,
        ["'d 2'", "a space"],
        True,
    ),
    # ---- values Lucene would reject, caught by validate (no Java)
    "depth-over-java-int": (_yaml("depth: 2147483648\n"), 2, ["c.yaml:8: depth", "<= 2,147,483,647"], False),
    # Python reads no decimal integer of over 4,300 digits, and prints no binary one read:
    # "internal error: ValueError: Exceeds the limit (4300 digits)" (exit 3)
    "depth-of-5000-digits": (
        _yaml("depth: 1" + "0" * 5000 + "\n"),
        2,
        ["c.yaml:8: depth: an integer thousands"],
        False,
    ),
    "k1-binary-of-20000-digits": (
        _yaml("runs: [{bm25: {k1: 0b" + "1" * 20000 + "}}]\n"),
        2,
        ["c.yaml:8: runs[0].bm25.k1: an integer thousands of digits long"],
        False,
    ),
    "bm25-k1-infinite-as-float": (
        _with_runs([{"bm25": {"k1": 1e39}}]),
        2,
        ["runs[0].bm25.k1", "largest Java float"],
        False,
    ),
    "dirichlet-mu-1e300": (_with_runs([{"dirichlet": {"mu": 1e300}}]), 2, ["dirichlet.mu", "Java float"], False),
    "jm-lambda-zero-as-float": (_with_runs([{"jm": {"lambda": 1e-50}}]), 2, ["jm.lambda", "becomes 0"], False),
    # Anserini takes these as Java ints: the search failed after indexing, "Python int too large
    # to convert to C long" (exit 3)
    "rm3-fb-terms-over-java-int": (
        _with_runs([{"bm25": {"rm3": {"fb_terms": 10**26}}}]),
        2,
        ["runs[0].bm25.rm3.fb_terms", "at most 2,147,483,647, the largest Java int"],
        False,
    ),
    "axiomatic-query-len-over-java-int": (
        _with_runs([{"axiomatic": {"function": "f3exp", "query_len": 3_000_000_000}}]),
        2,
        ["runs[0].axiomatic.query_len", "largest Java int (got 3000000000)"],
        False,
    ),
    # a LocalCluster of 10**26 worker processes (each with a JVM) passed validate
    "dask-workers-10e26": (
        _config(execution={"engine": "dask", "workers": 10**26, "index_shards": 10**26}),
        2,
        ["execution.workers: must be an integer <= 1,024", "execution.index_shards: must be an integer <= 1,024"],
        False,
    ),
    # a run's name names its file (out/runs/NAME.trec): '.' made '..trec', a hidden file
    "run-name-dot": (
        lambda c: c.run(runs=[{"bm25": {}}, {"name": ".", "jm": {}}]),
        2,
        ["runs[1].name", "must not start with '.'", "(got '.')"],
        False,
    ),
    "run-name-dotdot": (_with_runs([{"name": "..", "bm25": {}}]), 2, ["runs[0].name", "start with '.'"], False),
    "run-name-hidden": (_with_runs([{"name": ".bm25", "bm25": {}}]), 2, ["runs[0].name", "start with '.'"], False),
    "run-name-backslash": (_with_runs([{"name": "a\\b", "bm25": {}}]), 2, ["runs[0].name", "'\\'"], False),
    "run-name-nul": (_with_runs([{"name": "a\x00b", "bm25": {}}]), 2, ["runs[0].name", "control"], False),
    "threads-100000": (_config(index={"threads": 100000}), 2, ["index.threads", "<= 1,024"], False),
    "permutations-10e12": (
        _yaml("compare: {permutations: 1000000000000}\nruns: [{bm25: {k1: [0.9, 1.2]}}]\n"),
        2,
        ["c.yaml:8: compare.permutations", "<= 10,000,000"],
        False,
    ),
    "bootstrap-samples-10e12": (
        _config(compare={"bootstrap_samples": 10**12}, runs=[{"bm25": {"k1": [0.9, 1.2]}}]),
        2,
        ["compare.bootstrap_samples", "<= 10,000,000"],
        False,
    ),
    # counted before the grid is expanded (validate filled the memory expanding it)
    "runs-grid-of-10e10": (
        _with_runs(
            [
                {"bm25": {"k1": [i / 100 for i in range(1, 1001)], "b": [i / 1000 for i in range(1000)]}},
                {
                    "bm25": {
                        "k1": [i / 100 for i in range(1, 101)],
                        "b": [i / 1000 for i in range(100)],
                        "rm3": {"fb_terms": list(range(1, 1001)), "fb_docs": list(range(1, 51))},
                    }
                },
            ]
        ),
        2,
        ["runs[0].bm25: this grid is 1,000 x 1,000 = 1,000,000 runs", "at most 100,000 runs", "runs[1].bm25"],
        False,
    ),
    "tolerance-infinite": (_yaml("expect_tolerance: .inf\n"), 2, ["expect_tolerance", "finite"], False),
    "measure-typo": (_config(measures=["mapp"]), 2, ["measures[0]", "did you mean 'map' (= AP)?"], False),
    "measure-alias-twice": (_config(measures=["map", "AP"]), 2, ["measures[1]", "both are AP"], False),
    "topics-path-fifo": (
        lambda c: (os.mkfifo(c.root / "fifo"), ["validate", c.yaml(topics={"path": "fifo"})])[1],
        2,
        ["topics.path", "FIFO"],
        False,
    ),
    "collection-path-is-a-device": (
        _config(collection={"path": "/dev/zero", "format": "jsonl"}),
        2,
        ["collection.path", "character device"],
        False,
    ),
    "topics-path-symlink-loop": (
        lambda c: (os.symlink("l", c.root / "l"), ["validate", c.yaml(topics={"path": "l"})])[1],
        2,
        ["topics.path", "loop"],
        False,
    ),
    # ---- commands on files
    "evaluate-empty-qrels": (_evaluate(""), 2, ["q.txt", "no judgments"], False),
    # Python reads no integer of over 4,300 digits: "internal error: ValueError" (exit 3)
    "evaluate-label-of-5000-digits": (
        _evaluate("1 0 d1 1" + "0" * 5000 + "\n"),
        2,
        ["q.txt:1: relevance label (field 4) must be an integer"],
        False,
    ),
    "fuse-rank-of-5000-digits": (
        _fuse(runs=("1 Q0 d1 1" + "0" * 5000 + " 2.0 x\n", RUN_B)),
        2,
        ["r0.trec:1: rank (field 4) must be an integer"],
        False,
    ),
    "evaluate-measure-typo": (_evaluate(QRELS, "-m", "ndcg_cutt_10"), 2, ["did you mean 'ndcg_cut'"], False),
    "compare-permutations-10e12": (
        _compare("--baseline", "run", "-m", "AP", "--test", "randomization", "--permutations", str(10**12)),
        2,
        ["permutations", "10,000,000"],
        False,
    ),
    # ---- trec_eval
    "trec_eval-qrels_jg-label-over-int64": (
        _trec_eval("1 0 d1 99999999999999999999\n", "-R", "qrels_jg", "-m", "qrels_jg"),
        2,
        ["j.txt:1:", "relevance label (field 4) must be an integer"],
        False,
    ),
    # trec_eval allocates a counter per level 0..label for these measures and refuses every
    # measure at 2**40 ("Can't calculate measure"); numpy asked for 8 TiB (MemoryError, exit 3)
    "trec_eval-label-2**40-infAP": (
        _trec_eval("1 0 d1 1099511627776\n1 0 d2 1\n", "-m", "infAP"),
        2,
        ["j.txt: a relevance label of 1,099,511,627,776", "relabel the judgments"],
        False,
    ),
    "evaluate-label-2**40-G": (
        _evaluate("1 0 d1 1099511627776\n1 0 d2 1\n", "-m", "G"),
        2,
        ["q.txt: a relevance label of 1,099,511,627,776", "infAP, G, binG"],
        False,
    ),
    "trec_eval-run-is-a-folder": (
        lambda c: ["trec_eval", str(c.root / "qrels.txt"), str(c.root / "docs")],
        2,
        ["docs: is a folder"],
        False,
    ),
    # ---- fuse: nothing is written, no input or file of the user's is replaced
    "fuse-alpha-nan": (_fuse("--method", "interpolation", "--alpha", "nan"), 2, ["alpha must be a finite"], False),
    "fuse-weights-inf": (
        _fuse("--method", "combsum", "--weights", "inf", "1"),
        2,
        ["weights must be finite"],
        False,
    ),
    "fuse-scores-overflow": (
        _fuse("--method", "normalize", runs=("1 Q0 d1 1 1e308 x\n1 Q0 d2 2 -1e308 x\n", RUN_B)),
        2,
        ["topic '1'", "NaN", "overflowing float64"],
        False,
    ),
    "fuse-rrf-rank-0-with-k-0": (
        _fuse("--rrf-k", "0", runs=("1 Q0 d1 0 2.0 x\n1 Q0 d3 1 1.0 x\n", RUN_B)),
        2,
        ["r0.trec: topic '1', document 'd1': rank 0 with rrf_k 0", "rank + rrf_k >= 1"],
        False,
    ),
    "fuse-output-is-an-input": (_fuse(output="r0.trec"), 2, ["r0.trec: is also an input run"], False),
    "fuse-output-is-a-folder": (_fuse(output="docs"), 2, ["docs: is a folder"], False),
    "fuse-output-is-a-fifo": (
        _fuse(output=lambda root: (os.mkfifo(root / "pipe"), root / "pipe")[1]),
        2,
        ["pipe: is not a regular file"],
        False,
    ),
    "fuse-output-is-the-users-file": (
        _fuse(output=lambda root: ((root / "notes.txt").write_text("mine\n"), root / "notes.txt")[1]),
        2,
        ["notes.txt: exists and is not a run the harness fused"],
        False,
    ),
    "fuse-output-empty-path": (_fuse(output=lambda root: ""), 2, ["--output: an empty path"], False),
    "compare-bootstrap-on-2-topics": (
        _compare("--baseline", "run", "-m", "AP", "--test", "bootstrap"),
        2,
        ["bootstrap test needs at least 10 topics (got 2)"],
        False,
    ),
}
# evaluate needs -m; added where a case does not give it
for _name in ("evaluate-empty-qrels", "evaluate-label-of-5000-digits"):
    _b = CASES[_name][0]
    CASES[_name] = (lambda c, _b=_b: [*_b(c), "-m", "AP"], *CASES[_name][1:])


def snapshot(root: Path, skip=("out", "indexes")) -> dict[str, tuple]:
    """Every entry under root (outputs excepted): kind, size and a hash of regular files.
    Entries are lstat-ed, never opened unless regular (a FIFO must not block the test)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        if rel.parts and rel.parts[0] in skip:
            continue
        dirs[:] = [d for d in dirs if not (not rel.parts and d in skip)]
        for n in files + dirs:
            p = Path(dirpath, n)
            st = os.lstat(p)
            digest = None
            if stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
            out[str(p.relative_to(root))] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns, digest)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_input(name, tmp_path):
    build, code, parts, _java = CASES[name]
    case = Case(tmp_path)
    argv = build(case)
    before = snapshot(tmp_path)
    env = {**os.environ, "HARNESS_INDEXES": str(tmp_path / "indexes")}
    r = subprocess.run(
        [sys.executable, "-m", "harness", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == code, (r.returncode, r.stderr[-3000:])
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert "java.lang." not in r.stdout + r.stderr, (r.stdout + r.stderr)[-3000:]  # no Java stack trace
    assert "harness: error:" in r.stderr
    for part in parts:
        assert part in r.stderr, (part, r.stderr[-3000:])
    assert snapshot(tmp_path) == before, "an input changed"
    assert not (tmp_path / "out").exists() or name.startswith("compare"), "a failed run wrote its output"


def test_debug_shows_anserinis_own_log(tmp_path):
    """Anserini's log (and the stack trace it prints for a document Lucene refuses) is hidden,
    the harness naming the line instead; --debug lets it through with the traceback."""
    case = Case(tmp_path)
    case.write_docs([DOCS[0], {"id": "x" * 40_000, "contents": "flow"}])
    env = {**os.environ, "HARNESS_INDEXES": str(tmp_path / "indexes")}
    argv = [sys.executable, "-m", "harness", *case.run()]
    quiet = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    loud = subprocess.run([*argv, "--debug"], capture_output=True, text=True, env=env, timeout=300)
    assert quiet.returncode == 2 and "immense term" not in quiet.stdout + quiet.stderr
    assert loud.returncode != 0 and "Traceback" in loud.stderr  # --debug re-raises
    assert "immense term" in loud.stdout + loud.stderr and "at org.apache.lucene" in loud.stdout + loud.stderr


def test_catalogue_size():
    assert len(CASES) >= 30


def test_the_fingerprint_covers_the_hidden_files_anserini_reads(tmp_path):
    from harness.engine.corpus import Corpus

    (tmp_path / "a.jsonl").write_text(json.dumps(DOCS[0]) + "\n")
    corpus = Corpus(tmp_path, "jsonl")
    before = corpus.fingerprint()
    (tmp_path / ".more.jsonl").write_text(json.dumps(DOCS[1]) + "\n")  # IndexCollection indexes it
    assert corpus.fingerprint() != before
    assert [f.name for f in corpus.files()] == [".more.jsonl", "a.jsonl"]
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.txt").write_text("flow")
    (tmp_path / "t" / ".notes.txt").write_text("not a document")  # a text folder is converted by us
    assert [f.name for f in Corpus(tmp_path / "t", "text-folder").files()] == ["a.txt"]


@pytest.mark.parametrize(
    "argv",
    [
        ["trec_eval", "{q}", "{r}"],
        ["trec_eval", "-R", "qrels_prefs", "-m", "all_prefs", "{q}", "{r}"],
        ["evaluate", "{r}", "{q}", "-m", "AP"],
    ],
    ids=["trec_eval", "trec_eval-prefs", "evaluate"],
)
def test_a_score_beyond_float32_is_inf_without_a_warning(argv, tmp_path):
    """trec_eval holds scores as float32: 1e39 becomes inf there, as C's cast makes it, quietly
    (numpy's RuntimeWarning, with a line of the harness's source, went to stderr)."""
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.trec").write_text("1 Q0 d1 1 1e39 x\n1 Q0 d3 2 1.0 x\n")
    argv = [a.format(q=tmp_path / "q.txt", r=tmp_path / "r.trec") for a in argv]
    r = subprocess.run([sys.executable, "-m", "harness", *argv], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Warning" not in r.stderr, r.stderr
