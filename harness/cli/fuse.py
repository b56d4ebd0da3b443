"""`harness fuse`: fuse run files into one (pyserini.fusion's methods and more), over the fuse
verb (harness.verbs.fuse)."""

from __future__ import annotations

import argparse

from harness import lazy
from harness.cli.flags import run_format_flag
from harness.cli.notes import note_left_out
from harness.policies import (
    DEFAULT_ALPHA,
    DEFAULT_DEPTH,
    DEFAULT_FUSION_K,
    DEFAULT_RRF_K,
    FUSE_RUNTAG,
    FUSION_METHODS,
    NORMALIZATIONS,
    ReadPolicy,
    fusion_methods_with,
)

verbs_fuse = lazy.module("harness.verbs.fuse")


def _for(option: str) -> str:
    """The methods that read ``option`` (the registry's), as a flag's help names them."""
    return "/".join(fusion_methods_with(option)) + ": "


def _cut(text: str) -> int | None:
    if text == "all":
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1 or 'all' (got {text!r})")
    return int(text)


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""

    p = make(
        sub,
        "fuse",
        "fuse TREC run files into one: reciprocal rank fusion, interpolation, average, "
        "normalize (each equal to pyserini.fusion's), combsum and combmnz",
        "  harness fuse bm25.trec ql.trec --method rrf --output fused.trec\n"
        "  harness fuse a.trec b.trec --method interpolation --alpha 0.3 -o fused.trec\n"
        "  harness fuse a.trec b.trec c.trec --method combmnz --norm zscore --weights 1 1 2 -o fused.trec\n",
        cmd_fuse,
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="TREC run files: qid Q0 docid rank score tag (two or more; a run's ir_metadata file given with it, as "
        "runs/* gives it, is left out)",
    )
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the fused TREC run file to write")
    p.add_argument(
        "--method",
        choices=tuple(FUSION_METHODS),
        default="rrf",
        help="; ".join(f"{k}: {v.doc}" for k, v in FUSION_METHODS.items()) + " (default rrf)",
    )
    p.add_argument(
        "--rrf-k", type=int, default=DEFAULT_RRF_K, metavar="K", help=f"{_for('rrf_k')}k (default {DEFAULT_RRF_K})"
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=DEFAULT_ALPHA,
        help=f"{_for('alpha')}the weight of the first run (default {DEFAULT_ALPHA})",
    )
    p.add_argument(
        "--depth",
        type=_cut,
        default=DEFAULT_DEPTH,
        metavar="N|all",
        help=f"use each run's first N rows per topic, in file order (default {DEFAULT_DEPTH})",
    )
    p.add_argument(
        "-k",
        type=_cut,
        default=DEFAULT_FUSION_K,
        metavar="N|all",
        help=f"documents per topic in the fused run (default {DEFAULT_FUSION_K})",
    )
    p.add_argument(
        "--norm",
        choices=tuple(NORMALIZATIONS),
        default="none",
        help=_for("norm") + "; ".join(f"{k}: {v}" for k, v in NORMALIZATIONS.items()) + " (default none)",
    )
    p.add_argument("--weights", type=float, nargs="+", metavar="W", help=f"{_for('weights')}one weight per run")
    p.add_argument("--runtag", default=FUSE_RUNTAG, help=f"the fused run's tag column (default {FUSE_RUNTAG})")
    run_format_flag(p, "the layout of the input runs and of the fused run written")


def cmd_fuse(args: argparse.Namespace) -> int:
    policy = verbs_fuse.fusion_policy(
        method=args.method,
        rrf_k=args.rrf_k,
        alpha=args.alpha,
        depth=args.depth,
        k=args.k,
        norm=args.norm,
        weights=None if args.weights is None else tuple(args.weights),
    )
    runs, descriptions = verbs_fuse.runs_and_descriptions(args.runs)  # the verb's rule: said once here
    note_left_out(descriptions)
    verbs_fuse.fuse(runs, policy, args.output, args.runtag, ReadPolicy(run_format=args.run_format))
    return 0
