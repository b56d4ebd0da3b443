"""``harness lab``: the course lab's evaluation script, on the harness's engine.

Search an index with one similarity and print, per query, the ranked results (rank, doc id,
score) and P@k, R@k, AP, nDCG@k and RR, then their means. ``--index`` is a harness index
(a folder with ``harness-index.json``), any Anserini index, or a folder of ``.txt`` files,
indexed once (doc id = the file's path relative to the folder) and reused while its fingerprint
matches, in the same default ``indexes/`` folder configs use.

Two kinds of judgments, two conventions, and the output says which one was used:

* ``--relevance "QUERY:1,0,1,..."``: labels of ranks 1, 2, ... of the list (the lab's way).
  The numbers follow the lab's functions (:mod:`harness.metrics.lab`): P@k divides by
  min(k, number of labels); R@k and AP divide by the relevant labels in the whole list (or by R
  given as ``"QUERY:1,0,1; R=5"``); AP sums precision at the relevant ranks within the top k;
  nDCG@k's ideal is the same labels sorted (linear gain, log2(rank + 1) discount); RR is 0
  without a relevant label in the top k.
* ``--doc-relevance "DOCID:LABEL DOCID:LABEL ..."`` (one string per query, in the order of
  ``--queries``): doc-id judgments, evaluated exactly as trec_eval would evaluate the top k
  (:func:`harness.metrics.evaluate`): P@k divides by k, R@k and AP by the judged relevant docs,
  nDCG's ideal ranks every judged doc.

Everything given is checked before Java starts; a malformed judgment is exit 2 with the query
and the bad token named.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.errors import DataError

__all__ = [
    "run_lab",
    "add_lab_arguments",
    "parse_relevance",
    "parse_doc_relevance",
    "resolve_index",
    "lab_qid",
    "read_lab_qrels",
    "LAB_EXAMPLES",
    "LAB_CONVENTION",
    "TREC_CONVENTION",
]

LAB_EXAMPLES = """\
  harness lab --index corpora --queries "vector space model" "information retrieval" \\
    --relevance "vector space model:1,0,1,0,0,0,0,0,0,0" "information retrieval:0,1,1,0,0,0,0,0,0,0" \\
    --similarity bm25 --topk 10
  harness lab --index corpora --queries "vector space model" \\
    --doc-relevance "sample_docs/vsm_mixed.txt:1 sample_docs/boost_vector.txt:1" --similarity bm25 --topk 10
  harness lab --index corpora --queries "language model" "query likelihood" \\
    --relevance "language model:1,1,0,0,0" "query likelihood:1,0,1,0,0" --similarity dirichlet --mu 2000 --topk 5
  harness lab --index corpora --queries "language model" --similarity jm --lambda 0.2 --topk 5
"""

LAB_CONVENTION = (
    "the course lab's (rank-position labels): P@k = relevant in top k / min(k, labels); "
    "R@k and AP divide by the relevant labels in the list (or R=); nDCG@k's ideal = "
    "the same labels sorted; RR = 0 without a relevant label in the top k"
)
TREC_CONVENTION = (
    "trec_eval's (doc-id judgments, the top k as the run): P@k = relevant in top k / k; "
    "R@k and AP divide by the judged relevant docs; nDCG@k's ideal ranks every judged doc"
)

_PARAMS = {"k1": "bm25", "b": "bm25", "mu": "dirichlet", "lambda": "jm"}


def add_lab_arguments(p) -> None:
    from harness.engine.similarity import MODELS

    p.add_argument(
        "--index",
        required=True,
        metavar="PATH",
        help="a harness index, an Anserini index, or a folder of .txt files (indexed once, reused)",
    )
    p.add_argument("--queries", nargs="+", required=True, metavar="QUERY", help="query texts")
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--relevance",
        nargs="+",
        metavar="'QUERY:LABELS'",
        help="labels of ranks 1..n per query, e.g. 'vector space model:1,0,1,0' "
        "(integers >= 0, '?' = unjudged; optional '; R=N' = relevant docs in the collection)",
    )
    g.add_argument(
        "--doc-relevance",
        nargs="+",
        metavar="'DOCID:LABEL ...'",
        help="doc-id judgments, one string per query in --queries order, "
        "e.g. 'sample_docs/vsm_mixed.txt:1 sample_docs/boost_vector.txt:2'",
    )
    g.add_argument(
        "--qrels",
        metavar="FILE",
        help="doc-id judgments from a TREC qrels file, e.g. one written by --judge "
        "(a query's topic id is its words joined by '_': 'vector_space_model')",
    )
    p.add_argument(
        "--judge",
        metavar="QRELS",
        help="after printing, open the judging page for these queries (pool: the top k) and write "
        "judgments to the qrels file QRELS (created, or appended to); see `harness judge --help`",
    )
    p.add_argument("--port", type=int, default=8765, help="with --judge: the page's port on 127.0.0.1 (default 8765)")
    p.add_argument("--similarity", choices=tuple(MODELS), default="bm25", help="default bm25")
    for name, model in _PARAMS.items():
        spec = next(s for s in MODELS[model] if s.name == name)
        p.add_argument(
            f"--{name}",
            type=float,
            dest=f"param_{name}",
            metavar=name.upper(),
            help=f"{model}: {spec.doc}, default {spec.default:g}",
        )
    p.add_argument("--topk", type=int, default=10, help="results per query, and the k of P@k, R@k, nDCG@k (default 10)")


# ------------------------------------------------------------------------------ judgments
def _query_names(queries: list[str]) -> list[str]:
    seen = set()
    for q in queries:
        if not q.strip():
            raise DataError("--queries", "an empty query was given")
        if q in seen:
            raise DataError("--queries", f"query {q!r} is given twice")
        seen.add(q)
    return list(queries)


def parse_relevance(items: list[str], queries: list[str]):
    """``["QUERY:1,0,1[; R=N]", ...]`` -> :class:`harness.judgments.RankJudgments` keyed by
    query text. Every query named must be one of ``queries``; each at most once."""
    from harness.metrics.judgments import parse_judgments

    mapping: dict[str, dict] = {}
    for item in items:
        query, colon, rest = item.rpartition(":")
        query = query.strip()
        if not colon or not query:
            raise DataError("--relevance", f"{item!r}: expected 'QUERY:LABELS', e.g. '{queries[0]}:1,0,1,0,0'")
        if query not in queries:
            raise DataError(
                "--relevance",
                f"{item!r} judges query {query!r}, which is not one of --queries: {', '.join(map(repr, queries))}",
            )
        if query in mapping:
            raise DataError("--relevance", f"query {query!r} is judged twice")
        body, semi, extra = rest.partition(";")
        R = None
        if semi:
            key, eq, val = extra.strip().partition("=")
            if key.strip() != "R" or not eq:
                raise DataError(
                    "--relevance", f"query {query!r}: after ';' expected 'R=<number>' (got {extra.strip()!r})"
                )
            R = val.strip()
        if not body.strip():
            raise DataError("--relevance", f"query {query!r}: no labels after ':' (expected e.g. 1,0,1)")
        # harness.metrics.judgments reads the text "-1" as its internal "unjudged" code; refuse it here
        for rank, token in enumerate((t for t in re.split(r"[,\s]+", body.strip()) if t), start=1):
            if token.startswith("-"):
                raise DataError(
                    "--relevance",
                    f"topic {query!r}: bad relevance label {token!r} at rank "
                    f"{rank}; labels are integers >= 0, or '?' for an unjudged doc",
                )
        mapping[query] = {"labels": body, "R": R}
    return parse_judgments(mapping, source="--relevance")


def parse_doc_relevance(items: list[str], queries: list[str]) -> dict[str, dict[str, int]]:
    """One ``"DOCID:LABEL DOCID:LABEL"`` string per query (in order) -> {query: {doc: label}}."""
    if len(items) != len(queries):
        raise DataError(
            "--doc-relevance",
            f"{len(items)} string(s) for {len(queries)} queries: give one "
            "'DOCID:LABEL ...' string per query, in the order of --queries",
        )
    out: dict[str, dict[str, int]] = {}
    for query, item in zip(queries, items):
        judged: dict[str, int] = {}
        for token in item.replace(",", " ").split():
            doc, colon, label = token.rpartition(":")
            try:
                value = int(label)
            except ValueError:
                value = -1
            if not colon or not doc or value < 0:
                raise DataError(
                    "--doc-relevance",
                    f"query {query!r}: bad token {token!r}; expected "
                    "DOCID:LABEL with an integer label >= 0, e.g. sample_docs/vsm_mixed.txt:1",
                )
            if doc in judged:
                raise DataError("--doc-relevance", f"query {query!r}: document {doc!r} is judged twice")
            judged[doc] = value
        if not judged:
            raise DataError("--doc-relevance", f"query {query!r}: no judgments (expected 'DOCID:LABEL ...')")
        out[query] = judged
    return out


def lab_qid(query: str) -> str:
    """The topic id of a lab query in a qrels file: its words joined by ``_``.

    >>> lab_qid("vector  space model")
    'vector_space_model'
    """
    return "_".join(query.split())


def read_lab_qrels(path: str, queries: list[str]) -> dict[str, dict[str, int]]:
    """{query: {doc: label}} from a qrels file whose topic ids are :func:`lab_qid` of the queries."""
    from harness.formats.qrels import read_qrels

    if not Path(path).is_file():
        raise DataError(path, "--qrels: file not found")
    qrels = read_qrels(path)
    have = set(qrels.topics())
    out = {q: qrels.judged(lab_qid(q)) for q in queries if lab_qid(q) in have}
    if not out:
        raise DataError(
            path,
            f"--qrels: no judgments for any of the queries (topic ids expected: "
            f"{', '.join(lab_qid(q) for q in queries)})",
        )
    return out


def _similarity(args):
    from harness.engine.similarity import Similarity

    params = {}
    for name, model in _PARAMS.items():
        value = getattr(args, f"param_{name}")
        if value is None:
            continue
        if model != args.similarity:
            raise DataError(f"--{name}", f"applies to --similarity {model}, not {args.similarity}")
        params[name] = value
    try:
        return Similarity.of(args.similarity, params)
    except ValueError as e:
        raise DataError("--similarity", str(e)) from None


# ------------------------------------------------------------------------------ the index
@dataclass(frozen=True)
class LabIndex:
    path: Path
    options: object  # harness.index.IndexOptions
    kind: str  # "harness" | "anserini" | "text-folder"
    corpus: object | None = None  # harness.collections.Corpus for a text folder


def resolve_index(given: str) -> LabIndex:
    """What ``--index`` names; no Java started (a text folder is fingerprinted, not indexed)."""
    from harness.engine.index import MANIFEST, IndexOptions, open_manifest

    path = Path(given)
    if not path.exists():
        raise DataError(given, "--index: no such folder")
    if not path.is_dir():
        raise DataError(given, "--index: expected a folder (an index, or a folder of .txt files)")
    manifest = open_manifest(path)
    if manifest is not None:
        opts = manifest.get("options") or {}
        return LabIndex(
            path, IndexOptions(**{k: v for k, v in opts.items() if k in ("stemmer", "stopwords")}), "harness"
        )
    if (path / MANIFEST).exists():
        raise DataError(given, f"--index: {MANIFEST} is unreadable; rebuild the index")
    if any(path.glob("segments_*")):
        return LabIndex(path, IndexOptions(), "anserini")
    from harness.engine.corpus import Corpus
    from harness.engine.index import index_fingerprint
    from harness.experiment import indexes_root

    corpus = Corpus(path.resolve(), "text-folder")
    try:
        fp = index_fingerprint(corpus, IndexOptions())
    except DataError:
        raise DataError(
            given,
            "--index: neither an index (no harness-index.json, no Lucene segments_N "
            "file) nor a folder of .txt files to index",
        ) from None
    target = indexes_root(path) / f"{corpus.path.stem or 'corpus'}-{fp[:12]}"
    from harness.config.paths import write_target_problems

    problems = write_target_problems({"index": target}, {"text folder (--index)": corpus.path}, {"index": "index"})
    if problems:
        raise DataError(
            given, "; ".join(m for _, m in problems) + " (set $HARNESS_INDEXES to where lab indexes may go)"
        )
    return LabIndex(target, IndexOptions(), "text-folder", corpus)


# ------------------------------------------------------------------------------ metrics
def lab_metrics(labels: np.ndarray, k: int, R: int | None) -> dict[str, float]:
    from harness.metrics import lab

    return {
        f"P@{k}": lab.precision(labels, k),
        f"R@{k}": lab.recall(labels, k, R=R),
        "AP": lab.average_precision(labels, k, R),
        f"nDCG@{k}": lab.ndcg(labels, k),
        "RR": lab.reciprocal_rank(labels, k),
    }


def trec_metrics(results, judged: dict[str, dict[str, int]], queries: list[str], k: int):
    """Per query {measure: value} (queries without judgments absent) and the means."""
    from harness.formats.qrels import Qrels
    from harness.formats.runs import Run
    from harness.metrics import EvalPolicy, evaluate

    qid = {q: f"q{i}" for i, q in enumerate(queries, start=1)}
    run = Run.from_ranked({qid[q]: r for q, r in zip(queries, results) if len(r[0])}, source="the lab's ranking")
    qrels = Qrels.from_dict({qid[q]: j for q, j in judged.items()}, source="--doc-relevance")
    names = [f"P@{k}", f"R@{k}", "AP", f"nDCG@{k}", "RR"]
    ev = evaluate(run, qrels, names, EvalPolicy())
    per = {q: {m: ev.per_topic[m][qid[q]] for m in names} for q in queries if qid[q] in ev.topics}
    return per, {m: ev.means[m] for m in names}


def _fmt(values: dict[str, float]) -> str:
    return "  ".join(f"{m}={v:.4f}" for m, v in values.items())


# ------------------------------------------------------------------------------ the command
def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run_lab(args) -> int:
    from harness.engine.index import ensure_index
    from harness.engine.search import Searcher
    from harness.progress import Spinner

    # Everything is checked before Java starts.
    queries = _query_names(args.queries)
    if args.topk < 1:
        raise DataError("--topk", f"must be an integer >= 1 (got {args.topk})")
    sim = _similarity(args)
    rank_judgments = parse_relevance(args.relevance, queries) if args.relevance else None
    doc_judgments = parse_doc_relevance(args.doc_relevance, queries) if args.doc_relevance else None
    if getattr(args, "qrels", None):
        doc_judgments = read_lab_qrels(args.qrels, queries)
    where = resolve_index(args.index)

    index_path = where.path
    if where.kind == "text-folder":
        with Spinner("indexing"):
            info = ensure_index(where.corpus, where.options, where.path, log=_log)
        how = f"{'reused' if info.reused else 'built'} from the text folder {args.index}"
    else:
        how = (
            "harness index"
            if where.kind == "harness"
            else (
                "Anserini index, not built by the harness: queries analysed with Anserini's defaults "
                "(porter stemmer, stopwords removed)"
            )
        )
    k = args.topk
    searcher = Searcher(index_path, where.options)
    try:
        results = searcher.search(queries, sim, k)
        known = set(searcher.ids.tolist()) if doc_judgments else set()
    finally:
        searcher.close()

    print(f"index: {index_path} ({how})")
    print(f"similarity: {sim}, top {k}")
    if rank_judgments is not None:
        print(f"metrics: {LAB_CONVENTION}")
    elif doc_judgments is not None:
        print(f"metrics: {TREC_CONVENTION}")
        for q, judged in doc_judgments.items():
            unknown = [d for d in judged if d not in known]
            if unknown:
                _log(f"note: query {q!r}: judged document(s) not in the index: {', '.join(unknown)}")
        per_trec, means_trec = trec_metrics(results, doc_judgments, queries, k)

    per_query: list[dict[str, float]] = []
    for n, (q, (docs, scores)) in enumerate(zip(queries, results), start=1):
        print()
        print(f"query {n}: {q}")
        if not docs:
            print("  no results")
        else:
            width = max(len("doc id"), *(len(d) for d in docs))
            print(f"  {'rank':>4}  {'doc id':{width}}  score")
            for r, (d, s) in enumerate(zip(docs, scores.tolist()), start=1):
                print(f"  {r:>4}  {d:{width}}  {s:.4f}")
        if rank_judgments is not None:
            if q in rank_judgments.labels:
                labels = rank_judgments.labels[q]
                if len(labels) != len(docs):
                    _log(f"note: query {q!r}: {len(labels)} labels for {len(docs)} results shown")
                values = lab_metrics(labels, k, rank_judgments.R[q])
                per_query.append(values)
                print(f"  {_fmt(values)}")
            else:
                print("  no judgments for this query: not in the means")
        elif doc_judgments is not None:
            print(f"  {_fmt(per_trec[q])}" if q in per_trec else "  no judgments for this query")

    print()
    if rank_judgments is not None:
        means = {m: float(np.mean([v[m] for v in per_query])) for m in per_query[0]}
        print(f"mean over {len(per_query)} judged queries: {_fmt(means)}")
    elif doc_judgments is not None:
        print(f"mean over {len(per_trec)} judged queries: {_fmt(means_trec)}")
    else:
        print(
            "metrics: none — they need judgments: pass --relevance 'QUERY:1,0,1,...' (labels of the "
            "ranks shown) or --doc-relevance 'DOCID:LABEL ...' (one string per query)"
        )
    return 0
