"""Command line: argument parsing only. Each HarnessError subclass carries its exit code:

  0 ok · 1 expectations not met · 2 bad input (config, data, flags) · 3 engine failure (Java/Lucene)

Errors go to stderr without a traceback unless --debug is given. Progress bars go to stderr
and only when it is a terminal (see harness.cli.progress).
"""

from __future__ import annotations

import argparse
import os

from harness.cli.experiment import cmd_index, cmd_run, cmd_schema, cmd_search, cmd_validate
from harness.cli.files import cmd_compare, cmd_doctor, cmd_evaluate
from harness.cli.lab import LAB_EXAMPLES, add_lab_arguments, cmd_lab
from harness.cli.notes import harness_warnings
from harness.policies import (
    ALIGNMENTS,
    CORRECTIONS,
    DEFAULT_MEASURES,
    DUPLICATES,
    FAMILIES,
    MAX_WORKERS,
    MISSING_TOPICS,
    RUN_FORMATS,
    TESTS,
    TIES,
    ComparePolicy,
    EvalPolicy,
    ReadPolicy,
    StatsPolicy,
)

__all__ = ["main", "build_parser"]

_DEBUG_PARENT: argparse.ArgumentParser | None = None

EXIT_CODES = """exit codes:
  0 ok · 1 expectations (expect:) not met · 2 bad input (config, data files, flags) ·
  3 environment (Java, Lucene, full disk, permissions, memory); errors go to stderr,
  --debug shows a traceback; 130/143 interrupted (Ctrl-C / SIGTERM: previous outputs intact)
"""

EXAMPLES = (
    """examples:
  harness run configs/demo.yaml          build/reuse the index, search, evaluate, write the report
  harness run --dry-run configs/demo.yaml     what would be built, searched or reused
  harness run --workers 2 configs/demo.yaml   the same runs, searched on 2 Dask worker processes
  harness run CONFIG --output DIR --set depth=100   a config varied (dotted keys, YAML values), written to DIR
  harness validate configs/demo.yaml     check a config without starting Java
  harness index configs/demo.yaml        build or reuse the index only
  harness search configs/demo.yaml       index + runs (no evaluation): OUTPUT/runs/*.trec
  harness evaluate RUN QRELS -m AP nDCG@10 [-q]       trec_eval-like evaluation of a run file
  harness trec_eval [-q] [-m map] QRELS RUN   trec_eval 9.0.8's command line and output
  harness analyze TEXT --language de          the terms Anserini's analyzer makes of a text
  harness fuse RUN RUN... --method rrf -o FUSED   fuse runs (pyserini.fusion's methods and more)
  harness compare RUN RUN... --qrels QRELS --baseline RUN -m AP   paired tests against a baseline
  harness lab --index corpora --queries "language model" --similarity jm --lambda 0.2 --topk 5
  harness judge configs/demo.yaml --qrels my-qrels.txt   judge the runs' pooled top 10 in the browser
  harness cache --unused-since 30d       the run cache per index; remove runs unused for 30 days
  harness doctor                         versions, and whether the JVM starts
  harness schema > harness.schema.json   JSON Schema of configs, for editors

"""
    + EXIT_CODES
)


def _sub(sub, name: str, help: str, examples: str, func):
    p = sub.add_parser(
        name,
        parents=[_DEBUG_PARENT],
        help=help,
        description=help[0].upper() + help[1:] + ".",
        epilog="examples:\n" + examples + "\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=func)
    return p


def _key_value(text: str) -> str:
    from harness.verbs.run import parse_set

    try:
        parse_set(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _config_command(sub, name, help, examples, func, dry_run: str | None, output: bool = True):
    p = _sub(sub, name, help, examples, func)
    p.add_argument("config", help="the YAML config")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        type=_key_value,
        metavar="KEY=VALUE",
        help="replace a key of the config, dotted (index.stemmer=krovetz, runs.0.bm25.k1=1.2, 'runs=[bm25, qld]'); "
        "the value is YAML; repeatable; checked like the file's keys and listed in manifest.json; "
        "a path given here is relative to the current folder",
    )
    if output:  # the commands that read topics (and qrels) and write a report
        for flag in ("topics", "qrels"):
            p.add_argument(
                f"--{flag}",
                metavar="SPEC",
                help=f"the config's {flag} replaced: a file (relative to the current folder), irds:ID or "
                f"pyserini:NAME (read from the local caches, as `{flag}: {{irds: ID}}` in the config)",
            )
        p.add_argument(
            "--output",
            metavar="DIR",
            help="the report folder instead of the config's `output` (relative to the current folder)",
        )
    if dry_run:
        p.add_argument("--dry-run", action="store_true", help=dry_run)
        _execution_flags(p)
    return p


def _scheduler(text: str) -> str:
    from harness.verbs.run import scheduler_problem

    if why := scheduler_problem(text):
        raise argparse.ArgumentTypeError(why)
    return text


def _workers(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be an integer in [1, {MAX_WORKERS:,}] (got {text!r})")
    return int(text)


def _execution_flags(p) -> None:
    """--scheduler / --workers: override the config's `execution:` (docs/deployment.md "Clusters")."""
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--scheduler",
        type=_scheduler,
        metavar="ADDRESS",
        default=os.environ.get("HARNESS_SCHEDULER") or None,
        help="index and search on the Dask cluster of this scheduler, e.g. tcp://host:8786 "
        "(default: $HARNESS_SCHEDULER, else the config's `execution`)",
    )
    g.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
        help="index and search on a Dask LocalCluster of N single-threaded worker processes",
    )


def _measure_flag(p, help: str) -> None:
    """-m/--measure, one or more measures, repeatable (evaluate, compare); without it, a config's
    default measures (policies.DEFAULT_MEASURES), which the commands read when it is None."""
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="extend",
        nargs="+",
        metavar="MEASURE",
        help=f"{help} (default: {' '.join(DEFAULT_MEASURES)}, a config's default measures)",
    )


def run_format_flag(p, what: str) -> None:
    """--run-format: the layout of the run files ``what`` names (evaluate, compare, fuse, search)."""
    p.add_argument(
        "--run-format",
        choices=tuple(RUN_FORMATS),
        default=ReadPolicy.run_format,
        help=f"{what}: "
        + "; ".join(f"{k}: {v}" for k, v in RUN_FORMATS.items())
        + f" (default {ReadPolicy.run_format})",
    )


def _policy_flags(p) -> None:
    p.add_argument(
        "--ties",
        choices=tuple(TIES),
        default=EvalPolicy.ties,
        help="order of equal scores: trec_eval re-sorts by score then doc id (default); "
        "as-ranked keeps the file's order",
    )
    p.add_argument(
        "--missing-topics",
        choices=tuple(MISSING_TOPICS),
        default=EvalPolicy.missing_topics,
        help="judged topics the run lacks: count as 0 (trec_eval -c, default) or leave out",
    )
    p.add_argument(
        "--duplicates",
        choices=tuple(DUPLICATES),
        default=ReadPolicy.duplicates,
        help="a doc listed twice for one topic: an error naming both lines (default), or keep its first row",
    )


_PLAN_HELP = (
    "print the plan instead: the index path and whether a built index matches its "
    "fingerprint, each run and whether its cached file exists. Starts no Java, except "
    "that topics of format trec or anserini:<Reader> are read by Anserini"
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="harness",
        description="Lucene-backed retrieval experiments with exact trec_eval metrics.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="show tracebacks, Python's and Java's, and Anserini's own log (accepted before or after the command)",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    global _DEBUG_PARENT
    _DEBUG_PARENT = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: the subcommand's --debug sets args.debug only when given, never resets the top one
    _DEBUG_PARENT.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks and Anserini's own log"
    )

    _config_command(
        sub,
        "run",
        "run an experiment config end to end: index, search, evaluate, report",
        "  harness run configs/demo.yaml\n  harness run --dry-run configs/demo.yaml\n"
        "  harness run configs/demo.yaml --output my-report --set depth=100 --set 'measures=[AP, nDCG@10]'\n"
        "  harness run --workers 2 configs/demo.yaml\n  harness run --scheduler tcp://head:8786 configs/demo.yaml\n",
        cmd_run,
        _PLAN_HELP,
    )
    _config_command(
        sub,
        "validate",
        "check a config without starting Java",
        "  harness validate configs/demo.yaml\n",
        cmd_validate,
        None,
    )
    _config_command(
        sub,
        "index",
        "build the config's index, or reuse it when its fingerprint matches; "
        "print its path, fingerprint and statistics",
        "  harness index configs/demo.yaml\n  harness index --dry-run configs/demo.yaml\n"
        "  harness index configs/demo.yaml --set index.stemmer=krovetz\n",
        cmd_index,
        _PLAN_HELP,
        output=False,
    )
    search = _config_command(
        sub,
        "search",
        "index and search (no evaluation); write each run to OUTPUT/runs/*.trec, named after its label "
        "without spaces (dirichlet_mu=500.trec), or with --run-format msmarco to OUTPUT/runs/*.tsv",
        "  harness search configs/demo.yaml\n  harness search --dry-run configs/demo.yaml\n"
        "  harness search configs/demo.yaml --run-format msmarco\n",
        cmd_search,
        _PLAN_HELP,
    )
    run_format_flag(search, "the layout of the run files written")

    e = _sub(
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
    _measure_flag(e, "measures, e.g. AP nDCG@10 P@10 (repeatable)")
    e.add_argument(
        "-q", "--per-topic", action="store_true", help="also print 'measure<TAB>topic<TAB>value' for every topic"
    )
    _policy_flags(e)
    run_format_flag(e, "the run file's layout")
    e.add_argument(
        "--msmarco-mrr",
        action="store_true",
        help="print MS MARCO's official 'MRR @10' and 'QueriesRanked' as msmarco_passage_eval.py prints them "
        "(every qrels line relevant, the rank column as written, divided by the qrels' topics; "
        "docs/semantics.md), after the measures given with -m, if any",
    )

    from harness.cli.trec_eval import add_parser as _trec_eval_parser

    _trec_eval_parser(sub, _sub)

    from harness.cli.analyze import add_parser as _analyze_parser

    _analyze_parser(sub, _sub)

    from harness.cli.fuse import add_parser as _fuse_parser

    _fuse_parser(sub, _sub)

    from harness.cli.cache import add_parser as _cache_parser

    _cache_parser(sub, _sub)

    c = _sub(
        sub,
        "compare",
        "compare runs with a baseline: per-topic scores, paired tests, "
        "multiple-testing correction, bootstrap CI and wins/ties/losses",
        "  harness compare reports/demo/runs/*.trec --qrels qrels/demo.txt \\\n"
        "      --baseline 'bm25(k1=0.9,b=0.4)' -m AP nDCG@10 --test randomization --seed 1\n",
        cmd_compare,
    )
    c.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files; a run's name is its file name without .trec")
    c.add_argument("--qrels", required=True, help="TREC qrels file")
    c.add_argument(
        "--baseline",
        required=True,
        metavar="RUN|NAME",
        help="the baseline: one of the runs (file or name), or another run file",
    )
    _measure_flag(c, "measures (repeatable)")
    c.add_argument(
        "--test",
        choices=tuple(TESTS),
        default=StatsPolicy.test,
        help="; ".join(f"{k}: {v}" for k, v in TESTS.items()) + f" (default {StatsPolicy.test})",
    )
    c.add_argument(
        "--correction",
        choices=tuple(CORRECTIONS),
        default=StatsPolicy.correction,
        help="; ".join(f"{k}: {v}" for k, v in CORRECTIONS.items()) + f" (default {StatsPolicy.correction})",
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
        help=f"randomization test resamples (default {StatsPolicy.permutations})",
    )
    c.add_argument(
        "--align",
        choices=tuple(ALIGNMENTS),
        default=ComparePolicy.align,
        help="; ".join(f"{k}: {v}" for k, v in ALIGNMENTS.items()) + f" (default {ComparePolicy.align})",
    )
    c.add_argument(
        "--seed",
        type=int,
        default=StatsPolicy.seed,
        help=f"seed of the randomization/bootstrap (default {StatsPolicy.seed})",
    )
    _policy_flags(c)
    run_format_flag(c, "the run files' layout")

    lab = _sub(
        sub,
        "lab",
        "the course lab: search an index (or a folder of .txt files, indexed once "
        "and reused) and print each query's ranking with P@k, R@k, AP, nDCG@k and RR",
        LAB_EXAMPLES,
        cmd_lab,
    )
    add_lab_arguments(lab)

    from harness.cli.judge import JUDGE_EXAMPLES, add_judge_arguments, cmd_judge

    j = _sub(
        sub,
        "judge",
        "open a local judging page for the pooled top k of a config's runs (or of lab-style "
        "queries); every judgment goes at once into a TREC qrels file and the runs' metrics update",
        JUDGE_EXAMPLES,
        cmd_judge,
    )
    add_judge_arguments(j)

    _sub(sub, "doctor", "print versions and check that the JVM starts", "  harness doctor\n", cmd_doctor)
    _sub(
        sub,
        "schema",
        "print the JSON Schema of experiment configs (for editors: completion and checking)",
        "  harness schema > configs/harness.schema.json\n"
        "  then start a config with: # yaml-language-server: $schema=harness.schema.json\n",
        cmd_schema,
    )
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    if debug:  # Java's own log too (Anserini's errors with their stack traces): harness.engine.lucene
        os.environ["HARNESS_JAVA_LOG"] = "1"
    from harness.cli.failures import handle_signals, report_failure

    with handle_signals():
        try:
            with harness_warnings():
                return args.func(args)
        except BaseException as e:  # every failure is one clean paragraph and an exit code
            if debug or isinstance(e, SystemExit):
                raise
            return report_failure(e)
