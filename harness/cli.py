"""Command line: argument parsing only. Each HarnessError subclass carries its exit code:

  0 ok · 1 expectations not met · 2 bad input (config, data, flags) · 3 engine failure (Java/Lucene)

Errors go to stderr without a traceback unless --debug is given.
"""

from __future__ import annotations

import argparse
import sys
import time

from .errors import EngineError, ExpectationError, HarnessError

__all__ = ["main"]

EXAMPLES = """examples:
  harness run configs/demo.yaml        build/reuse the index, run, evaluate, write the report
  harness validate configs/demo.yaml   check a config without starting Java
  harness doctor                       versions, and whether the JVM starts
"""


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_validate(args) -> int:
    from .config import load_config

    cfg = load_config(args.config)
    print(f"{args.config}: OK — {len(cfg.runs)} run(s): {', '.join(map(str, cfg.runs))}")
    return 0


def cmd_run(args) -> int:
    from .config import load_config
    from .experiment import run_experiment
    from .report import render_markdown, write_report

    cfg = load_config(args.config)
    result = run_experiment(cfg, log=_log)
    out = write_report(result, cfg.output)
    print(render_markdown(result))
    _log(f"report written to {out}")
    failed = result.failed_checks
    if failed:
        raise ExpectationError("expectations not met:\n" + "\n".join(str(c) for c in failed))
    return 0


def cmd_doctor(args) -> int:
    from . import lucene

    t = time.perf_counter()
    try:
        lucene.jclass("harness.BatchSearcher")
        jvm = f"started in {time.perf_counter() - t:.2f} s"
    except EngineError as e:
        jvm = f"FAILED: {e}"
    for k, v in lucene.versions().items():   # java and lucene appear once the JVM runs
        print(f"{k:10} {v}")
    print(f"{'jvm':10} {jvm}")
    return 0 if lucene.started() else 3


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="harness", description="Lucene-backed retrieval experiments with exact trec_eval metrics.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    r = sub.add_parser("run", help="run an experiment config end to end")
    r.add_argument("config", help="the YAML config")
    r.set_defaults(func=cmd_run)
    v = sub.add_parser("validate", help="check a config without starting Java")
    v.add_argument("config")
    v.set_defaults(func=cmd_validate)
    d = sub.add_parser("doctor", help="print versions and check that the JVM starts")
    d.set_defaults(func=cmd_doctor)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except HarnessError as e:
        if args.debug:
            raise
        print(f"harness: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("harness: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
