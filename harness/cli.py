"""Command line: argument parsing only. Each HarnessError subclass carries its exit code:

  0 ok · 1 expectations not met · 2 bad input (config, data, flags) · 3 engine failure (Java/Lucene)

Errors go to stderr without a traceback unless --debug is given. Progress bars go to stderr
and only when it is a terminal (see harness.progress).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from .errors import DataError, EngineError, ExpectationError, HarnessError

__all__ = ["main", "build_parser"]

EXIT_CODES = """exit codes:
  0 ok · 1 expectations (expect:) not met · 2 bad input (config, data files, flags) ·
  3 engine failure (Java, Lucene); errors go to stderr, --debug shows a traceback
"""

EXAMPLES = """examples:
  harness run configs/demo.yaml          build/reuse the index, search, evaluate, write the report
  harness run --dry-run configs/demo.yaml     what would be built, searched or reused
  harness validate configs/demo.yaml     check a config without starting Java
  harness index configs/demo.yaml        build or reuse the index only
  harness search configs/demo.yaml       index + runs (no evaluation): OUTPUT/runs/*.trec
  harness evaluate RUN QRELS -m AP nDCG@10 [-q]       trec_eval-like evaluation of a run file
  harness compare RUN RUN... --qrels QRELS --baseline RUN -m AP   paired tests against a baseline
  harness lab --index corpora --queries "language model" --similarity jm --lambda 0.2 --topk 5
  harness doctor                         versions, and whether the JVM starts

""" + EXIT_CODES


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------ progress
class _ExperimentProgress:
    """A log function for run_experiment that draws a spinner while the index is built and a
    bar over the runs (one step per run), from the lines it logs. Silent unless a terminal."""

    def __init__(self, runs: int):
        from .progress import Progress, Spinner

        self._Progress, self._Spinner = Progress, Spinner
        self.runs = runs
        self.spinner = None
        self.bar = None

    def __call__(self, msg: str) -> None:
        if msg.startswith("indexing "):
            _log(msg)
            self.spinner = self._Spinner("indexing").__enter__()
            return
        self._stop_spinner()
        if msg.startswith("index "):
            _log(msg)
            self.bar = self._Progress(self.runs, "searching", unit="runs")
        elif msg.startswith("run ") and self.bar is not None:
            self.bar.update()
            self.bar.write(msg)     # redraws the bar, with the new count, below the line
        else:
            (self.bar.write if self.bar else _log)(msg)

    def _stop_spinner(self) -> None:
        if self.spinner is not None:
            self.spinner.__exit__(None, None, None)
            self.spinner = None

    def close(self) -> None:
        self._stop_spinner()
        if self.bar is not None:
            self.bar.close()


def _run_with_progress(cfg):
    from .experiment import run_experiment

    progress = _ExperimentProgress(len(cfg.runs))
    try:
        return run_experiment(cfg, log=progress)
    finally:
        progress.close()


# ------------------------------------------------------------------------------ the plan
def _rel(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def print_plan(cfg, command: str) -> None:
    """What `command` would build, search, reuse and write: the index (and whether a built one
    matches the fingerprint), and, unless indexing only, each run's cache file. Starts no Java
    for tsv/jsonl topics (trec and anserini:<Reader> topics are read by Anserini)."""
    from .experiment import RUN_CACHE, plan, run_key
    from .index import open_manifest

    p = plan(cfg)
    print(f"plan for {cfg.source} (harness {command} --dry-run: nothing is built, searched or written)")
    print(f"index     {p.index_path}")
    manifest = open_manifest(p.index_path)
    if p.index_exists:
        action = "reuse (fingerprint matches)"
    elif manifest is not None:
        action = f"rebuild (fingerprint differs: built {str(manifest.get('fingerprint'))[:12]})"
    elif p.index_path.exists():
        action = "error: the folder exists but was not built by the harness"
    else:
        action = "build (no index there yet)"
    print(f"          fingerprint {p.fingerprint[:12]}: {action}")
    if command == "index":
        return
    from .topics import read_topics

    topics = read_topics(cfg.topics_path, cfg.topics_format)
    print(f"topics    {len(topics)} from {_rel(cfg.topics_path)}, depth {cfg.depth}")
    cache = p.index_path / RUN_CACHE
    width = max(len(str(s)) for s in cfg.runs)
    for sim in cfg.runs:
        key = run_key(p.fingerprint, sim, topics, cfg.depth)
        path = cache / f"{sim}.{key[:16]}.trec"
        state = f"reuse {path.name}" if p.index_exists and path.exists() else "search (not cached)"
        print(f"run       {str(sim):{width}}  {state}")
    if command == "search":
        print(f"writes    {cfg.output / 'runs'}/<run>.trec")
    else:
        evaluated = f"evaluate {', '.join(cfg.measures)} against {_rel(cfg.qrels_path)}" if cfg.qrels_path else "no qrels: runs only"
        print(f"then      {evaluated}; report -> {cfg.output}")


# ------------------------------------------------------------------------------ commands
def cmd_validate(args) -> int:
    from .config import load_config

    cfg = load_config(args.config)
    print(f"{args.config}: OK — {len(cfg.runs)} run(s): {', '.join(map(str, cfg.runs))}")
    return 0


def cmd_run(args) -> int:
    from .config import load_config
    from .report import render_markdown, write_report

    cfg = load_config(args.config)
    if args.dry_run:
        print_plan(cfg, "run")
        return 0
    result = _run_with_progress(cfg)
    out = write_report(result, cfg.output)
    print(render_markdown(result))
    _log(f"report written to {out}")
    failed = result.failed_checks
    if failed:
        raise ExpectationError("expectations not met:\n" + "\n".join(str(c) for c in failed))
    return 0


def cmd_index(args) -> int:
    from .config import load_config
    from .experiment import plan
    from .index import ensure_index
    from .progress import Spinner

    cfg = load_config(args.config)
    if args.dry_run:
        print_plan(cfg, "index")
        return 0
    p = plan(cfg)
    t = time.perf_counter()
    with Spinner("indexing"):
        info = ensure_index(p.corpus, p.options, p.index_path, threads=cfg.index_threads, log=_log)
    seconds = time.perf_counter() - t
    stats = info.manifest.get("stats", {})
    print(f"index                {info.path}")
    print(f"status               {'reused' if info.reused else f'built in {seconds:.2f} s'}")
    print(f"fingerprint          {info.fingerprint}")
    print(f"collection           {cfg.collection_path} ({cfg.collection_format})")
    print(f"options              stemmer={p.options.stemmer}, stopwords={'removed' if p.options.stopwords else 'kept'}")
    for key in ("documents", "non_empty_documents", "total_terms", "unique_terms"):
        value = stats.get(key)
        print(f"{key.replace('_', ' '):20} {'not counted' if value is None else value}")
    return 0


def _copy_atomic(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cmd_search(args) -> int:
    from .config import load_config

    cfg = load_config(args.config)
    if args.dry_run:
        print_plan(cfg, "search")
        return 0
    # no qrels: run_experiment then searches (or reuses) and evaluates nothing
    result = _run_with_progress(replace(cfg, qrels_path=None, expect={}))
    out = cfg.output / "runs"
    for r in result.runs:
        dst = out / f"{r.name}.trec"
        _copy_atomic(r.path, dst)
        print(f"{r.name}\t{'reused' if r.reused else 'searched'}\t{dst}")
    return 0


def _fields(path: str) -> int | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    return len(line.split())
    except OSError:
        return None
    return None


def _read_run_and_qrels(run_path: str, qrels_path: str, duplicates: str = "error"):
    from .qrels import read_qrels
    from .runs import read_run

    for path, what in ((run_path, "run"), (qrels_path, "qrels")):
        if not Path(path).is_file():
            raise DataError(path, f"{what} file not found")
    if _fields(run_path) == 4 and _fields(qrels_path) == 6:
        raise DataError(run_path, "this looks like qrels and the qrels file like a run: the order is "
                        "RUN QRELS (trec_eval's is qrels first)")
    return read_run(run_path, duplicates=duplicates), read_qrels(qrels_path)


def _measures(texts: list[str]):
    from .metrics import parse_measure

    out = []
    for text in texts:
        try:
            m = parse_measure(text)
        except ValueError as e:
            raise DataError("-m", str(e)) from None
        if m not in out:
            out.append(m)
    return out


def _eval_policy(args):
    from .metrics import EvalPolicy

    return EvalPolicy(ties=args.ties, missing_topics=args.missing_topics)


def cmd_evaluate(args) -> int:
    from .metrics import evaluate
    from .progress import Progress

    measures = _measures(args.measures)
    policy = _eval_policy(args)
    with Progress(3, "reading run") as bar:
        run_path, qrels_path = args.run, args.qrels
        run, qrels = _read_run_and_qrels(run_path, qrels_path, args.duplicates)
        bar.update(2, label=f"evaluating {len(measures)} measures")
        ev = evaluate(run, qrels, measures, policy)
        bar.update()
    names = [str(m) for m in measures]
    if args.per_topic:
        for topic in sorted(ev.topics):
            for name in names:
                print(f"{name}\t{topic}\t{ev.per_topic[name][topic]:.4f}")
    for name in names:
        print(f"{name}\tall\t{ev.means[name]:.4f}")
    a = ev.audit
    _log(f"# {a['topics_evaluated']} topics evaluated ({a['judged_missing_from_run']} judged topics missing "
         f"from the run, {a['run_topics_without_judgments']} run topics without judgments); policy: {policy}")
    return 0


def _compare_inputs(args):
    """(names, paths) of the runs, baseline first among equals, and the baseline's name."""
    paths = [Path(p) for p in args.runs]
    seen = set()
    for p in paths:
        if p.resolve() in seen:
            raise DataError(str(p), "run file given twice")
        seen.add(p.resolve())
    names = [p.stem for p in paths]
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]     # same stem twice: name runs by their path
    base = args.baseline
    matches = [n for n, p in zip(names, paths) if base in (n, str(p)) or (Path(base).exists() and p.exists() and Path(base).resolve() == p.resolve())]
    if matches:
        baseline = matches[0]
    elif Path(base).is_file():
        paths.insert(0, Path(base))
        baseline = Path(base).stem if Path(base).stem not in names else base
        names.insert(0, baseline)
    else:
        raise DataError("--baseline", f"{base!r} is neither one of the runs ({', '.join(names)}) nor a run file")
    if len(paths) < 2:
        raise DataError("compare", "needs at least one run besides the baseline")
    return names, paths, baseline


def cmd_compare(args) -> int:
    import numpy as np

    from .metrics import evaluate
    from .progress import Progress
    from .qrels import read_qrels
    from .runs import read_run
    from .stats import StatsPolicy, compare, pairs_against

    measures = _measures(args.measures)
    names, paths, baseline = _compare_inputs(args)
    for p in [*paths, Path(args.qrels)]:
        if not p.is_file():
            raise DataError(str(p), "file not found")
    try:
        stats_policy = StatsPolicy(test=args.test, correction=args.correction, family=args.family,
                                   alpha=args.alpha, permutations=args.permutations, seed=args.seed)
    except ValueError as e:
        raise DataError("compare", str(e)) from None
    policy = _eval_policy(args)
    qrels = read_qrels(args.qrels)
    evaluations = {}
    with Progress(len(paths) + 1, "evaluating runs", unit="steps") as bar:
        for name, path in zip(names, paths):
            evaluations[name] = evaluate(read_run(path, duplicates=args.duplicates), qrels, measures, policy)
            bar.update()
        common = [t for t in evaluations[baseline].topics if all(t in ev.per_topic[str(measures[0])] for ev in evaluations.values())]
        if not common:
            raise DataError(args.qrels, "no topic is evaluated for every run")
        scores = {n: {str(m): np.array([ev.per_topic[str(m)][t] for t in common]) for m in measures}
                  for n, ev in evaluations.items()}
        bar.update(label="testing")
        rows = compare(scores, pairs_against(baseline, names), [str(m) for m in measures], stats_policy)
    dropped = max(len(ev.topics) for ev in evaluations.values()) - len(common)
    print(f"baseline: {baseline}; {len(common)} topics" + (f" ({dropped} not evaluated for every run left out)" if dropped else ""))
    print(f"statistics: {stats_policy}")
    print(f"evaluation: {policy}")
    header = ["measure", "run", "mean", "baseline", "diff", f"{stats_policy.ci_level:.0%} CI", "p", f"p ({args.correction})", "W/T/L", ""]
    table = [header]
    for c in rows:
        table.append([c.measure, c.run, f"{c.mean_run:.4f}", f"{c.mean_baseline:.4f}", f"{c.diff:+.4f}",
                      f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]", f"{c.p:.4f}", f"{c.p_corrected:.4f}",
                      f"{c.wins}/{c.ties}/{c.losses}", "*" if c.reject else ""])
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    print(f"* p ({args.correction}) < alpha = {stats_policy.alpha:g}")
    return 0


def cmd_lab(args) -> int:
    from .lab import run_lab

    return run_lab(args)


def cmd_doctor(args) -> int:
    from . import lucene

    t = time.perf_counter()
    try:
        lucene.jclass("harness.BatchSearcher")
        jvm = f"started in {time.perf_counter() - t:.2f} s"
    except EngineError as e:
        jvm = f"FAILED: {e}"
    for k, v in lucene.versions(jvm=lucene.started()).items():
        print(f"{k:10} {v}")
    print(f"{'jvm':10} {jvm}")
    return 0 if lucene.started() else 3


# ------------------------------------------------------------------------------ the parser
def _sub(sub, name: str, help: str, examples: str, func):
    p = sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".",
                       epilog="examples:\n" + examples + "\n" + EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=func)
    return p


def _config_command(sub, name, help, examples, func, dry_run: str | None):
    p = _sub(sub, name, help, examples, func)
    p.add_argument("config", help="the YAML config")
    if dry_run:
        p.add_argument("--dry-run", action="store_true", help=dry_run)
    return p


def _policy_flags(p) -> None:
    p.add_argument("--ties", choices=("trec_eval", "as-ranked"), default="trec_eval",
                   help="order of equal scores: trec_eval re-sorts by score then doc id (default); "
                        "as-ranked keeps the file's order")
    p.add_argument("--missing-topics", choices=("zero", "drop"), default="zero",
                   help="judged topics the run lacks: count as 0 (trec_eval -c, default) or leave out")
    p.add_argument("--duplicates", choices=("error", "drop"), default="error",
                   help="a doc listed twice for one topic: an error naming both lines (default), "
                        "or keep its first row")


_PLAN_HELP = ("print the plan instead: the index path and whether a built index matches its "
              "fingerprint, each run and whether its cached file exists. Starts no Java, except "
              "that topics of format trec or anserini:<Reader> are read by Anserini")


def build_parser() -> argparse.ArgumentParser:
    from .stats import CORRECTIONS, FAMILIES, TESTS

    p = argparse.ArgumentParser(
        prog="harness", description="Lucene-backed retrieval experiments with exact trec_eval metrics.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    _config_command(sub, "run", "run an experiment config end to end: index, search, evaluate, report",
                    "  harness run configs/demo.yaml\n  harness run --dry-run configs/demo.yaml\n",
                    cmd_run, _PLAN_HELP)
    _config_command(sub, "validate", "check a config without starting Java",
                    "  harness validate configs/demo.yaml\n", cmd_validate, None)
    _config_command(sub, "index", "build the config's index, or reuse it when its fingerprint matches; "
                    "print its path, fingerprint and statistics",
                    "  harness index configs/demo.yaml\n  harness index --dry-run configs/demo.yaml\n",
                    cmd_index, _PLAN_HELP)
    _config_command(sub, "search", "index and search (no evaluation); write each run to OUTPUT/runs/<run>.trec",
                    "  harness search configs/demo.yaml\n  harness search --dry-run configs/demo.yaml\n",
                    cmd_search, _PLAN_HELP)

    e = _sub(sub, "evaluate", "evaluate a TREC run file against qrels, like trec_eval (values equal "
             "trec_eval -c's); prints 'measure<TAB>all<TAB>value' lines",
             "  harness evaluate 'reports/demo/runs/bm25(k1=0.9,b=0.4).trec' qrels/demo.txt -m AP nDCG@10\n"
             "  harness evaluate RUN QRELS -m AP -m P@10 -q        per-topic lines too\n"
             "  harness evaluate RUN QRELS -m AP --missing-topics drop   trec_eval without -c\n",
             cmd_evaluate)
    e.add_argument("run", help="TREC run file: qid Q0 docid rank score tag")
    e.add_argument("qrels", help="TREC qrels file: qid iter docid rel")
    e.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", required=True,
                   metavar="MEASURE", help="measures, e.g. AP nDCG@10 P@10 RR R@1000 (repeatable)")
    e.add_argument("-q", "--per-topic", action="store_true",
                   help="also print 'measure<TAB>topic<TAB>value' for every topic")
    _policy_flags(e)

    c = _sub(sub, "compare", "compare runs with a baseline: per-topic scores, paired tests, "
             "multiple-testing correction, bootstrap CI and wins/ties/losses",
             "  harness compare reports/demo/runs/*.trec --qrels qrels/demo.txt \\\n"
             "      --baseline 'bm25(k1=0.9,b=0.4)' -m AP nDCG@10 --test randomization --seed 1\n",
             cmd_compare)
    c.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files; a run's name is its file name without .trec")
    c.add_argument("--qrels", required=True, help="TREC qrels file")
    c.add_argument("--baseline", required=True, metavar="RUN|NAME",
                   help="the baseline: one of the runs (file or name), or another run file")
    c.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", required=True,
                   metavar="MEASURE", help="measures (repeatable)")
    c.add_argument("--test", choices=tuple(TESTS), default="t",
                   help="; ".join(f"{k}: {v}" for k, v in TESTS.items()) + " (default t)")
    c.add_argument("--correction", choices=tuple(CORRECTIONS), default="holm",
                   help="; ".join(f"{k}: {v}" for k, v in CORRECTIONS.items()) + " (default holm)")
    c.add_argument("--family", choices=tuple(FAMILIES), default="per-measure",
                   help="the family corrected together: " + "; ".join(f"{k}: {v}" for k, v in FAMILIES.items()))
    c.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    c.add_argument("--permutations", type=int, default=10_000,
                   help="randomization test resamples (default 10000)")
    c.add_argument("--seed", type=int, default=42, help="seed of the randomization/bootstrap (default 42)")
    _policy_flags(c)

    from .lab import add_lab_arguments, LAB_EXAMPLES

    lab = _sub(sub, "lab", "the course lab: search an index (or a folder of .txt files, indexed once "
               "and reused) and print each query's ranking with P@k, R@k, AP, nDCG@k and RR",
               LAB_EXAMPLES, cmd_lab)
    add_lab_arguments(lab)

    _sub(sub, "doctor", "print versions and check that the JVM starts", "  harness doctor\n", cmd_doctor)
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
