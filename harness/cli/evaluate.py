"""`harness evaluate RUN QRELS`: a run file against qrels, like trec_eval (values equal trec_eval
-c's), over the evaluate verb (harness.verbs.evaluate)."""

from __future__ import annotations

import sys

from harness import lazy
from harness.cli.flags import eval_policy, measure_flag, policy_flags, run_format_flag
from harness.cli.progress import Progress
from harness.policies import DEFAULT_MEASURES, ReadPolicy

verbs_evaluate = lazy.module("harness.verbs.evaluate")


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""
    e = make(
        sub,
        "evaluate",
        "evaluate a TREC run file against qrels, like trec_eval (values equal "
        "trec_eval -c's); prints 'measure<TAB>all<TAB>value' lines",
        "  harness evaluate 'reports/demo/runs/bm25(k1=0.9,b=0.4).trec' qrels/demo.txt -m AP nDCG@10\n"
        "  harness evaluate RUN QRELS                         a config's default measures\n"
        "  harness evaluate RUN QRELS -m AP -m P@10 -q        per-topic lines too\n"
        "  harness evaluate RUN QRELS -m AP --missing-topics drop   trec_eval without -c\n"
        "  harness evaluate run.tsv qrels.dev.small.tsv --run-format msmarco --msmarco-mrr\n",
        cmd_evaluate,
    )
    e.add_argument("run", help="TREC run file: qid Q0 docid rank score tag")
    e.add_argument("qrels", help="TREC qrels file: qid iter docid rel")
    measure_flag(e, "measures, e.g. AP nDCG@10 P@10 (repeatable)")
    e.add_argument(
        "-q", "--per-topic", action="store_true", help="also print 'measure<TAB>topic<TAB>value' for every topic"
    )
    policy_flags(e)
    run_format_flag(e, "the run file's layout")
    e.add_argument(
        "--msmarco-mrr",
        action="store_true",
        help="print MS MARCO's official 'MRR @10' and 'QueriesRanked' as msmarco_passage_eval.py prints them "
        "(every qrels line relevant, the rank column as written, divided by the qrels' topics; "
        "docs/semantics.md), after the measures given with -m, if any",
    )


def cmd_evaluate(args) -> int:
    if args.msmarco_mrr:
        read = ReadPolicy(args.duplicates, args.run_format)
        official = verbs_evaluate.msmarco_eval(args.run, args.qrels, read=read)  # errors before any measure is printed
        if args.measures:
            _print_measures(args, read)
        # msmarco_passage_eval.py's lines, as it prints them (its metrics sorted by name)
        print("#####################")
        print(f"MRR @10: {official.mrr}")
        print(f"QueriesRanked: {official.queries_ranked}")
        print("#####################")
        return 0
    return _print_measures(args, ReadPolicy(args.duplicates, args.run_format))


def _print_measures(args, read) -> int:
    measures = verbs_evaluate.parse_measure_list(args.measures or DEFAULT_MEASURES, "-m")
    policy = eval_policy(args)
    with Progress(1, f"evaluating {len(measures)} measures") as bar:
        ev = verbs_evaluate.evaluate(args.run, args.qrels, measures, policy=policy, read=read)
        bar.update()
    names = [str(m) for m in measures]
    # As trec_eval: counts print as integers and their "all" line is the sum over topics.
    counts = {str(m) for m in measures if verbs_evaluate.summed(m)}
    fmt = lambda name, v: f"{v:.0f}" if name in counts else f"{v:.4f}"  # noqa: E731
    if args.per_topic:
        for topic in sorted(ev.topics):
            for name in names:
                print(f"{name}\t{topic}\t{fmt(name, ev.per_topic[name][topic])}")
    summary = ev.summary
    for name in names:
        print(f"{name}\tall\t{fmt(name, summary[name])}")
    a = ev.audit
    print(
        f"# {a['topics_evaluated']} topics evaluated ({a['judged_missing_from_run']} judged topics missing "
        f"from the run, {a['run_topics_without_judgments']} run topics without judgments); policy: {policy}",
        file=sys.stderr,
        flush=True,
    )
    return 0
