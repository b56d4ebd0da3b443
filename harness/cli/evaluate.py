"""`harness evaluate RUN QRELS`: a run file against qrels, like trec_eval (values equal trec_eval
-c's), over the evaluate verb (harness.verbs.evaluate)."""

from __future__ import annotations

import sys

from harness import lazy
from harness.cli.flags import eval_policy, measure_flag, policy_flags, run_format_flag
from harness.cli.progress import Progress
from harness.policies import DEFAULT_MEASURES, MSMARCO_MRR, ReadPolicy

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
    read = ReadPolicy(args.duplicates, args.run_format)
    if not args.msmarco_mrr:
        _print_measures(args, read, verbs_evaluate.parse_measure_list(args.measures or DEFAULT_MEASURES, "-m"))
        return 0
    # --msmarco-mrr: the measure MRR@10(msmarco), evaluated with -m's (if any), printed as
    # msmarco_passage_eval.py prints it (its metrics sorted by name) after their lines
    measures = verbs_evaluate.parse_measure_list(args.measures, "-m") if args.measures else []
    official = verbs_evaluate.parse_measure_list(MSMARCO_MRR, "--msmarco-mrr")[0]
    ev = _print_measures(args, read, measures, also=[official])
    print("#####################")
    print(f"MRR @10: {ev.means[str(official)]}")
    print(f"QueriesRanked: {ev.audit['topics_in_run']}")
    print("#####################")
    return 0


def _print_measures(args, read, measures, also=()):
    """Evaluate ``measures`` and ``also``, print the lines of ``measures`` and the audit (errors
    come before any line is printed), and return the evaluation."""
    policy = eval_policy(args)
    evaluated = list(dict.fromkeys([*measures, *also]))
    with Progress(1, f"evaluating {len(evaluated)} measures") as bar:
        ev = verbs_evaluate.evaluate(args.run, args.qrels, evaluated, policy=policy, read=read)
        bar.update()
    names = [str(m) for m in measures]
    # As trec_eval: counts print as integers and their "all" line is the sum over topics.
    counts = {str(m) for m in measures if verbs_evaluate.summed(m)}
    fmt = lambda name, v: f"{v:.0f}" if name in counts else f"{v:.4f}"  # noqa: E731
    if args.per_topic:
        for topic in sorted(ev.topics):
            for name in names:
                if topic in ev.per_topic[name]:  # MS MARCO's topics are the qrels' under --missing-topics drop
                    print(f"{name}\t{topic}\t{fmt(name, ev.per_topic[name][topic])}")
    summary = ev.summary
    for name in names:
        print(f"{name}\tall\t{fmt(name, summary[name])}")
    if not names:  # --msmarco-mrr alone prints the script's lines only
        return ev
    a = ev.audit
    print(
        f"# {a['topics_evaluated']} topics evaluated ({a['judged_missing_from_run']} judged topics missing "
        f"from the run, {a['run_topics_without_judgments']} run topics without judgments); policy: {policy}",
        file=sys.stderr,
        flush=True,
    )
    return ev
