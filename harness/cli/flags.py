"""What every subcommand's parser is made of: :func:`command` makes one (its ``--debug``, its
examples and the exit codes in its epilog), and the flags several commands share (``-m``, the
evaluation policies). Each command module's ``add_parser(sub, make)`` is called with ``make =
command`` by :func:`harness.cli.build_parser`."""

from __future__ import annotations

import argparse

from harness.policies import (
    DEFAULT_IR_METADATA,
    DEFAULT_MEASURES,
    DUPLICATES,
    IR_METADATA,
    MISSING_TOPICS,
    RUN_FORMATS,
    TIES,
    EvalPolicy,
    ReadPolicy,
)

__all__ = ["EXIT_CODES", "command", "measure_flag", "policy_flags", "run_format_flag", "eval_policy"]

EXIT_CODES = """exit codes:
  0 ok · 1 expectations (expect:) not met · 2 bad input (config, data files, flags) ·
  3 environment (Java, Lucene, full disk, permissions, memory); errors go to stderr,
  --debug shows a traceback; 130/143 interrupted (Ctrl-C / SIGTERM: previous outputs intact)
"""

DEBUG = argparse.ArgumentParser(add_help=False)
# SUPPRESS: the subcommand's --debug sets args.debug only when given, never resets the top one
DEBUG.add_argument(
    "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks and Anserini's own log"
)


def command(sub, name: str, help: str, examples: str, func):
    """The subcommand ``name`` of ``sub``, run by ``func(args)``."""
    p = sub.add_parser(
        name,
        parents=[DEBUG],
        help=help,
        description=help[0].upper() + help[1:] + ".",
        epilog="examples:\n" + examples + "\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=func)
    return p


def measure_flag(p, help: str) -> None:
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
        + "; ".join(f"{k}: {v.doc}" for k, v in RUN_FORMATS.items())
        + f" (default {ReadPolicy.run_format})",
    )


def ir_metadata_flag(p) -> None:
    """--ir-metadata: where each run's ir_metadata is written (run, search; harness.report.ir_metadata)."""
    p.add_argument(
        "--ir-metadata",
        choices=tuple(IR_METADATA),
        default=DEFAULT_IR_METADATA,
        help="each run's ir_metadata (ir-metadata.org: how it was made): "
        + "; ".join(f"{k}: {v.doc}" for k, v in IR_METADATA.items())
        + f" (default {DEFAULT_IR_METADATA})",
    )


def policy_flags(p) -> None:
    """--ties, --missing-topics, --duplicates (evaluate, compare)."""
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


def eval_policy(args) -> EvalPolicy:
    """The evaluation policy of :func:`policy_flags`' flags."""
    return EvalPolicy(ties=args.ties, missing_topics=args.missing_topics)
