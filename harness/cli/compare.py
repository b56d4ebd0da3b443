"""`harness compare RUN... --qrels QRELS --baseline RUN`: run files evaluated, then paired tests,
corrections, bootstrap CIs and wins/ties/losses against a baseline, over the compare verb
(harness.verbs.compare)."""

from __future__ import annotations

import argparse
import math

from harness import lazy
from harness.cli.flags import eval_policy, measure_flag, policy_flags, run_format_flag
from harness.cli.notes import note_left_out
from harness.cli.progress import Progress
from harness.errors import DataError
from harness.policies import (
    ALIGNMENTS,
    ALL_PAIRS,
    CORRECTIONS,
    DEFAULT_DIFFERENCE,
    DEFAULT_MEASURES,
    DEFAULT_POWER,
    FAMILIES,
    MANY_SYSTEM_TESTS,
    TESTS,
    ComparePolicy,
    PowerPolicy,
    ReadPolicy,
    StatsPolicy,
    default_correction,
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
        "      --baseline 'bm25(k1=0.9,b=0.4)' -m AP nDCG@10 --test randomization --seed 1\n"
        "  harness compare reports/demo/runs/*.trec --qrels qrels/demo.txt \\\n"
        f"      --baseline {ALL_PAIRS} --test randomized-tukey --anova --power\n",
        cmd_compare,
    )
    c.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="TREC run files; a run's name is its file name without the extension, runs whose files share one are "
        "named by their folders (a/bm25, b/bm25); a run's ir_metadata file given with it (runs/*) is left out",
    )
    c.add_argument("--qrels", required=True, help="TREC qrels file")
    c.add_argument(
        "--baseline",
        required=True,
        metavar="RUN|NAME",
        help=f"the baseline: one of the runs (its file or name), or another run file; or {ALL_PAIRS}: every "
        "pair of the runs",
    )
    measure_flag(c, "measures (repeatable)")
    _choice(c, "--test", TESTS, StatsPolicy.test)
    c.add_argument(
        "--correction",
        choices=tuple(CORRECTIONS),
        default=None,
        help="; ".join(f"{k}: {v}" for k, v in CORRECTIONS.items())
        + f" (default {StatsPolicy.correction}; {default_correction(MANY_SYSTEM_TESTS[0])} with "
        + ", ".join(MANY_SYSTEM_TESTS)
        + ", which take no other)",
    )
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
        help=f"resamples of the randomization test and the randomised Tukey HSD (default {StatsPolicy.permutations})",
    )
    _choice(c, "--align", ALIGNMENTS, ComparePolicy.align)
    c.add_argument(
        "--seed",
        type=int,
        default=StatsPolicy.seed,
        help=f"seed of the randomization/bootstrap (default {StatsPolicy.seed})",
    )
    c.add_argument(
        "--anova",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the two-way ANOVA (system x topic) of each measure over the runs (default: with "
        + ", ".join(MANY_SYSTEM_TESTS)
        + ")",
    )
    c.add_argument(
        "--power",
        action="store_true",
        help="power and topic set size: each comparison's detectable difference and the topics needed for "
        "--power-difference, from the sd of its per-topic differences (paired t-test at --alpha); with the ANOVA, "
        "Sakai's ANOVA-based design over the runs",
    )
    c.add_argument(
        "--power-level",
        type=float,
        metavar="P",
        help=f"the power wanted (implies --power; default {DEFAULT_POWER})",
    )
    c.add_argument(
        "--power-difference",
        type=float,
        metavar="D",
        help=f"the difference to detect, in the measure's units (implies --power; default {DEFAULT_DIFFERENCE})",
    )
    policy_flags(c)
    run_format_flag(c, "the run files' layout")


def cmd_compare(args) -> int:
    correction = default_correction(args.test) if args.correction is None else args.correction
    asked = args.power or args.power_level is not None or args.power_difference is not None
    try:
        stats_policy = StatsPolicy(
            test=args.test,
            correction=correction,
            family=args.family,
            alpha=args.alpha,
            permutations=args.permutations,
            seed=args.seed,
        )
        power = (
            PowerPolicy(
                DEFAULT_POWER if args.power_level is None else args.power_level,
                DEFAULT_DIFFERENCE if args.power_difference is None else args.power_difference,
            )
            if asked
            else None
        )
    except ValueError as e:
        raise DataError("compare", str(e)) from None
    policy = eval_policy(args)
    runs, descriptions = verbs_compare.runs_and_descriptions(args.runs)  # the verb's rule: said once here
    note_left_out(descriptions)
    with Progress(len(runs) + 1, "evaluating runs", unit="steps") as bar:
        out = verbs_compare.compare_files(
            runs,
            args.qrels,
            baseline=args.baseline,
            measures=args.measures or DEFAULT_MEASURES,
            eval_policy=policy,
            read=ReadPolicy(args.duplicates, args.run_format),
            policy=ComparePolicy(stats_policy, args.align, args.anova, power),
            hint="--align common compares on the topics every run is scored on",
            on=lambda name: bar.update(),
        )
    table = out.table
    dropped = len(table.dropped)
    for stem, runs in out.shared.items():
        named = ", ".join(f"{name} is {path}" for name, path in runs)
        print(f"{len(runs)} run files are named {stem!r}, so the runs are named by their folders: {named}")
    print(
        f"baseline: {out.baseline}; {len(table.topics)} topics"
        + (f" ({dropped} not evaluated for every run left out)" if dropped else "")
    )
    print(f"statistics: {stats_policy}")
    print(f"evaluation: {policy}")
    many = stats_policy.test in MANY_SYSTEM_TESTS
    corrected = "p (family-wise)" if many else f"p ({correction})"
    header = [
        "measure",
        "run",
        "mean",
        "baseline",
        "diff",
        f"{stats_policy.ci_level:.0%} CI",
        "p",
        corrected,
        "W/T/L",
        "",
    ]
    rows = [header]
    for c in table.rows:
        rows.append(
            [
                c.measure,
                c.run if out.baseline != ALL_PAIRS else f"{c.run} vs {c.baseline}",
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
    _print_table(rows)
    print(f"* {corrected} < alpha = {stats_policy.alpha:g}")
    if table.groups:
        _groups(table, "p" if many else "corrected p", stats_policy.alpha)
    if table.anova:
        _anova(table)
    if table.power and power is not None:  # a power table is made only when power was asked
        _power(table, power)
    return 0


def _print_table(rows: list[list[str]], right: tuple[int, ...] = ()) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        cells = [cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(r, widths))]
        print("  ".join(cells).rstrip())


def _groups(table, p: str, alpha: float) -> None:
    """Each run's mean and letters (the compact letter display) by measure, and the best group."""
    print(f"\nindistinguishable from the best ({p} >= {alpha:g} against it), and letters: two runs share a letter")
    print("exactly when they are not significantly different")
    runs = table.groups[0].runs
    rows = [["run", *(g.measure for g in table.groups)]]
    for i, run in enumerate(runs):
        rows.append(
            [run, *(f"{g.means[i]:.4f} {'' if g.letters is None else g.letters[i]}".rstrip() for g in table.groups)]
        )
    _print_table(rows)
    for g in table.groups:
        print(f"{g.measure}: best {g.best}; indistinguishable from it: {', '.join(g.indistinguishable)}")


def _anova(table) -> None:
    runs = len(next(iter(table.anova.values())).systems)
    print(f"\ntwo-way ANOVA (system x topic) over {runs} runs and {len(table.topics)} topics")
    rows = [["measure", "source", "df", "sum_sq", "mean_sq", "F", "p"]]
    for m, a in table.anova.items():
        for r in a.rows:
            blank = math.isnan(r.F)
            rows.append(
                [
                    m,
                    r.source,
                    str(r.df),
                    f"{r.sum_sq:.4f}",
                    f"{r.mean_sq:.4f}",
                    "" if blank else f"{r.F:.2f}",
                    "" if blank else format_p(r.p),
                ]
            )
    _print_table(rows, right=(2, 3, 4, 5, 6))


def _power(table, power: PowerPolicy) -> None:
    print(
        f"\npower {power.power:g} at alpha = {table.policy.stats.alpha:g} (paired t-test, from each pair's sd of "
        f"differences): the smallest detectable difference, and the topics needed for {power.difference:g}"
    )
    rows = [["measure", "baseline", "run", "topics", "sd", "detectable", "topics needed"]]
    for r in table.power:
        rows.append(
            [
                r.measure,
                r.baseline or "",
                r.run or "all runs (ANOVA design: range of the means)",
                str(r.topics),
                f"{r.sd:.4f}",
                f"{r.detectable_difference:.4f}",
                f"{r.topics_needed:,}",
            ]
        )
    _print_table(rows, right=(3, 4, 5, 6))


def _choice(parser, flag: str, table: dict, default: str) -> None:
    """A flag choosing one key of ``table`` (name: what it does), each listed in the help."""
    parser.add_argument(
        flag,
        choices=tuple(table),
        default=default,
        help="; ".join(f"{k}: {v}" for k, v in table.items()) + f" (default {default})",
    )
