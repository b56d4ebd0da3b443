#!/usr/bin/env python3
"""Retrieval benchmark: harness vs Anserini SimpleSearcher vs the plain-Lucene floor.

In one run, on Cranfield (../shared) and on a synthetic corpus generated deterministically here
(200,000 documents, 2,000 topics by default), at depth 1000 and 10:

  harness      harness.engine.search.Searcher (BatchSearcher: Anserini's ordering, bulk transfer)
  simple       Anserini SimpleSearcher.batch_search with the same threads, hits turned into
               Python (docid, score) pairs, as pyserini's LuceneSearcher.batch_search does
  floor        plain Lucene IndexSearcher.search(query, k) per query on one thread, queries
               built beforehand, no hit loaded (what scoring alone costs)

Each tool runs in a fresh subprocess (peak memory = that process's max RSS, JVM included). The
runs of harness and simple are checked identical (doc ids and ranks; scores within 1e-4) before
any number is printed. Indexing: harness.engine.index.ensure_index against IndexCollection called
directly with the same arguments and threads.

    .venv/bin/python bench/bench_search.py [--docs 200000] [--topics 2000] [--threads 2]
    .venv/bin/python bench/bench_search.py --languages en,ar,ru,zh --docs 50000 --topics 1000
    .venv/bin/python bench/bench_search.py --families [--threads 2]   # qps per model family

`--families` (issue 16): in one fresh process on Cranfield (225 topics, depth 1000), the harness's
qps for one setting of every similarity family and, back to back with SimpleSearcher
(set_rm3 / set_rocchio, one query at a time as pyserini calls it), for each query expansion.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
CRANFIELD = REPO.parent / "shared" / "collections" / "cranfield"
sys.path.insert(0, str(REPO))


# ----------------------------------------------------------------------------- families
FAMILY_SPECS = [
    "bm25",
    "bm25(accurate=true)",
    "dirichlet",
    "indri",
    "jm",
    "tfidf",
    "dfr",
    "ib",
    "dfi",
    "axiomatic",
    "axiomatic(function=f3log,query_len=3)",
]
EXPANSION_SPECS = ["bm25+rm3", "dirichlet+rm3", "bm25+rocchio", "bm25+bm25prf"]


def families(
    index: Path, exact_index: Path, topics: Path, depth: int, threads: int
) -> list[tuple[str, float, float | None]]:
    """[(spec, harness qps, SimpleSearcher qps or None)], every figure from this one process.
    bm25 accurate=true is searched on `exact_index` (built with exact document lengths), the
    index the harness gives it."""
    from harness.engine import lucene
    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher
    from harness.formats.topics import read_topics
    from harness.specs.similarity import Similarity

    texts = [t for _, t in read_topics(topics)]
    s = Searcher(index, IndexOptions())
    exact = Searcher(exact_index, IndexOptions(lengths="exact"))
    s.search(texts[:50], Similarity.parse("bm25"), depth, threads)  # JIT warm-up
    out = []
    for spec in FAMILY_SPECS + EXPANSION_SPECS:
        sim = Similarity.parse(spec)
        on = exact if sim.lengths == "exact" else s
        seconds, _ = timed(lambda sim=sim, on=on: on.search(texts, sim, depth, threads), most=3)
        simple = None
        if sim.expansion in ("rm3", "rocchio"):
            ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(index))
            p, e = sim.params, sim.expansion_params
            ss.set_bm25(p["k1"], p["b"]) if sim.model == "bm25" else ss.set_qld(p["mu"])
            if sim.expansion == "rm3":
                ss.set_rm3(e["fb_terms"], e["fb_docs"], e["original_query_weight"])
            else:
                ss.set_rocchio()
            t0 = time.perf_counter()
            for text in texts:
                [(h.docid, h.score) for h in ss.search(text, depth)]
            simple = len(texts) / (time.perf_counter() - t0)
            ss.close()
        out.append((str(sim), len(texts) / seconds, simple))
    s.close()
    exact.close()
    return out


def main_families(threads: int) -> int:
    from harness.engine.corpus import Corpus
    from harness.engine.index import IndexOptions, ensure_index
    from harness.events import to_stderr

    info = ensure_index(
        Corpus(CRANFIELD / "corpus.jsonl", "jsonl"), IndexOptions(), OUT / "cranfield-idx-h", on=to_stderr
    )
    exact = ensure_index(
        Corpus(CRANFIELD / "corpus.jsonl", "jsonl"),
        IndexOptions(lengths="exact"),
        OUT / "cranfield-idx-h-exact",
        on=to_stderr,
    )
    rows = families(info.path, exact.path, CRANFIELD / "topics.tsv", 1000, threads)
    base = rows[0][1]
    print(f"Cranfield, 225 topics, depth 1000, threads={threads}; one process (noisy on a shared machine)\n")
    print("| run | harness qps | / bm25 | SimpleSearcher qps (1 thread) | harness / Simple |")
    print("|---|---:|---:|---:|---:|")
    for name, qps, simple in rows:
        ratio = f"{qps / simple:.1f}x" if simple else "—"
        print(f"| `{name}` | {qps:.0f} | {qps / base:.2f} | {f'{simple:.0f}' if simple else '—'} | {ratio} |")
    return 0


# ----------------------------------------------------------------------------- data
# --language: pseudo-words in the language's script (consonants, then a vowel sign or letter
# last), so that its analyzer (stemmer, normaliser, CJK bigrams) has real work to do
SCRIPTS = {
    "ar": ("بتثجحخدذرسشصضطظعغفقكلمنهوي", "اوي"),
    "ru": ("бвгджзклмнпрстфхцчшщ", "аеиоуыэюя"),
    "de": ("bcdfghjklmnpqrstvwxzß", "äöüaeiou"),
    "hi": ("कखगघचछजझटठडढतथदधनपफबभमयरलवशसह", "ािीुूेैोौ"),
    "zh": (
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坐集编宝谈府拉黑且随格尽剑讲布杀微怕母调局根曾准团段终乐切级克精哪官示冷域",
        "",
    ),
}


def synth(out: Path, docs: int, topics: int, seed: int = 7, language: str = "en") -> tuple[Path, Path]:
    """Zipf-distributed vocabulary of 60,000 pseudo-words; doc length ~ 20 + Poisson(40). In
    another language (SCRIPTS) the pseudo-words are in its script (Chinese: 1-3 characters)."""
    folder = out / (f"synth-{docs}" if language == "en" else f"synth-{docs}-{language}")
    corpus, tfile = folder / "corpus.jsonl", folder / f"topics-{topics}.tsv"
    if corpus.exists() and tfile.exists():
        return corpus, tfile
    corpus.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    if language == "en":
        letters = np.array(list("bcdfghjklmnpqrstvwxz"))
        vocab = np.array(["".join(letters[rng.integers(0, 20, size=6)]) + "o" for _ in range(60_000)])
    elif language == "zh":
        chars = np.array(list(SCRIPTS["zh"][0]))
        vocab = np.array(["".join(chars[rng.integers(0, len(chars), size=rng.integers(1, 4))]) for _ in range(60_000)])
    else:
        cons, vow = (np.array(list(x)) for x in SCRIPTS[language])
        vocab = np.array(
            ["".join(cons[rng.integers(0, len(cons), size=5)]) + vow[rng.integers(0, len(vow))] for _ in range(60_000)]
        )
    vocab = np.unique(vocab)
    rng.shuffle(vocab)
    p = 1.0 / np.arange(1, len(vocab) + 1) ** 1.07
    p /= p.sum()
    lengths = 20 + rng.poisson(40, size=docs)
    words = vocab[rng.choice(len(vocab), size=int(lengths.sum()), p=p)]
    with open(corpus, "w", encoding="utf-8") as fh:
        start = 0
        for i, n in enumerate(lengths.tolist()):
            text = " ".join(words[start : start + n])
            fh.write(json.dumps({"id": f"S{i:07d}", "contents": text}, ensure_ascii=False) + "\n")
            start += n
    with open(tfile, "w", encoding="utf-8") as fh:
        for q in range(1, topics + 1):
            terms = vocab[rng.integers(50, 20_000, size=int(rng.integers(2, 6)))]
            fh.write(f"{q}\t{' '.join(terms)}\n")
    return corpus, tfile


# ----------------------------------------------------------------------------- workers
def worker(args) -> dict:
    from harness.engine import lucene
    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher
    from harness.engine.topics import read_topics
    from harness.specs.similarity import Similarity

    topics = read_topics(Path(args.topics))
    texts = [t for _, t in topics]
    res: dict = {}
    options = IndexOptions(language=getattr(args, "language", "en"))
    lucene.jclass("java.lang.System")  # start the JVM outside every timed region
    if args.tool == "index-harness":
        from harness.engine.corpus import Corpus
        from harness.engine.index import ensure_index

        target = Path(args.index)
        shutil.rmtree(target, ignore_errors=True)
        t = time.perf_counter()
        info = ensure_index(Corpus(Path(args.corpus), "jsonl"), options, target, threads=args.threads)
        res["seconds"] = time.perf_counter() - t
        res["documents"] = info.manifest["stats"]["documents"]
    elif args.tool == "index-anserini":
        from harness.engine.corpus import Corpus
        from harness.engine.indexer import run_index_collection
        from harness.engine.staging import stage

        target = Path(args.index)
        shutil.rmtree(target, ignore_errors=True)
        source = stage(Corpus(Path(args.corpus), "jsonl"), target.parent / (target.name + "-staged"))
        t = time.perf_counter()
        counters = run_index_collection("JsonCollection", source, target, options, args.threads)
        res["seconds"] = time.perf_counter() - t
        res["documents"] = counters["indexed"]
    elif args.tool == "harness":
        s = Searcher(args.index, options)
        s.search(texts[:50], Similarity.parse("bm25"), args.depth, args.threads)  # JIT warm-up
        part = getattr(args, "part", None)
        if part:  # one of several processes: its share of the topics, started on a signal
            i, n = map(int, part.split("/"))
            texts = texts[i::n]
            print("ready", flush=True)
            sys.stdin.readline()
        res["seconds"], run = timed(lambda: s.search(texts, Similarity.parse("bm25"), args.depth, args.threads))
        if not part:
            write(args.run, topics, run)
    elif args.tool == "simple":
        ss = lucene.jclass("io.anserini.search.SimpleSearcher")(args.index)
        if options.language != "en":
            ss.set_language(options.language)
        qids = [q for q, _ in topics]

        def jlist(items):  # what pyserini's LuceneSearcher.batch_search does before calling Java
            out = lucene.jclass("java.util.ArrayList")()
            for x in items:
                out.add(x)
            return out

        ss.batch_search(jlist(texts[:50]), jlist(qids[:50]), args.depth, args.threads)

        def batch():
            hits = ss.batch_search(jlist(texts), jlist(qids), args.depth, args.threads)
            out = []
            for q in qids:
                hs = hits.get(q)
                out.append(([h.docid for h in hs], np.array([h.score for h in hs])))
            return out

        res["seconds"], run = timed(batch)
        write(args.run, topics, run)
    elif args.tool == "floor":
        J = lucene.jclass
        reader = J("org.apache.lucene.index.DirectoryReader").open(
            J("org.apache.lucene.store.FSDirectory").open(J("java.io.File")(args.index).toPath())
        )
        searcher = J("org.apache.lucene.search.IndexSearcher")(
            reader, signature="(Lorg/apache/lucene/index/IndexReader;)V"
        )
        searcher.setSimilarity(J("org.apache.lucene.search.similarities.BM25Similarity")(0.9, 0.4))
        from harness.engine.analysis import analyzer as make_analyzer

        analyzer = make_analyzer(options)  # DefaultEnglishAnalyzer's default instance for en
        gen = J("io.anserini.search.query.BagOfWordsQueryGenerator")()
        queries = [gen.buildQuery("contents", analyzer, t) for t in texts]
        for q in queries[:50]:
            searcher.search(q, args.depth)

        def batch():
            for q in queries:
                searcher.search(q, args.depth)

        res["seconds"], _ = timed(batch)
    res["max_rss_mb"] = peak_rss_mb()
    return res


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM). Not ru_maxrss: Linux carries that across exec from the
    parent, so every worker would report at least the parent's peak."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn, budget: float = 3.0, most: int = 5):
    """Median seconds of repeated calls (at least one; more while under `budget` seconds in
    all, at most `most`): the first batches still run while the JIT compiles."""
    times, out = [], None
    while not times or (sum(times) < budget and len(times) < most):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def write(path, topics, run) -> None:
    with open(path, "w") as fh:
        for (qid, _), (ids, scores) in zip(topics, run):
            for i, (d, s) in enumerate(zip(ids, scores), start=1):
                fh.write(f"{qid} {d} {i} {float(s)!r}\n")


def spawn(tool: str, **kw) -> dict:
    cmd = [sys.executable, __file__, "--worker", json.dumps({"tool": tool, **{k: str(v) for k, v in kw.items()}})]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{tool} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def spawn_parts(parts: int, **kw) -> dict:
    """The harness in `parts` processes of one thread each, every one searching its share of
    the topics; they start together (after each has opened the index and warmed up), and the
    batch takes as long as the slowest."""
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                json.dumps(
                    {"tool": "harness", "part": f"{i}/{parts}", "threads": "1", **{k: str(v) for k, v in kw.items()}}
                ),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(parts)
    ]
    for p in procs:
        if p.stdout.readline().strip() != "ready":
            raise SystemExit("a harness process did not start")
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    return {"seconds": max(o["seconds"] for o in outs), "max_rss_mb": sum(o["max_rss_mb"] for o in outs)}


def same_runs(a: Path, b: Path) -> tuple[bool, float]:
    ra = [l.split() for l in open(a)]
    rb = [l.split() for l in open(b)]
    if len(ra) != len(rb) or any(x[:3] != y[:3] for x, y in zip(ra, rb)):
        return False, float("nan")
    diff = max((abs(float(x[3]) - float(y[3])) for x, y in zip(ra, rb)), default=0.0)
    return diff <= 1e-4, diff


# ----------------------------------------------------------------------------- main
def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        spec = json.loads(sys.argv[2])
        spec["depth"] = int(spec.get("depth", 1000))
        spec["threads"] = int(spec.get("threads", 1))
        print(json.dumps(worker(argparse.Namespace(**spec))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--topics", type=int, default=2_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--depths", default="1000,10")
    ap.add_argument("--index-repeats", type=int, default=5)
    ap.add_argument("--families", action="store_true", help="qps per model family and expansion (Cranfield)")
    ap.add_argument(
        "--languages",
        metavar="CODES",
        help="synthetic corpora in these languages only (e.g. en,ar,ru,zh; index.language), without Cranfield",
    )
    args = ap.parse_args()
    if args.families:
        OUT.mkdir(parents=True, exist_ok=True)
        return main_families(args.threads)

    OUT.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    if args.languages:
        datasets = []
        for lang in args.languages.split(","):
            sc, st = synth(OUT, args.docs, args.topics, language=lang)
            datasets.append((f"synthetic-{args.docs}-{lang}", sc, st, lang))
    else:
        sc, st = synth(OUT, args.docs, args.topics)
        datasets = [
            ("cranfield", CRANFIELD / "corpus.jsonl", CRANFIELD / "topics.tsv", "en"),
            (f"synthetic-{args.docs}", sc, st, "en"),
        ]
    print(
        f"synthetic corpus: {args.docs} docs, {args.topics} topics ({time.perf_counter() - t:.1f} s to generate or reuse)"
    )
    print(
        f"threads={args.threads}; every figure from a fresh process; qps = topics per second of search, the median of\nrepeated batches (as many as fit in 3 s, at most 5, at least 1)\n"
    )
    rows = []
    for name, corpus, topics, lang in datasets:
        # Indexing alternates the two ways `--index-repeats` times and compares medians: a
        # single pair on a busy 2-core machine is mostly noise.
        ih, ia = [], []
        for _ in range(args.index_repeats):
            ih.append(
                spawn(
                    "index-harness",
                    corpus=corpus,
                    index=OUT / f"{name}-idx-h",
                    topics=topics,
                    threads=args.threads,
                    language=lang,
                )
            )
            ia.append(
                spawn(
                    "index-anserini",
                    corpus=corpus,
                    index=OUT / f"{name}-idx-a",
                    topics=topics,
                    threads=args.threads,
                    language=lang,
                )
            )
        docs = ih[0]["documents"]
        th, ta = (float(np.median([x["seconds"] for x in runs])) for runs in (ih, ia))
        print(
            f"[{name}] indexing {docs} docs, median of {args.index_repeats}: harness {docs / th:.0f} docs/s, "
            f"IndexCollection directly {docs / ta:.0f} docs/s (harness/direct throughput {ta / th:.3f})"
        )
        index = OUT / f"{name}-idx-h"
        n = sum(1 for _ in open(topics))
        for depth in [int(d) for d in args.depths.split(",")]:
            r = {}
            for tool in ("harness", "simple", "floor"):
                r[tool] = spawn(
                    tool,
                    index=index,
                    topics=topics,
                    depth=depth,
                    threads=args.threads,
                    run=OUT / f"{name}-{depth}-{tool}.run",
                    language=lang,
                )
            r["harness1"] = spawn(
                "harness",
                index=index,
                topics=topics,
                depth=depth,
                threads=1,
                run=OUT / f"{name}-{depth}-harness1.run",
                language=lang,
            )
            r["procs"] = spawn_parts(args.threads, index=index, topics=topics, depth=depth, language=lang)
            ok, diff = same_runs(OUT / f"{name}-{depth}-harness.run", OUT / f"{name}-{depth}-simple.run")
            if not ok:
                print(f"[{name}] depth {depth}: RUNS DIFFER (max score diff {diff})")
                return 1
            rows.append((name, depth, n, r, diff))
    print()
    print(
        f"| corpus | depth | harness qps | SimpleSearcher qps | harness / Simple | floor qps (1 thread) | harness 1 thread qps "
        f"| floor / harness (1 thread) | harness {args.threads} processes qps | peak MB harness / Simple / floor |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, depth, n, r, _diff in rows:
        q = {k: n / v["seconds"] for k, v in r.items()}
        print(
            f"| {name} | {depth} | {q['harness']:.0f} | {q['simple']:.0f} | {q['harness'] / q['simple']:.1f}x | "
            f"{q['floor']:.0f} | {q['harness1']:.0f} | {q['floor'] / q['harness1']:.2f} | {q['procs']:.0f} | "
            f"{r['harness']['max_rss_mb']:.0f} / {r['simple']['max_rss_mb']:.0f} / {r['floor']['max_rss_mb']:.0f} |"
        )
    print("\nruns identical to SimpleSearcher's (doc ids, ranks; scores within 1e-4) in every row")
    return 0


if __name__ == "__main__":
    sys.exit(main())
