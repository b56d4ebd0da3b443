"""`harness trec_eval`: trec_eval 9.0.8's command line (judgments first, then the run) and its
output, byte for byte, over the trec_eval verb (harness.verbs.trec_eval)."""

from __future__ import annotations

import argparse
import errno
import sys

from harness import lazy
from harness.errors import DataError, OutputError

verbs_trec_eval = lazy.module("harness.verbs.trec_eval")


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command) with trec_eval's flags."""
    p = make(
        sub,
        "trec_eval",
        "trec_eval 9.0.8's command line and output (judgments first): "
        "the same lines, byte for byte, for the measures it computes",
        "  harness trec_eval QRELS RUN                     trec_eval's official measures\n"
        "  harness trec_eval -q -m map -m P.5,10 QRELS RUN  per-topic lines, chosen measures\n"
        "  harness trec_eval -c -M 100 -m all_trec QRELS RUN\n"
        "  harness trec_eval -R prefs -m all_prefs PREFS RUN   preference measures\n"
        "  harness trec_eval -R qrels_jg -m qrels_jg QRELS_JG RUN  averaged over judgment groups\n",
        cmd_trec_eval,
    )
    p.add_argument(
        "qrels", help="TREC qrels file: qid iter docid rel, or the -R format's judgments (trec_eval's rel_info_file)"
    )
    p.add_argument("run", help="TREC run file: qid Q0 docid rank score tag (trec_eval's results_file)")
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        default=[],
        metavar="MEASURE[.PARAMS]",
        help="a measure or group (official, all_trec, set; all_prefs, prefs; qrels_jg), repeatable; "
        "e.g. -m map -m P.5,10 (default: official)",
    )
    p.add_argument("-q", "--query_eval_wanted", action="store_true", help="also print each topic's values")
    p.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        action="store_true",
        help="average over every judged topic, a topic without results counting 0",
    )
    p.add_argument("-n", "--nosummary", action="store_true", help="print no 'all' lines")
    p.add_argument(
        "-l", "--level_for_rel", type=int, default=1, metavar="NUM", help="lowest relevant label (default 1)"
    )
    p.add_argument(
        "-M", "--Max_retrieved_per_topic", type=int, metavar="NUM", help="evaluate each topic's first NUM docs"
    )
    p.add_argument("-N", "--Number_docs_in_coll", type=int, metavar="NUM", help="documents in the collection (utility)")
    p.add_argument(
        "-J", "--Judged_docs_only", action="store_true", help="drop the documents without a judgment before evaluating"
    )
    p.add_argument(
        "-Z",
        "--Zscore",
        metavar="FILE",
        help="print z-scores: each topic's value against the mean and stddev of FILE's 'qid measure mean stddev' lines",
    )
    p.add_argument(
        "-R",
        "--Rel_info_format",
        default="qrels",
        metavar="FORMAT",
        help="the judgments' format: qrels (the default), prefs, qrels_prefs (preferences: -m all_prefs) "
        "or qrels_jg (judgment groups: -m qrels_jg)",
    )
    # accepted as a flag so that another format is refused with a sentence, not argparse's
    # "unrecognized arguments" (trec_results is trec_eval 9.0.8's one results format)
    p.add_argument("-T", "--Results_format", default="trec_results", metavar="FORMAT", help="trec_results only")


_NO_STDOUT = (
    "standard output is closed or not open for writing (`>&-`?): trec_eval's lines go there; "
    "give the command an output (a file, a pipe or the terminal)"
)


def cmd_trec_eval(args: argparse.Namespace) -> int:
    if sys.stdout is None:  # Python started with file descriptor 1 closed
        raise OutputError(_NO_STDOUT)
    if args.Results_format != "trec_results":
        raise DataError("-T", f"results format {args.Results_format!r} is not read by the harness (only trec_results)")
    options = verbs_trec_eval.TrecEvalOptions(
        measures=tuple(args.measures),
        per_query=args.query_eval_wanted,
        complete=args.complete_rel_info_wanted,
        summary=not args.nosummary,
        level=args.level_for_rel,
        max_docs=args.Max_retrieved_per_topic,
        num_docs=args.Number_docs_in_coll,
        judged_only=args.Judged_docs_only,
        zscores=args.Zscore,
        rel_info=args.Rel_info_format,
    )
    result = verbs_trec_eval.trec_eval(args.qrels, args.run, options)
    try:
        sys.stdout.write(result.output())
        sys.stdout.flush()
    except OSError as e:
        if e.errno == errno.EBADF:  # descriptor 1 open for reading only (`1<file`)
            raise OutputError(_NO_STDOUT) from None
        raise
    return 0
