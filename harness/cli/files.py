"""The commands that take files: evaluate and compare run files, the course lab, doctor."""

from __future__ import annotations

import sys

from harness.errors import DataError


def _eval_policy(args):
    from harness.policies import EvalPolicy

    return EvalPolicy(ties=args.ties, missing_topics=args.missing_topics)


def cmd_evaluate(args) -> int:
    from harness.policies import ReadPolicy
    from harness.verbs.evaluate import msmarco_eval

    if args.msmarco_mrr:
        read = ReadPolicy(args.duplicates, args.run_format)
        official = msmarco_eval(args.run, args.qrels, read=read)  # errors before any measure is printed
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
    from harness.cli.progress import Progress
    from harness.policies import DEFAULT_MEASURES
    from harness.verbs.evaluate import evaluate, parse_measure_list, summed

    measures = parse_measure_list(args.measures or DEFAULT_MEASURES, "-m")
    policy = _eval_policy(args)
    with Progress(1, f"evaluating {len(measures)} measures") as bar:
        ev = evaluate(args.run, args.qrels, measures, policy=policy, read=read)
        bar.update()
    names = [str(m) for m in measures]
    # As trec_eval: counts print as integers and their "all" line is the sum over topics.
    counts = {str(m) for m in measures if summed(m)}
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


def cmd_compare(args) -> int:
    from harness.cli.progress import Progress
    from harness.policies import DEFAULT_MEASURES, ComparePolicy, ReadPolicy, StatsPolicy, format_p
    from harness.verbs.compare import compare_files

    try:
        stats_policy = StatsPolicy(
            test=args.test,
            correction=args.correction,
            family=args.family,
            alpha=args.alpha,
            permutations=args.permutations,
            seed=args.seed,
        )
    except ValueError as e:
        raise DataError("compare", str(e)) from None
    policy = _eval_policy(args)
    with Progress(len(args.runs) + 1, "evaluating runs", unit="steps") as bar:
        out = compare_files(
            args.runs,
            args.qrels,
            baseline=args.baseline,
            measures=args.measures or DEFAULT_MEASURES,
            eval_policy=policy,
            read=ReadPolicy(args.duplicates, args.run_format),
            policy=ComparePolicy(stats_policy, args.align),
            hint="--align common compares on the topics every run is scored on",
            on=lambda name: bar.update(),
        )
    table = out.table
    dropped = len(table.dropped)
    print(
        f"baseline: {out.baseline}; {len(table.topics)} topics"
        + (f" ({dropped} not evaluated for every run left out)" if dropped else "")
    )
    print(f"statistics: {stats_policy}")
    print(f"evaluation: {policy}")
    header = [
        "measure",
        "run",
        "mean",
        "baseline",
        "diff",
        f"{stats_policy.ci_level:.0%} CI",
        "p",
        f"p ({args.correction})",
        "W/T/L",
        "",
    ]
    rows = [header]
    for c in table.rows:
        rows.append(
            [
                c.measure,
                c.run,
                f"{c.mean_run:.4f}",
                f"{c.mean_baseline:.4f}",
                f"{c.diff:+.4f}",
                f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]",
                format_p(c.p),
                format_p(c.p_corrected),
                f"{c.wins}/{c.ties}/{c.losses}",
                "*" if c.reject else "",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    print(f"* p ({args.correction}) < alpha = {stats_policy.alpha:g}")
    return 0


def cmd_doctor(args) -> int:
    from harness.verbs.system import doctor

    report = doctor()
    for k, v in report.versions.items():
        print(f"{k:10} {v}")
    print(f"{'jvm':10} {report.jvm}")
    return 0 if report.ok else 3
