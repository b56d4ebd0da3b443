"""Golden outputs: what the harness writes and prints for a fixed set of inputs, normalised and
kept in tests/golden/. ``tests/test_golden.py`` runs every case and compares, so a restructuring
that changes a run file, a per-topic value, a mean, a p-value or a printed line is caught.

    .venv/bin/python -m tests.golden capture        # write tests/golden/ from the code as it is
    .venv/bin/python -m tests.golden check          # compare (what the test does)

Only a deliberate behaviour change may re-capture, in its own commit that says why.

Normalisation, and nothing else: the temporary root, the repository and ../shared become
``<TMP>``, ``<REPO>``, ``<SHARED>``; timing fields are dropped (JSON keys ``seconds``,
``timings_seconds``, ``built_at``; the ``seconds`` column of Markdown and HTML tables; "in 0.04 s"
in progress lines); the search times' figures that vary from run to run are masked, their keys
kept (a run's ``latency`` in JSON: ``qps``, ``mean_ms``, ``p50_ms``, ``p95_ms``, ``p99_ms``,
``index_bytes``; the same columns of the latency tables; the effectiveness-against-latency chart,
whole); ``versions`` (Java home, library versions), the ``machine`` and the harness's
``checkout`` are dropped, and so are each run's ir_metadata platform and source. ``report.html`` is
compared as a DOM (element tree, attributes, text after entity decoding and whitespace
collapsing), so an equivalent spelling of an entity is not a change.

Every case runs the CLI in a subprocess (``python -m harness``), as a user would, from a temporary
folder laid out like the repository, so the configs are byte-identical to the shipped ones.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
GOLDEN = REPO / "tests" / "golden"

# The markup-laden sweep of tests/test_report.py (ids and text that carry HTML).
EVIL_QID = "<script>alert(1)</script>&x"
EVIL_TEXT = 'wing flow <img src=x onerror="alert(2)"> & "quotes"'
EVIL_DOC = "<b>doc&1</b>"
EVIL_DOCS = [
    (EVIL_DOC, "wing flow over a flat plate in a slipstream"),
    ("d2", "boundary layer flow past a wing"),
    ("d3", "heat transfer in supersonic flow"),
    ("d4", "slipstream effects on wing lift"),
    ("d5", "flat plate boundary layer transition"),
    ("d6", "supersonic wing flutter & heat"),
]
EVIL_TOPICS = [(EVIL_QID, EVIL_TEXT), ("q2", "boundary layer"), ("q3", "supersonic heat"), ("q4", "slipstream lift")]
EVIL_QRELS = [
    (EVIL_QID, EVIL_DOC, 1),
    (EVIL_QID, "d4", 1),
    ("q2", "d2", 1),
    ("q2", "d5", 2),
    ("q3", "d3", 1),
    ("q3", "d6", 1),
    ("q4", "d4", 2),
    ("q4", EVIL_DOC, 1),
]
EVIL_CONFIG = textwrap.dedent("""\
    name: evil
    collection: {path: corpus.jsonl, format: jsonl}
    index: {path: index}
    topics: topics.tsv
    qrels: qrels.txt
    runs:
      - bm25: {k1: [0.9, 1.5], b: 0.4}
      - dirichlet: {mu: [10, 100]}
    measures: [AP, nDCG@10, P@5]
    compare:
      baseline: all-pairs
      test: randomization
      permutations: 2000
      cross_validation: {folds: 2}
    output: report
""")

DEMO_RUNS = "reports/demo/runs"
BM25 = "bm25"  # the demo run's name (its spec: bm25(k1=0.9,b=0.4))
LAB = ["lab", "--index", "corpora"]


@dataclass
class Command:
    """One CLI call; its stdout, stderr and exit code are part of the golden output."""

    name: str
    argv: list[str]
    cwd: str = "."  # relative to the case's root
    glob: str = ""  # argv words ending in '*' are expanded against the cwd (sorted)


@dataclass
class Case:
    name: str
    commands: list[Command]
    reports: list[str] = field(default_factory=list)  # report folders (relative) whose files are golden
    needs_shared: bool = False


CASES = [
    Case(
        "demo",
        [
            Command("run", ["run", "configs/demo.yaml"]),
            Command("run-dry", ["run", "--dry-run", "configs/demo.yaml"]),
            Command("index-dry", ["index", "--dry-run", "configs/demo.yaml"]),
            Command("search-dry", ["search", "--dry-run", "configs/demo.yaml"]),
            Command("validate", ["validate", "configs/demo.yaml"]),
            Command("validate-bad", ["validate", "tests/configs/bad.yaml"]),
            Command(
                "evaluate-q",
                ["evaluate", f"{DEMO_RUNS}/{BM25}.trec", "qrels/demo.txt", "-m", "AP", "nDCG@10", "P@10", "RR", "-q"],
            ),
            Command(
                "evaluate-counts",
                [
                    "evaluate",
                    f"{DEMO_RUNS}/jm.trec",
                    "qrels/demo.txt",
                    "-m",
                    "NumRel",
                    "NumRelRet",
                    "Rprec",
                ],
            ),
            Command(
                "compare-t",
                [
                    "compare",
                    f"{DEMO_RUNS}/*.trec",
                    "--qrels",
                    "qrels/demo.txt",
                    "--baseline",
                    BM25,
                    "-m",
                    "AP",
                    "nDCG@10",
                ],
            ),
            Command(
                "compare-randomization",
                [
                    "compare",
                    f"{DEMO_RUNS}/*.trec",
                    "--qrels",
                    "qrels/demo.txt",
                    "--baseline",
                    BM25,
                    "-m",
                    "AP",
                    "P@10",
                    "--test",
                    "randomization",
                    "--seed",
                    "1",
                ],
            ),
            Command(
                "lab-relevance",
                [
                    *LAB,
                    "--queries",
                    "vector space model",
                    "information retrieval",
                    "--relevance",
                    "vector space model:1,0,1,0,0,0,0,0,0,0",
                    "information retrieval:0,1,1,0,0,0,0,0,0,0",
                    "--similarity",
                    "bm25",
                    "--topk",
                    "10",
                ],
            ),
            Command(
                "lab-doc-relevance",
                [
                    *LAB,
                    "--queries",
                    "vector space model",
                    "--doc-relevance",
                    "sample_docs/vsm_mixed.txt:1 sample_docs/boost_vector.txt:1",
                    "--similarity",
                    "bm25",
                    "--topk",
                    "10",
                ],
            ),
            Command(
                "lab-dirichlet",
                [
                    *LAB,
                    "--queries",
                    "language model",
                    "query likelihood",
                    "--relevance",
                    "language model:1,1,0,0,0",
                    "query likelihood:1,0,1,0,0",
                    "--similarity",
                    "dirichlet",
                    "--mu",
                    "2000",
                    "--topk",
                    "5",
                ],
            ),
            Command(
                "lab-jm",
                [*LAB, "--queries", "language model", "--similarity", "jm", "--lambda", "0.2", "--topk", "5"],
            ),
            Command("search", ["search", "configs/demo.yaml"]),
        ],
        reports=["reports/demo"],
    ),
    Case("evil", [Command("run", ["run", "c.yaml"], cwd="evil")], reports=["evil/report"]),
    Case(
        "cranfield-sweep",
        [Command("run", ["run", "tests/configs/cranfield-sweep.yaml"])],
        reports=["reports/cranfield-sweep"],
        needs_shared=True,
    ),
]


# ------------------------------------------------------------------------------ running a case
def lay_out(root: Path) -> None:
    """A folder laid out like the repository (the shipped configs, data and ../shared beside it)."""
    for sub in ("configs", "corpora", "topics", "qrels", "tests/configs"):
        shutil.copytree(REPO / sub, root / "repo" / sub)
    (root / "repo" / "indexes").mkdir()
    if SHARED.exists():
        (root / "shared").symlink_to(SHARED)
    evil = root / "repo" / "evil"
    evil.mkdir()
    (evil / "corpus.jsonl").write_text("".join(json.dumps({"id": i, "contents": t}) + "\n" for i, t in EVIL_DOCS))
    (evil / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in EVIL_TOPICS))
    (evil / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in EVIL_QRELS))
    (evil / "c.yaml").write_text(EVIL_CONFIG)


def _argv(cmd: Command, cwd: Path) -> list[str]:
    out = []
    for word in cmd.argv:
        if "*" in word:
            out.extend(sorted(str(p.relative_to(cwd)) for p in cwd.glob(word)))
        else:
            out.append(word)
    return out


def run_case(case: Case, root: Path) -> dict[str, str]:
    """{golden file name: normalised text} for one case, run under ``root`` (laid out)."""
    repo = root / "repo"
    # No HARNESS_ setting of the caller's but the JVM's options (tests/conftest.py: which collector,
    # class archive and compiler; how fast, not what a run gives)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "PYTEST")) or k == "HARNESS_JAVA_OPTS"}
    env.update(HARNESS_INDEXES=str(repo / "indexes"), COLUMNS="120", NO_COLOR="1")
    out: dict[str, str] = {}
    subs = substitutions(root)
    for cmd in case.commands:
        cwd = repo / cmd.cwd
        p = subprocess.run(
            [sys.executable, "-m", "harness", *_argv(cmd, cwd)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
        out[f"{cmd.name}.stdout"] = normalise_text(p.stdout, subs)
        out[f"{cmd.name}.stderr"] = normalise_text(p.stderr, subs)
        out[f"{cmd.name}.exit"] = f"{p.returncode}\n"
    for report in case.reports:
        folder = repo / report
        for f in sorted(folder.rglob("*")):
            if f.is_dir() or f.name.startswith("."):
                continue
            rel = f.relative_to(folder).as_posix()
            key = f"{Path(report).name}/{rel}"
            out[key] = normalise_file(f, subs)
    return out


def substitutions(root: Path) -> list[tuple[str, str]]:
    subs = [(str(root / "repo"), "<REPO>"), (str(root / "shared"), "<SHARED>"), (str(root), "<TMP>")]
    if SHARED.exists():
        subs.insert(0, (str(SHARED.resolve()), "<SHARED>"))
    subs.append((str(REPO), "<SOURCE>"))
    return subs


# ------------------------------------------------------------------------------ normalising
_SECONDS = re.compile(r"\b(in|built in) \d+\.\d+ s\b")
_TIMING = re.compile(r"\b\d+\.\d+ s\b")  # in report.html: "index 1.53 s, search 0.17 s, total 1.85 s"
# A golden file larger than this is kept as its digest (Cranfield's run files are ~10 MB each):
# exact, though a difference then shows as two digests rather than lines.
DIGEST_OVER = 256 * 1024


def _sub(text: str, subs) -> str:
    for a, b in subs:
        text = text.replace(a, b)
    return text


def normalise_text(text: str, subs) -> str:
    text = _sub(text, subs)
    text = _SECONDS.sub(r"\1 <S> s", text)
    return _markdown_seconds(text)


# The columns of Markdown and HTML tables whose cells are timings (the runs' seconds, the
# latency table's figures), masked; and the JSON keys of a run's latency masked likewise.
_TIMED_COLUMNS = {"seconds", "qps", "mean ms", "p50 ms", "p95 ms", "p99 ms", "index MB"}
_MASKED_KEYS = {"qps", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "index_bytes"}


def _markdown_seconds(text: str) -> str:
    """The timed columns of Markdown tables (:data:`_TIMED_COLUMNS`) and the versions line, masked."""
    lines, cols = text.split("\n"), None
    for i, line in enumerate(lines):
        if line.startswith("- versions: "):
            lines[i] = "- versions: <VERSIONS>"
            continue
        if not line.startswith("|"):
            cols = None
            continue
        cells = line.split("|")
        if cols is None:
            cols = [k for k, c in enumerate(cells) if c.strip() in _TIMED_COLUMNS]
        elif cols and not set(line) <= set("|-: "):
            for k in cols:
                cells[k] = " <S> " if cells[k].strip() else cells[k]
            lines[i] = "|".join(cells)
    return "\n".join(lines)


# versions, the machine and the harness's checkout: the machine's own (manifest.json, ir_metadata)
_DROPPED_KEYS = {"seconds", "timings_seconds", "built_at", "versions", "machine", "checkout"}
# a run's ir_metadata (runs/*.ir-metadata.yml): its platform (the machine, the versions) and the
# harness's checkout (repository, commit) are the machine's own
_IR_METADATA_MASKED = {"platform": None, "implementation": {"source": None}}


def _json(value):
    if isinstance(value, dict):
        return {
            k: "<MASKED>" if k in _MASKED_KEYS and v is not None else _json(v)
            for k, v in value.items()
            if k not in _DROPPED_KEYS
        }
    if isinstance(value, list):
        return [_json(v) for v in value]
    return value


def normalise_file(path: Path, subs) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.dumps(_json(json.loads(_sub(text, subs))), indent=1, ensure_ascii=False) + "\n"
    if path.suffix == ".html":
        return "\n".join(dom(_sub(text, subs))) + "\n"
    if path.name.endswith(".ir-metadata.yml"):
        doc = yaml.safe_load(_sub(text, subs))
        return yaml.safe_dump(_masked(doc, _IR_METADATA_MASKED), sort_keys=False, allow_unicode=True)
    if path.suffix == ".tex":
        text = _sub(text, subs)
        return re.sub(r"(?m)^(.*versions.*)$", "<VERSIONS>", text)
    return normalise_text(text, subs)


def _masked(doc: dict, mask: dict) -> dict:
    """``doc`` with the keys ``mask`` names replaced by "<MASKED>" (None) or masked within (a dict)."""
    out = dict(doc)
    for key, inner in mask.items():
        if key in out:
            out[key] = "<MASKED>" if inner is None else _masked(out[key], inner)
    return out


class _Dom(html.parser.HTMLParser):
    """A page as lines: start tags with sorted attributes, end tags, collapsed text. The cells of
    a table column headed as a timing (:data:`_TIMED_COLUMNS`), the `versions` entry and the
    effectiveness-against-latency chart (all but its `<svg>` tag) are masked."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.row: list[str] = []
        self.cell = -1
        self.seconds_col: list[set[int]] = []
        self.headers: list[list[str]] = []
        self.masked = False
        self.after_versions = False
        self.in_scatter = 0  # depth inside the latency chart (its dots sit where the times put them)

    def handle_starttag(self, tag, attrs):
        if self.in_scatter:
            self.in_scatter += 1
            return
        self.lines.append(f"<{tag}" + "".join(f" {k}={v!r}" for k, v in sorted(attrs, key=lambda a: a[0])) + ">")
        if tag == "svg" and "scatter-chart" in (dict(attrs).get("class") or ""):
            self.in_scatter = 1
            self.lines.append("#svg <MASKED>")
        elif tag == "table":
            self.seconds_col.append(set())
            self.headers.append([])
        elif tag == "tr":
            self.cell = -1
        elif tag in ("td", "th"):
            self.cell += 1
            cols = self.seconds_col[-1] if self.seconds_col else set()
            self.masked = tag == "td" and self.cell in cols
        elif tag == "dd" and self.after_versions:
            self.masked = True

    def handle_endtag(self, tag):
        if self.in_scatter:
            self.in_scatter -= 1
            if self.in_scatter:
                return
        self.lines.append(f"</{tag}>")
        if tag == "table" and self.seconds_col:
            self.seconds_col.pop()
            self.headers.pop()
        if tag in ("td", "th", "dd"):
            self.masked = False
            if tag == "dd":
                self.after_versions = False

    def handle_data(self, data):
        text = " ".join(data.split())
        if not text or self.in_scatter:
            return
        if self.masked:
            self.lines.append("#text <MASKED>")
            return
        if self.lasttag == "th" and text in _TIMED_COLUMNS and self.seconds_col:
            self.seconds_col[-1].add(self.cell)
        if self.lasttag == "dt":
            self.after_versions = text == "versions"
        self.lines.append("#text " + _TIMING.sub("<S> s", text))


def dom(page: str) -> list[str]:
    d = _Dom()
    d.feed(page)
    d.close()
    return d.lines


# ------------------------------------------------------------------------------ capture / check
def produce(cases=CASES) -> dict[str, dict[str, str]]:
    results = {}
    with tempfile.TemporaryDirectory(prefix="harness-golden-") as tmp:
        root = Path(tmp).resolve()
        lay_out(root)
        for case in cases:
            results[case.name] = run_case(case, root)
    return results


def capture(cases=CASES) -> None:
    results = produce(cases)
    for case in cases:
        folder = GOLDEN / case.name
        if folder.exists():
            shutil.rmtree(folder)
        for key, text in results[case.name].items():
            target = folder / key
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(digest(text), encoding="utf-8")
        print(f"{case.name}: {len(results[case.name])} files written to {folder.relative_to(REPO)}")


def digest(text: str) -> str:
    if len(text) <= DIGEST_OVER:
        return text
    import hashlib

    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f"digest of a {len(text)}-character file ({text.count(chr(10))} lines): sha256 {sha}\n"


def expected(case: Case) -> dict[str, str]:
    folder = GOLDEN / case.name
    return {f.relative_to(folder).as_posix(): f.read_text(encoding="utf-8") for f in folder.rglob("*") if f.is_file()}


def differences(case: Case, got: dict[str, str]) -> list[str]:
    """Readable differences between the golden files of ``case`` and ``got`` (empty: equal)."""
    import difflib

    want = expected(case)
    got = {k: digest(v) for k, v in got.items()}
    out = []
    for key in sorted(set(want) | set(got)):
        if key not in got:
            out.append(f"{case.name}/{key}: no longer written")
        elif key not in want:
            out.append(f"{case.name}/{key}: new (not in the golden outputs)")
        elif want[key] != got[key]:
            diff = difflib.unified_diff(
                want[key].splitlines(), got[key].splitlines(), "golden", "now", n=1, lineterm=""
            )
            out.append(f"{case.name}/{key}:\n" + "\n".join(list(diff)[:40]))
    return out


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "check"
    names = argv[1:]
    cases = [c for c in CASES if not names or c.name in names]
    if what == "capture":
        capture(cases)
        return 0
    results = produce(cases)
    problems = [d for c in cases for d in differences(c, results[c.name])]
    print("\n\n".join(problems) if problems else "golden outputs: equal")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
