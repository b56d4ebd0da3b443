"""`harness compare RUN... --qrels QRELS --baseline RUN`: run files evaluated, then paired tests,
corrections, bootstrap CIs and wins/ties/losses against a baseline, over the compare verb
(harness.verbs.compare)."""

from __future__ import annotations

from harness import lazy
from harness.cli.flags import eval_policy, measure_flag, policy_flags, run_format_flag
from harness.cli.progress import Progress
from harness.errors import DataError
from harness.policies import (
    ALIGNMENTS,
    CORRECTIONS,
    DEFAULT_MEASURES,
    FAMILIES,
    TESTS,
    ComparePolicy,
    ReadPolicy,
    StatsPolicy,
    format_p,
)

verbs_compare = lazy.module("harness.verbs.compare")


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""
    c = make(
        sub,
        "compare",
        "compare runs with a baseline: per-topic scores, paired tests, "
        "multiple-testing correction, bootstrap CI and wins/ties/losses",
        "  harness compare reports/demo/runs/*.trec --qrels qrels/demo.txt \\\n"
        "      --baseline 'bm25(k1=0.9,b=0.4)' -m AP nDCG@10 --test randomization --seed 1\n",
        cmd_compare,
    )
    c.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="TREC run files; a run's name is its file name without the extension, runs sharing one are labelled "
        "by their folders (a/bm25, b/bm25)",
    )
    c.add_argument("--qrels", required=True, help="TREC qrels file")
    c.add_argument(
        "--baseline",
        required=True,
        metavar="RUN|NAME",
        help="the baseline: one of the runs (file, name or label), or another run file",
    )
    measure_flag(c, "measures (repeatable)")
    _choice(c, "--test", TESTS, StatsPolicy.test)
    _choice(c, "--correction", CORRECTIONS, StatsPolicy.correction)
    c.add_argument(
        "--family",
        choices=tuple(FAMILIES),
        default=StatsPolicy.family,
        help="the family corrected together: " + "; ".join(f"{k}: {v}" for k, v in FAMILIES.items()),
    )
    c.add_argument(
        "--alpha", type=float, default=StatsPolicy.alpha, help=f"significance level (default {StatsPolicy.alpha})"
    )
    c.add_argument(
        "--permutations",
        type=int,
        default=StatsPolicy.permutations,
        help=f"randomization test resamples (default {StatsPolicy.permutations})",
    )
    _choice(c, "--align", ALIGNMENTS, ComparePolicy.align)
    c.add_argument(
        "--seed",
        type=int,
        default=StatsPolicy.seed,
        help=f"seed of the randomization/bootstrap (default {StatsPolicy.seed})",
    )
    policy_flags(c)
    run_format_flag(c, "the run files' layout")


def cmd_compare(args) -> int:
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
    policy = eval_policy(args)
    with Progress(len(args.runs) + 1, "evaluating runs", unit="steps") as bar:
        out = verbs_compare.compare_files(
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
    for name, runs in out.shared.items():
        labelled = ", ".join(f"{label} is {path}" for label, path in runs)
        print(f"{len(runs)} runs are named {name!r}, labelled by their paths: {labelled}")
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


def _choice(parser, flag: str, table: dict, default: str) -> None:
    """A flag choosing one key of ``table`` (name: what it does), each listed in the help."""
    parser.add_argument(
        flag,
        choices=tuple(table),
        default=default,
        help="; ".join(f"{k}: {v}" for k, v in table.items()) + f" (default {default})",
    )
