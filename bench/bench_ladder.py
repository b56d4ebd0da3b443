#!/usr/bin/env python3
"""The scale ladder (issue 37): MS MARCO passage's shape at 100k, 1M and (on request) 8.8M passages.

At each rung, in one run of this script, every figure from a fresh process measured by a small
launcher (bench_e2e.measure: wall, CPU, peak RSS of that process alone):

  index      `harness index CONFIG` against Anserini's IndexCollection from its command line
             (java -cp the fatjar, the same flags and threads: JsonCollection,
             DefaultLuceneDocumentGenerator, -storePositions -storeDocvectors -storeRaw, porter,
             stop words removed); documents per second, their ratio.
  run        `harness run CONFIG` (BM25 k1=0.9 b=0.4, depth 1000, MRR@10 and R@1000, the default
             report; the run cache emptied first) against its floor: a process that starts the
             JVM, opens the index, searches the same topics with the harness's searcher and
             writes the run once as TREC text (FLOOR_SCRIPT), the least a user's request needs.
  simple     a SimpleSearcher script (bench_e2e.SIMPLE_SCRIPT: batch_search, pyserini's writer);
             its run is checked identical to the harness's (doc ids, ranks; scores within 1e-4).
  bm25s      bm25s (k1=0.9, b=0.4, its English stop words and Snowball stemmer, k=1000, 2
             threads): the corpus read into memory, indexed, searched, the run written. A rung
             whose corpus would not fit (its peak scaled from the largest rung it ran, against
             the machine's memory) is reported as not run, with that figure.
  disk       the index (without its run cache), the run cache, the output folder, and the unique
             bytes of cache plus output (hard links counted once) against the run's TREC text.

It prints the table and, with --write-docs, puts it and a log-log plot (time and peak memory
against documents; harness/report/svg.py) into docs/performance.md and docs/ladder.svg with the
date, the machine and its load.

    .venv/bin/python bench/bench_ladder.py [--rungs 100k,1M] [--threads 2] [--write-docs]
    .venv/bin/python bench/bench_ladder.py --rungs 8.8M --keep-data   # ~20 GB, tens of minutes
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_e2e import SIMPLE_SCRIPT, measure, same_runs  # noqa: E402  one launcher, one script, one check
from ladder_data import RUNGS, generate  # noqa: E402

HARNESS = [sys.executable, "-m", "harness"]
TAG = "bm25(k1=0.9,b=0.4)"

# The floor of `harness run`: the interpreter, the JVM, the index opened, the topics searched
# with the harness's batch searcher and the run written once as TREC text (RunText, the
# harness's fastest writer); nothing evaluated, no report.
FLOOR_SCRIPT = r"""
import sys
from harness.engine.index import IndexOptions
from harness.engine.search import Searcher
from harness.specs.similarity import Similarity
from harness.engine.topics import read_topics
from harness.formats.runs import write_run
index, topics, out, depth, threads = sys.argv[1:6]
searcher = Searcher(index, IndexOptions())
run = searcher.search_run(read_topics(topics, "tsv"), Similarity.parse("bm25(k1=0.9,b=0.4)"), int(depth), int(threads))
write_run(out, run, "bm25(k1=0.9,b=0.4)")
print(len(run.docids), "hits")
"""

BM25S_SCRIPT = r"""
import json, sys, time
import bm25s, Stemmer
corpus, topics, out, threads = sys.argv[1:5]
ids, texts = [], []
with open(corpus, encoding="utf-8") as f:
    for line in f:
        d = json.loads(line)
        ids.append(d["id"])
        texts.append(d["contents"])
stemmer = Stemmer.Stemmer("english")
t = time.perf_counter()
retriever = bm25s.BM25(k1=0.9, b=0.4)
retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
del texts
built = time.perf_counter() - t
pairs = [l.rstrip("\n").split("\t", 1) for l in open(topics, encoding="utf-8") if l.strip()]
t = time.perf_counter()
q = bm25s.tokenize([text for _, text in pairs], stopwords="en", stemmer=stemmer, show_progress=False)
docs, scores = retriever.retrieve(q, k=1000, n_threads=int(threads), show_progress=False)
with open(out, "w") as f:
    for (qid, _), ds, ss in zip(pairs, docs.tolist(), scores.tolist()):
        f.write("".join(f"{qid} Q0 {ids[d]} {r} {s:.6f} bm25s\n" for r, (d, s) in enumerate(zip(ds, ss), 1) if s > 0))
print(json.dumps({"index_s": built, "search_s": time.perf_counter() - t}))
"""


# ----------------------------------------------------------------------------- helpers
def java() -> Path:
    from harness.engine import lucene

    return lucene.java_home()[0] / "bin" / "java"


def index_collection_cmd(corpus_dir: Path, index: Path, threads: int) -> list:
    """IndexCollection's command line with the flags the harness passes (IndexOptions.anserini)."""
    from harness.engine import lucene
    from harness.engine.index import IndexOptions

    opts = IndexOptions().anserini()
    flags = ["-storePositions", "-storeDocvectors", "-storeRaw"]
    assert opts["storePositions"] and opts["storeDocvectors"] and opts["storeRaw"] and not opts["keepStopwords"]
    return [
        java(),
        "-cp",
        lucene.anserini_jar(),
        "io.anserini.index.IndexCollection",
        "-collection",
        "JsonCollection",
        "-input",
        corpus_dir,
        "-index",
        index,
        "-generator",
        opts["generatorClass"],
        "-threads",
        threads,
        *flags,
        "-stemmer",
        opts["stemmer"],
        "-quiet",
    ]


def config(d: Path, data: dict, threads: int) -> Path:
    cfg = d / "config.yaml"
    cfg.write_text(
        "\n".join(
            [
                f"name: ladder-{d.name}",
                f"collection: {{path: {data['corpus'].parent}, format: jsonl}}",
                f"index: {{path: {d / 'index'}, threads: {threads}}}",
                f"topics: {{path: {data['topics']}, format: tsv}}",
                f"qrels: {data['qrels']}",
                "runs:",
                "  - bm25: {k1: 0.9, b: 0.4}",
                "depth: 1000",
                "measures: [RR@10, R@1000]",
                f"output: {d / 'report'}",
            ]
        )
        + "\n"
    )
    return cfg


def tree_bytes(path: Path, seen: set | None = None) -> int:
    """Bytes on disk of the files under ``path``; with ``seen`` (inodes), each inode once."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            st = os.lstat(os.path.join(root, name))
            if seen is not None:
                if st.st_ino in seen:
                    continue
                seen.add(st.st_ino)
            total += st.st_blocks * 512
    return total


def warm(folder: Path) -> None:
    for root, _, files in os.walk(folder):
        for name in files:
            with open(os.path.join(root, name), "rb") as fh:
                while fh.read(1 << 24):
                    pass


def free_gb(path: Path) -> float:
    return shutil.disk_usage(path).free / 1e9


def mem_gb() -> float:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9


# ----------------------------------------------------------------------------- Ctrl-C at this size
def _leftovers(folder: Path) -> list[str]:
    """The harness's temp folders, temp files and locks below ``folder`` (tests/test_faults.py's rule)."""
    out = []
    for dirpath, dirs, files in os.walk(folder):
        for n in dirs + files:
            if n.startswith(".") and any(k in n for k in (".building-", ".writing-", ".old-", ".tmp", ".lock")):
                out.append(str(Path(dirpath, n).relative_to(folder)))
    return out


def _snapshot(folder: Path, skip: str = "") -> dict:
    return {
        str(f.relative_to(folder)): (f.stat().st_size, f.stat().st_mtime_ns)
        for f in folder.rglob("*")
        if f.is_file() and not (skip and skip in f.parts)
    }


def _interrupt(cmd: list, log: Path, ready, at: float) -> dict:
    """Start ``cmd``, wait until ``ready()`` and ``at`` seconds from its start, send SIGINT (Ctrl-C):
    its exit code, the seconds it took to exit after the signal, and whether stderr shows a traceback."""
    t0 = time.perf_counter()
    with log.open("w") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
        while not ready() or time.perf_counter() - t0 < at:
            if p.poll() is not None:
                return {"rc": p.returncode, "finished": "before the signal", "log": log.read_text()[-500:]}
            time.sleep(0.02)
        sent = time.perf_counter()
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=600)
    text = log.read_text()
    return {
        "rc": rc,
        "signal_at_s": round(sent - t0, 2),
        "exit_after_s": round(time.perf_counter() - sent, 2),
        "traceback": "Traceback" in text,
        "said": "harness: interrupted (SIGINT)" in text,
    }


def _clean(m: dict) -> bool:
    """Exit 130, no traceback, nothing left, what was there unchanged, the next run as a clean one."""
    return (
        m.get("rc") == 130
        and not m.get("traceback")
        and not m.get("left")
        and all(m.get(k, True) for k in ("report_unchanged", "index_unchanged", "next_run_equal"))
    )


def interrupts(d: Path, cfg: Path, r: dict) -> dict:
    """Ctrl-C in the middle of indexing (a second index beside the rung's, at a quarter of its
    build time) and in the middle of `harness run`'s search (the run cache emptied): exit 130 at
    once, nothing of the harness's left below the rung's folder, the report and index as they
    were; then a whole `harness run` whose run equals the timed run's (issue 37 item 4)."""
    out = {}
    other = d / "config-ctrlc.yaml"
    other.write_text(
        cfg.read_text()
        .replace(f"path: {d / 'index'},", f"path: {d / 'index-ctrlc'},")
        .replace(f"output: {d / 'report'}", f"output: {d / 'report-ctrlc'}")
    )
    before = sorted(os.listdir(d))
    m = _interrupt(
        HARNESS + ["run", other],
        d / "ctrlc-index.log",
        lambda: any(".index-ctrlc.building-" in n for n in os.listdir(d)),
        0.25 * r["index"]["seconds"],
    )
    m["left"] = sorted(set(os.listdir(d)) - set(before) - {"ctrlc-index.log"}) + _leftovers(d)
    out["mid-index"] = m
    other.unlink()

    report, index = _snapshot(d / "report"), _snapshot(d / "index", skip="harness-runs")
    (ours,) = (d / "report" / "runs").glob("*.trec")
    text = ours.read_bytes()
    shutil.rmtree(d / "index" / "harness-runs")
    log = d / "ctrlc-search.log"
    # half-way through the search: it starts after the JVM, the index's open and the topics
    start = r["run"]["seconds"] - r["search_s"] * 1.5
    m = _interrupt(
        HARNESS + ["run", cfg], log, lambda: "index reused" in log.read_text(), max(start, 0) + r["search_s"] / 2
    )
    m["searched_before_signal"] = "run bm25" in log.read_text().split("harness: interrupted")[0]
    m["left"] = _leftovers(d)
    m["report_unchanged"] = _snapshot(d / "report") == report
    m["index_unchanged"] = _snapshot(d / "index", skip="harness-runs") == index
    whole = measure(HARNESS + ["run", cfg])
    m["next_run_rc"] = whole["rc"]
    m["next_run_equal"] = ours.read_bytes() == text
    out["mid-search"] = m
    for k, v in out.items():
        ok = _clean(v)
        print(f"[{r['rung']}] Ctrl-C {k}: {'nothing left' if ok else 'FAILED'} {v}", flush=True)
    return out


# ----------------------------------------------------------------------------- one rung
def rung(name: str, n: int, args, bm25s_peak: tuple[int, float] | None) -> dict:
    d = OUT / f"ladder-run-{n}"
    d.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    data = generate(n, OUT, on=lambda s: print(s, flush=True))
    corpus_mb = data["corpus"].stat().st_size / 1e6
    print(f"[{name}] data: {n:,} passages, {corpus_mb:.0f} MB ({time.perf_counter() - t:.1f} s)", flush=True)
    cfg = config(d, data, args.threads)
    r: dict = {"rung": name, "docs": n, "corpus_mb": corpus_mb, "load_start": os.getloadavg()[0]}

    # indexing: alternating whole processes, the medians' throughput
    ours, theirs = [], []
    saved = d / "result.json"
    if args.reuse_index and (d / "index" / "harness-index.json").exists() and saved.exists():
        old = json.loads(saved.read_text())  # the index figures of the run that built it
        for key in ("index", "index_anserini", "index_mb", "index_anserini_mb"):
            r[key] = old[key]
    for _ in range(0 if "index" in r else args.index_repeats):
        shutil.rmtree(d / "index", ignore_errors=True)
        ours.append(measure(HARNESS + ["index", cfg]))
        shutil.rmtree(d / "index-anserini", ignore_errors=True)
        theirs.append(measure(index_collection_cmd(data["corpus"].parent, d / "index-anserini", args.threads)))
        print(f"[{name}] index: harness {ours[-1]['seconds']:.1f} s, IndexCollection {theirs[-1]['seconds']:.1f} s")
    if ours:
        r["index"], r["index_anserini"] = _median(ours), _median(theirs)
        r["index_mb"] = tree_bytes(d / "index") / 1e6
        r["index_anserini_mb"] = tree_bytes(d / "index-anserini") / 1e6
    if not args.keep_data:
        shutil.rmtree(d / "index-anserini", ignore_errors=True)

    # harness run against its floor, alternating, both on an index in the page cache (read once
    # here: the IndexCollection build just before evicts much of a large one)
    warm(d / "index")
    runs, floors = [], []
    for _ in range(args.repeat):
        shutil.rmtree(d / "index" / "harness-runs", ignore_errors=True)
        runs.append(measure(HARNESS + ["run", cfg]))
        floors.append(
            measure(
                [sys.executable, "-c", FLOOR_SCRIPT, d / "index", data["topics"], d / "floor.trec", 1000, args.threads]
            )
        )
    r["run"], r["floor"] = _median(runs), _median(floors)
    ours_run = d / "report" / "runs" / f"{TAG}.trec"
    if not ours_run.exists():
        ours_run = next((d / "report" / "runs").glob("*.trec"))
    r["text_mb"] = ours_run.stat().st_size / 1e6
    # the search alone (the run's seconds in the report's manifest): the Dask cost model's
    # per-query cost, in thread-seconds (bench_scale.py, docs/deployment.md)
    manifest = json.loads((d / "report" / "manifest.json").read_text())
    r["search_s"] = manifest["runs"][0]["seconds"]
    r["topics"] = manifest["topics"]["count"]
    r["per_query_ms"] = r["search_s"] * args.threads / r["topics"] * 1e3
    r["hits"] = int(r["floor"]["out"].split()[-2])
    same_runs(ours_run, d / "floor.trec")
    r["cache_mb"] = tree_bytes(d / "index" / "harness-runs") / 1e6
    r["output_mb"] = tree_bytes(d / "report") / 1e6
    r["report_html_mb"] = (d / "report" / "report.html").stat().st_size / 1e6  # issue 37: <= 3 MB at any size
    seen: set = set()
    r["stored_mb"] = (tree_bytes(d / "index" / "harness-runs", seen) + tree_bytes(d / "report", seen)) / 1e6
    (d / "floor.trec").unlink()
    print(f"[{name}] run: harness {r['run']['seconds']:.1f} s, floor {r['floor']['seconds']:.1f} s", flush=True)

    # SimpleSearcher
    if "simple" in args.peers:
        r["simple"] = measure(
            [sys.executable, "-c", SIMPLE_SCRIPT, d / "index", data["topics"], d / "simple.run", 1000, args.threads]
        )
        r["simple"]["diff"] = same_runs(ours_run, d / "simple.run")
        (d / "simple.run").unlink()
        print(f"[{name}] SimpleSearcher {r['simple']['seconds']:.1f} s", flush=True)

    # bm25s
    if "bm25s" in args.peers:
        if bm25s_peak is None and n > 1_000_000:
            r["bm25s"] = {"skipped": "no smaller rung measured first (run 100k and 1M before): its memory is unknown"}
        elif bm25s_peak is not None and bm25s_peak[1] * n / bm25s_peak[0] > 0.8 * mem_gb() * 1e3:
            need = bm25s_peak[1] * n / bm25s_peak[0] / 1e3
            r["bm25s"] = {
                "skipped": f"needs ~{need:.0f} GB (its {bm25s_peak[1] / 1e3:.1f} GB at "
                f"{bm25s_peak[0]:,} passages, scaled), this machine has {mem_gb():.0f} GB"
            }
        else:
            m = measure(
                [sys.executable, "-c", BM25S_SCRIPT, data["corpus"], data["topics"], d / "bm25s.run", args.threads],
                ok=None,
            )
            if m["rc"] != 0:
                last = (m["out"].strip().splitlines() or ["no output"])[-1][:200]
                r["bm25s"] = {"skipped": f"failed (exit {m['rc']}): {last}"}
            else:
                m.update(json.loads(m["out"].strip().splitlines()[-1]))
                r["bm25s"] = m
            (d / "bm25s.run").unlink(missing_ok=True)
        print(f"[{name}] bm25s {r['bm25s'].get('seconds', r['bm25s'].get('skipped'))}", flush=True)
    if "ctrl-c" in args.peers:
        r["ctrl_c"] = interrupts(d, cfg, r)
    if args.reuse_index and saved.exists():  # peers not run again keep their figures
        for key, value in json.loads(saved.read_text()).items():
            if key in ("simple", "bm25s") and key not in r:
                r[key] = value
    r["load_end"] = os.getloadavg()[0]
    for v in list(r.values()):
        if isinstance(v, dict):
            v.pop("out", None)
    (d / "result.json").write_text(json.dumps(r, indent=1))
    if not args.keep_data and not args.reuse_index:
        shutil.rmtree(d / "index", ignore_errors=True)
        shutil.rmtree(d / "report", ignore_errors=True)
    return r


def _median(ms: list[dict]) -> dict:
    ms = sorted(ms, key=lambda m: m["seconds"])
    m = dict(ms[len(ms) // 2])
    m["all"] = [round(x["seconds"], 2) for x in ms]
    m["rss_mb"] = max(x["rss_mb"] for x in ms)
    return m


# ----------------------------------------------------------------------------- output
def table(rows: list[dict]) -> str:
    out = [
        "| passages | hits | index: harness / IndexCollection (docs/s) | ratio | `harness run` | floor | run / floor "
        "| SimpleSearcher script | bm25s (index + search) | peak MB: index harness / IndexCollection, run / floor / Simple / bm25s "
        "| disk MB: index, run cache, output; TREC text | (cache + output) / text | report.html MB "
        "| Ctrl-C mid-index / mid-search: exit after |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|",
    ]
    for r in rows:
        n = r["docs"]
        ih, ia = r["index"]["seconds"], r["index_anserini"]["seconds"]
        s = r.get("simple")
        b = r.get("bm25s", {})
        bcell = (
            f"{b['seconds']:.1f} s ({b['index_s']:.0f} + {b['search_s']:.0f})"
            if "seconds" in b
            else f"not run: {b['skipped']}"
            if b
            else "—"
        )
        out.append(
            f"| {n:,} | {r['hits']:,} | {n / ih:,.0f} / {n / ia:,.0f} | {ia / ih:.2f} "
            f"| {r['run']['seconds']:.1f} s | {r['floor']['seconds']:.1f} s | {r['run']['seconds'] / r['floor']['seconds']:.2f} "
            f"| {f'{s["seconds"]:.1f} s' if s else '—'} | {bcell} "
            f"| {r['index']['rss_mb']:.0f} / {r['index_anserini']['rss_mb']:.0f}, {r['run']['rss_mb']:.0f} / "
            f"{r['floor']['rss_mb']:.0f} / {s['rss_mb'] if s else float('nan'):.0f} / {b.get('rss_mb', float('nan')):.0f} "
            f"| {r['index_mb']:,.0f}, {r['cache_mb']:,.0f}, {r['output_mb']:,.0f}; {r['text_mb']:,.0f} "
            f"| {r['stored_mb'] / r['text_mb']:.2f} | {f'{r["report_html_mb"]:.1f}' if 'report_html_mb' in r else '—'} "
            f"| {_ctrl_c_cell(r.get('ctrl_c'))} |"
        )
    return "\n".join(out)


def _ctrl_c_cell(c: dict | None) -> str:
    if not c:
        return "—"
    cells = [
        f"{c[k]['exit_after_s']:.1f} s" if _clean(c[k]) else f"FAILED ({c[k]})" for k in ("mid-index", "mid-search")
    ]
    return " / ".join(cells) + (", nothing left" if all(_clean(v) for v in c.values()) else "")


def plot(rows: list[dict]) -> str:
    """Two log-log charts side by side in one SVG: seconds and peak MB against passages."""
    from harness.report.svg import Series, line_chart

    rows = sorted(rows, key=lambda r: r["docs"])
    xs = [math.log10(r["docs"]) for r in rows]
    ticks = [(math.log10(r["docs"]), r["rung"]) for r in rows]

    def series(key, label, field, color):
        pts = [(x, r[key][field]) for x, r in zip(xs, rows) if isinstance(r.get(key), dict) and field in r[key]]
        return Series(label, [p[0] for p in pts], [math.log10(p[1]) for p in pts], color=color)

    from harness.report.svg import PALETTE

    keys = [
        ("index", "harness index"),
        ("index_anserini", "IndexCollection"),
        ("run", "harness run"),
        ("floor", "floor"),
        ("simple", "SimpleSearcher script"),
        ("bm25s", "bm25s"),
    ]
    charts = []
    for field, title, unit in (("seconds", "Time", "log10 seconds"), ("rss_mb", "Peak memory", "log10 MB")):
        lines = [series(k, label, field, PALETTE[i]) for i, (k, label) in enumerate(keys)]
        lines = [s for s in lines if s.xs]
        charts.append(str(line_chart(f"{title} against passages", "passages (log scale)", unit, lines, x_ticks=ticks)))
    w = 560
    body = "".join(f'<g transform="translate({i * w},0)">{c}</g>' for i, c in enumerate(charts))
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w}" height="420">{body}</svg>\n'


def write_docs(rows: list[dict], text: str, note: str) -> None:
    svg = REPO / "docs" / "ladder.svg"
    svg.write_text(plot(rows))
    doc = REPO / "docs" / "performance.md"
    s = doc.read_text()
    block = f"<!-- BEGIN ladder -->\n### Scale ladder\n\n{note}\n\n{text}\n\n![time and peak memory against passages](ladder.svg)\n<!-- END ladder -->"
    if "<!-- BEGIN ladder -->" in s:
        head, rest = s.split("<!-- BEGIN ladder -->", 1)
        s = head + block + rest.split("<!-- END ladder -->", 1)[1]
    else:
        s = s.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(s)


def machine() -> str:
    cpu = "?"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), {mem_gb():.0f} GB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rungs", default="100k,1M", help=f"of {', '.join(RUNGS)}; 8.8M only when asked")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, help="`harness run` and floor processes per rung (median)")
    ap.add_argument("--index-repeats", type=int, default=1)
    ap.add_argument("--peers", default="simple,bm25s,ctrl-c", help="and ctrl-c: the interruption checks")
    ap.add_argument("--keep-data", action="store_true", help="keep the indexes and the report of each rung")
    ap.add_argument(
        "--reuse-index", action="store_true", help="a rung whose index was kept: time the rest, keep its index figures"
    )
    ap.add_argument("--write-docs", action="store_true", help="put the table and plot into docs/performance.md")
    ap.add_argument("--from-results", action="store_true", help="only print (and write) the rungs' saved results")
    args = ap.parse_args()
    names = args.rungs.split(",")
    if unknown := [x for x in names if x not in RUNGS]:
        raise SystemExit(f"unknown rung(s) {unknown}: the rungs are {', '.join(RUNGS)}")
    OUT.mkdir(parents=True, exist_ok=True)
    start = datetime.datetime.now(datetime.UTC)
    print(f"{machine()}; load {os.getloadavg()[0]:.1f}; threads {args.threads}", flush=True)
    rows, peak = [], None
    for n in sorted(RUNGS.values()):  # bm25s's largest measured peak, from earlier runs of this script
        saved = OUT / f"ladder-run-{n}" / "result.json"
        if saved.exists() and "rss_mb" in json.loads(saved.read_text()).get("bm25s", {}):
            peak = (n, json.loads(saved.read_text())["bm25s"]["rss_mb"])
    for name in names:
        saved = OUT / f"ladder-run-{RUNGS[name]}" / "result.json"
        if args.from_results:
            rows.append(json.loads(saved.read_text()))
            continue
        if name == "8.8M" and free_gb(OUT) < 40:
            raise SystemExit(f"the 8.8M rung needs about 40 GB free; {OUT} has {free_gb(OUT):.0f} GB")
        r = rung(name, RUNGS[name], args, peak)
        if "rss_mb" in r.get("bm25s", {}):
            peak = (r["docs"], r["bm25s"]["rss_mb"])
        rows.append(r)
    text = table(rows)
    print("\n" + text)
    note = (
        f"*Scale ladder* (`bench/bench_ladder.py --rungs {args.rungs}`), {start:%Y-%m-%d %H:%M} UTC, {machine()}, "
        f"{args.threads} threads; load {', '.join(f'{r["load_start"]:.1f}-{r["load_end"]:.1f}' for r in rows)} "
        "at the start and end of each rung."
    )
    if args.write_docs:
        write_docs(rows, text, note)
        print("\nwritten: docs/performance.md, docs/ladder.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
