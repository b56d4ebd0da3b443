"""``harness lab``: its flags, the text it prints, and the hand-off to the judging page."""

from __future__ import annotations

from harness import lazy
from harness.cli.progress import EventRenderer
from harness.errors import DataError
from harness.events import to_stderr
from harness.policies import LANGUAGES
from harness.specs.models import ALIASES, MODELS, resolve_name
from harness.verbs.similarity import parse_similarity

judge_server = lazy.module("harness.judge.server")
judge_store = lazy.module("harness.judge.store")
verbs_judge = lazy.module("harness.verbs.judge")
verbs_lab = lazy.module("harness.verbs.lab")

__all__ = ["add_parser", "similarity_from_args", "cmd_lab"]

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

# The lab script's parameter flags and the model each belongs to.
PARAMS = {"k1": "bm25", "b": "bm25", "mu": "dirichlet", "lambda": "jm"}


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""
    p = make(
        sub,
        "lab",
        "the course lab: search an index (or a folder of .txt files, indexed once "
        "and reused) and print each query's ranking with P@k, R@k, AP, nDCG@k and RR",
        LAB_EXAMPLES,
        cmd_lab,
    )
    p.add_argument(
        "--index",
        required=True,
        metavar="PATH",
        help="a harness index, an Anserini index, or a folder of .txt files (indexed once, reused)",
    )
    p.add_argument("--queries", nargs="+", required=True, metavar="QUERY", help="query texts")
    p.add_argument(
        "--language",
        choices=tuple(LANGUAGES),
        metavar="CODE",
        help="the documents' and queries' language, analysed as Anserini does (default: the index's own, else en; "
        "codes: " + " ".join(LANGUAGES) + ")",
    )
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
    p.add_argument(
        "--similarity",
        choices=(*MODELS, *ALIASES),
        default="bm25",
        help="default bm25 (" + ", ".join(f"{a}: Anserini's name of {m}" for a, m in ALIASES.items()) + ")",
    )
    for name, model in PARAMS.items():
        spec = next(s for s in MODELS[model].params if s.name == name)
        p.add_argument(
            f"--{name}",
            type=float,
            dest=f"param_{name}",
            metavar=name.upper(),
            help=f"{model}: {spec.doc}, default {spec.default:g}",
        )
    p.add_argument("--topk", type=int, default=10, help="results per query, and the k of P@k, R@k, nDCG@k (default 10)")


def similarity_from_args(args):
    """The similarity of ``--similarity`` with the parameter flags given for it."""
    params = {}
    for name, model in PARAMS.items():
        value = getattr(args, f"param_{name}")
        if value is None:
            continue
        if model != resolve_name(args.similarity)[0]:
            raise DataError(f"--{name}", f"applies to --similarity {model}, not {args.similarity}")
        params[name] = value
    return parse_similarity(args.similarity, params, source="--similarity")


def _fmt(values: dict[str, float]) -> str:
    return "  ".join(f"{m}={v:.4f}" for m, v in values.items())


def render(out, given: str) -> None:
    """The lab script's text: the index, the similarity, each query's ranking and metrics, the means."""
    kind = out.index.where.kind
    if out.index.where.corpus is not None:  # a folder of .txt files, indexed here
        how = f"{'built' if out.index.built else 'reused'} from the text folder {given}"
    elif kind == "harness":
        how = "harness index"
    elif out.index.options.language != "en":
        how = (
            f"Anserini index, not built by the harness: queries analysed as Anserini does {out.index.options.language}"
        )
    else:
        how = (
            "Anserini index, not built by the harness: queries analysed with Anserini's defaults "
            "(porter stemmer, stopwords removed)"
        )
    print(f"index: {out.index.path} ({how})")
    print(f"similarity: {out.similarity}, top {out.k}")
    if out.convention == "lab":
        print(f"metrics: {verbs_lab.LAB_CONVENTION}")
    elif out.convention == "trec":
        print(f"metrics: {verbs_lab.TREC_CONVENTION}")
    for n, q in enumerate(out.queries, start=1):
        print()
        print(f"query {n}: {q.text}")
        if not q.docs:
            print("  no results")
        else:
            width = max(len("doc id"), *(len(d) for d in q.docs))
            print(f"  {'rank':>4}  {'doc id':{width}}  score")
            for r, (d, s) in enumerate(zip(q.docs, q.scores), start=1):
                print(f"  {r:>4}  {d:{width}}  {s:.4f}")
        if out.convention == "lab":
            print(
                f"  {_fmt(q.metrics)}" if q.metrics is not None else "  no judgments for this query: not in the means"
            )
        elif out.convention == "trec":
            print(f"  {_fmt(q.metrics)}" if q.metrics is not None else "  no judgments for this query")
    print()
    if out.convention is not None:
        print(f"mean over {out.judged} judged queries: {_fmt(out.means)}")
    else:
        print(
            "metrics: none — they need judgments: pass --relevance 'QUERY:1,0,1,...' (labels of the "
            "ranks shown) or --doc-relevance 'DOCID:LABEL ...' (one string per query)"
        )


def cmd_lab(args) -> int:
    if getattr(args, "judge", None):
        judge_store.QrelsStore(args.judge)  # a bad qrels file is reported before anything runs
    verbs_lab.check_queries(args.queries)
    if args.topk < 1:
        raise DataError("--topk", f"must be an integer >= 1 (got {args.topk})")
    req = verbs_lab.LabRequest(
        args.index,
        args.queries,
        similarity_from_args(args),
        args.topk,
        args.relevance,
        args.doc_relevance,
        getattr(args, "qrels", None),
        args.language,
    )
    with EventRenderer() as on:
        out = verbs_lab.lab(req, on=on)
    render(out, args.index)
    if getattr(args, "judge", None):
        return lab_judge(args)
    return 0


def lab_judge(args) -> int:
    """``harness lab ... --judge QRELS``: the lab's queries, its similarity, its top k as the pool."""
    store = judge_store.QrelsStore(args.judge)
    session = verbs_judge.from_lab(
        args.index, args.queries, [similarity_from_args(args)], args.topk, on=to_stderr, language=args.language
    )
    return judge_server.serve(session, store, "127.0.0.1", args.port)
