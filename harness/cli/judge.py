"""``harness judge`` and ``harness lab --judge``: argument checks, then the judging page.

Everything that can be wrong with the flags (the address, the qrels file's contents, the runs
named) is checked before Java starts."""

from __future__ import annotations

from harness import lazy
from harness.errors import DataError
from harness.events import to_stderr
from harness.policies import LANGUAGES
from harness.verbs.similarity import parse_similarity

judge_server = lazy.module("harness.judge.server")
judge_store = lazy.module("harness.judge.store")
verbs_judge = lazy.module("harness.verbs.judge")
verbs_plan = lazy.module("harness.verbs.plan")

JUDGE_EXAMPLES = """\
  harness judge configs/demo.yaml --qrels my-qrels.txt \\
      --runs 'bm25(k1=0.9,b=0.4)' 'dirichlet(mu=1000)' --depth 10
  harness judge --index corpora --queries "vector space model" "language model" \\
      --similarity bm25 'dirichlet(mu=1000)' --depth 10 --qrels my-qrels.txt
  harness judge configs/demo.yaml --qrels my-qrels.txt --port 9000
"""


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""
    p = make(
        sub,
        "judge",
        "open a local judging page for the pooled top k of a config's runs (or of lab-style "
        "queries); every judgment goes at once into a TREC qrels file and the runs' metrics update",
        JUDGE_EXAMPLES,
        cmd_judge,
    )
    p.add_argument("config", nargs="?", help="an experiment config: judge the pool of its runs on its topics")
    p.add_argument(
        "--qrels",
        required=True,
        metavar="FILE",
        help="the TREC qrels file to write: created if missing; an existing file's judgments are "
        "loaded and shown, new ones appended, a changed one rewritten in place (atomically)",
    )
    p.add_argument("--runs", nargs="+", metavar="RUN", help="with CONFIG: only these runs (default: all)")
    p.add_argument("--depth", type=int, default=10, help="pool depth: the top K of each run (default 10)")
    p.add_argument("--index", metavar="PATH", help="lab style: an index or a folder of .txt files (as harness lab)")
    p.add_argument("--queries", nargs="+", metavar="QUERY", help="lab style: query texts (topic id: words joined by _)")
    p.add_argument(
        "--language",
        choices=tuple(LANGUAGES),
        metavar="CODE",
        help="lab style: the documents' and queries' language, as harness lab --language (default: the index's own, "
        "else en)",
    )
    p.add_argument(
        "--similarity",
        nargs="+",
        metavar="SIM",
        default=["bm25"],
        help="lab style: similarities, a model (bm25, dirichlet, jm) or a spec like 'dirichlet(mu=1000)' (default bm25)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that is not a loopback address (the page has no login and writes files)",
    )


def _similarities(texts: list[str]):
    return [parse_similarity(text, source="--similarity") for text in texts]


def cmd_judge(args) -> int:
    if args.depth < 1:
        raise DataError("--depth", f"must be an integer >= 1 (got {args.depth})")
    lab_style = args.index is not None or args.queries is not None
    if args.config and args.language:
        raise DataError("--language", "applies to lab style (--index); a config's language is its index.language")
    if args.config and lab_style:
        raise DataError("--index", "give either a CONFIG or --index with --queries, not both")
    if not args.config and not (args.index and args.queries):
        raise DataError("judge", "give a CONFIG, or --index PATH and --queries QUERY... (lab style)")
    judge_server.check_host(args.host, args.allow_remote)
    store = judge_store.QrelsStore(args.qrels)
    if args.config:
        cfg = verbs_plan.load(args.config)
        session = verbs_judge.from_config(cfg, args.runs, args.depth, on=to_stderr)
    else:
        if args.runs:
            raise DataError("--runs", "applies to a CONFIG; in lab style name --similarity instead")
        session = verbs_judge.from_lab(
            args.index, args.queries, _similarities(args.similarity), args.depth, on=to_stderr, language=args.language
        )
    return judge_server.serve(session, store, args.host, args.port, args.allow_remote)
