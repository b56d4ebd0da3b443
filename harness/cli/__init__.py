"""Command line: argument parsing only. Each HarnessError subclass carries its exit code:

  0 ok · 1 expectations not met · 2 bad input (config, data, flags) · 3 engine failure (Java/Lucene)

Errors go to stderr without a traceback unless --debug is given. Progress bars go to stderr
and only when it is a terminal (see harness.cli.progress).

Each command's module builds its parser from the bottom floor (policies, events, errors) and
harness.verbs.similarity, and reaches what its command runs (its verb, the judging server)
through :func:`harness.lazy.module`, loaded when the command runs: a process importing this
package takes 69 ms, one importing it with every module it defers 295 ms (166 harness modules,
numpy, yaml; ``python -c pass`` 25 ms; medians of 15, quiet 2-core machine), and ``harness --help``
and every parser need none of them.
"""

from __future__ import annotations

import argparse
import os
import sys

from harness.cli import analyze, cache, compare, evaluate, fuse, judge, lab, reproduce, run, system, trec_eval
from harness.cli.failures import handle_signals, report_failure
from harness.cli.flags import EXIT_CODES, command
from harness.cli.notes import harness_warnings

__all__ = ["main", "build_parser", "COMMANDS"]

# Every subcommand is registered one way: its module's ``add_parser(sub, make)``, in this order
# (the order of `harness --help`); a module may register several (run: run, validate, index,
# search; system: doctor, schema).
COMMANDS = (run, evaluate, trec_eval, analyze, fuse, cache, compare, reproduce, lab, judge, system)

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
  harness reproduce --baseline B --advanced A --rep-baseline RB --rep-advanced RA --qrels QRELS
                                         how close a reproduction comes (repro_eval's measures)
  harness lab --index corpora --queries "language model" --similarity jm --lambda 0.2 --topk 5
  harness judge configs/demo.yaml --qrels my-qrels.txt   judge the runs' pooled top 10 in the browser
  harness cache --unused-since 30d       the run cache per index; remove runs unused for 30 days
  harness doctor                         versions, and whether the JVM starts
  harness schema > harness.schema.json   JSON Schema of configs, for editors

"""
    + EXIT_CODES
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
    for module in COMMANDS:
        module.add_parser(sub, command)
    return p


# what OpenBLAS reads for its thread count, first found first (OMP_NUM_THREADS: Dask's nannies
# set it to 1 for their workers)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _one_blas_thread() -> None:
    """numpy's OpenBLAS runs on one thread in a harness command (``OPENBLAS_NUM_THREADS=1`` unless
    the environment says otherwise). At import OpenBLAS starts a thread per core, which spin: on
    the 2-core test machine a command refusing a bad config took 0.47 s of CPU with them and 0.34 s
    without (0.38 and 0.35 s of wall time; means of 12 alternating runs), and every harness command
    imports numpy. The harness's few matrix products are small (the randomization test's 256-entry
    tables, trec_eval preference closures) and their results do not depend on the thread count:
    each output is one short dot product. Only a process that has not imported numpy yet is
    changed: the command line, not a notebook or a program calling :func:`main`; and one whose
    environment names a thread count OpenBLAS reads is left with it."""
    if "numpy" not in sys.modules and not any(name in os.environ for name in BLAS_THREADS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def main(argv: list[str] | None = None) -> int:
    _one_blas_thread()
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    if debug:  # Java's own log too (Anserini's errors with their stack traces): harness.engine.lucene
        os.environ["HARNESS_JAVA_LOG"] = "1"
    with handle_signals():
        try:
            with harness_warnings():
                return args.func(args)
        except BaseException as e:  # every failure is one clean paragraph and an exit code
            if debug or isinstance(e, SystemExit):
                raise
            return report_failure(e)
