"""`harness cache`: the run cache per index, and pruning runs not used since a date, over the
cache verb (harness.verbs.cache)."""

from __future__ import annotations

import argparse
import datetime as dt

from harness import lazy

verbs_cache = lazy.module("harness.verbs.cache")


def add_parser(sub, make) -> None:
    """The subcommand, made by ``make`` (harness.cli.flags.command)."""
    p = make(
        sub,
        "cache",
        "show the run cache (size per index and per run, when each run was last used) and remove "
        "the runs not used since a date; reports keep their runs (hard links)",
        "  harness cache                          the indexes folder a config here would use\n"
        "  harness cache configs/demo.yaml --runs     the config's index, run by run\n"
        "  harness cache indexes --unused-since 2026-11-01 --dry-run   what would be removed\n"
        "  harness cache indexes --unused-since 30d   remove runs unused for 30 days\n",
        cmd_cache,
    )
    p.add_argument(
        "path", nargs="?", help="a config, an index folder or a folder of indexes (default: ./indexes or above)"
    )
    p.add_argument("--runs", action="store_true", help="list every cached run")
    p.add_argument(
        "--unused-since",
        metavar="DATE",
        help="remove the cached runs not used since DATE (2026-11-01, 2026-11-01T12:00, or 30d: 30 days ago)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="with --unused-since: list what would be removed, remove nothing"
    )


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def _when(t: float) -> str:
    return dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M")


def cmd_cache(args: argparse.Namespace) -> int:
    since = verbs_cache.parse_since(args.unused_since) if args.unused_since else None
    out = verbs_cache.cache(args.path, unused_since=since, dry_run=args.dry_run)
    if not out.indexes:
        print(f"no harness index under {out.root}")
        return 0
    for ix in out.indexes:
        last = f", last used {_when(ix.runs[0].last_used)}" if ix.runs else ""
        print(f"{ix.path}: index {_mb(ix.index_bytes)}, {len(ix.runs)} cached run(s) {_mb(ix.run_bytes)}{last}")
        if args.runs:
            for r in ix.runs:
                held = f", its text also in {r.linked} report file(s)" if r.linked else ""
                print(f"  {r.name} [{r.key}] {_mb(r.bytes)}, used {_when(r.last_used)}{held}")
    total_runs = sum(len(ix.runs) for ix in out.indexes)
    print(
        f"total: {len(out.indexes)} index(es) {_mb(sum(ix.index_bytes for ix in out.indexes))}, "
        f"{total_runs} cached run(s) {_mb(sum(ix.run_bytes for ix in out.indexes))}"
    )
    if since is not None:
        verb = "would remove" if args.dry_run else "removed"
        for index, r in out.removed:
            print(f"{verb} {index.name}: {r.name} [{r.key}], used {_when(r.last_used)}")
        freed = sum(r.freed for _, r in out.removed)
        print(
            f"{verb} {len(out.removed)} run(s) not used since {since:%Y-%m-%d %H:%M}: {_mb(freed)} "
            f"{'to free' if args.dry_run else 'freed'} (texts still in reports stay there)"
        )
    return 0
