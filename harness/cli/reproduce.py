"""`harness reproduce --baseline B --advanced A --rep-baseline RB --rep-advanced RA --qrels Q`:
an original experiment beside its reproduction, measured as repro_eval 0.5.0 measures it (KTU,
RBO, RMSE, nRMSE, ER, DRI, the t-test's p), over the reproduce verb (harness.verbs.reproduce)."""

from __future__ import annotations

import json

from harness import lazy
from harness.cli.flags import measure_flag, run_format_flag
from harness.cli.progress import Progress
from harness.policies import DEFAULT_MEASURES, ReadPolicy, ReproducePolicy, format_p

verbs_reproduce = lazy.module("harness.verbs.reproduce")


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""
    c = make(
        sub,
        "reproduce",
        "measure how close a reproduction comes to the original experiment (a baseline and an "
        "advanced run), as repro_eval does: KTU, RBO, RMSE, nRMSE, effect ratio, delta relative "
        "improvement and the t-test's p",
        "  harness reproduce --baseline orig/bm25.trec --advanced orig/rm3.trec \\\n"
        "      --rep-baseline mine/bm25.trec --rep-advanced mine/rm3.trec --qrels qrels.txt -m AP nDCG@10\n"
        "  harness reproduce ... --rep-qrels other-qrels.txt     a replication on another collection\n"
        "  harness reproduce ... --json                          the numbers as one JSON object\n",
        cmd_reproduce,
    )
    c.add_argument("--baseline", required=True, metavar="RUN", help="the original baseline run")
    c.add_argument("--advanced", required=True, metavar="RUN", help="the original advanced run")
    c.add_argument("--rep-baseline", required=True, metavar="RUN", help="the reproduced baseline run")
    c.add_argument("--rep-advanced", required=True, metavar="RUN", help="the reproduced advanced run")
    c.add_argument("--qrels", required=True, help="the original qrels (TREC qrels file)")
    c.add_argument(
        "--rep-qrels",
        metavar="QRELS",
        help="the reproduction's qrels, another collection's (replicability: ER, DRI and an unpaired t-test); "
        "without it the reproduced runs are scored against --qrels (reproducibility: a paired t-test)",
    )
    measure_flag(c, "measures (repeatable)")
    c.add_argument(
        "--depth",
        type=int,
        default=ReproducePolicy.depth,
        help=f"documents per topic that count, in trec_eval's order (default {ReproducePolicy.depth}, repro_eval's)",
    )
    c.add_argument(
        "--rbo-p",
        type=float,
        default=ReproducePolicy.rbo_p,
        help=f"RBO's persistence p (default {ReproducePolicy.rbo_p}, repro_eval's)",
    )
    run_format_flag(c, "the run files' layout")
    c.add_argument("--json", action="store_true", help="print the numbers as one JSON object")


def cmd_reproduce(args) -> int:
    policy = verbs_reproduce.reproduce_policy(depth=args.depth, rbo_p=args.rbo_p)
    with Progress(4, "scoring runs", unit="runs") as bar:
        out = verbs_reproduce.reproduce(
            args.baseline,
            args.advanced,
            args.rep_baseline,
            args.rep_advanced,
            args.qrels,
            args.rep_qrels,
            measures=args.measures or DEFAULT_MEASURES,
            policy=policy,
            read=ReadPolicy(run_format=args.run_format),
            source="-m",
            on=lambda role: bar.update(),
        )
    if args.json:
        print(json.dumps(out.as_dict(), indent=2, allow_nan=False))
        return 0
    _print_table(out)
    return 0


def _number(v: float | None, p: bool = False) -> str:
    if v is None:
        return "-"
    return format_p(v) if p else f"{v:.4f}"


def _columns(rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())


def _print_table(out) -> None:
    d = out.as_dict()
    t = out.topics
    if out.replicability:
        print("replicability: the reproduced runs are scored against their own qrels (--rep-qrels)")
    else:
        print("reproducibility: the reproduced runs are scored against the original qrels")
    print(f"policy: {out.policy}")
    print(
        f"topics scored: baseline {t['baseline']}, advanced {t['advanced']}, "
        f"rep-baseline {t['rep-baseline']}, rep-advanced {t['rep-advanced']}"
    )
    print()
    if not out.replicability:
        b, a = out.baseline, out.advanced
        _columns(
            [
                ["", "baseline", "advanced", ""],
                ["KTU", _number(d["ktu"]["baseline"]), _number(d["ktu"]["advanced"]), "1 = the same order"],
                ["RBO", _number(d["rbo"]["baseline"]), _number(d["rbo"]["advanced"]), "1 = the same documents on top"],
                ["topics", str(b.ranked_topics), str(a.ranked_topics), "ranked by both runs"],
            ]
        )
        print()
    header = ["measure"]
    if not out.replicability:
        header += ["RMSE b", "RMSE a", "nRMSE b", "nRMSE a"]
    header += ["ER", "DRI", "p b", "p a"]
    rows = [header]
    for m in out.measures:
        row = [m]
        if not out.replicability:
            row += [_number(d[k][s][m]) for k in ("rmse", "nrmse") for s in ("baseline", "advanced")]
        row += [_number(d["er"][m]), _number(d["dri"][m])]
        row += [_number(d["p"][s][m], p=True) for s in ("baseline", "advanced")]
        rows.append(row)
    _columns(rows)
    test, good = ("unpaired t-test", "") if out.replicability else ("paired t-test", "RMSE near 0, ")
    print(
        f"b: the baseline, a: the advanced run, each against its reproduction; p: {test}. "
        f"A good reproduction: {good}ER near 1, DRI near 0, p not small (docs/reproduce.md)"
    )
